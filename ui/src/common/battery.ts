/**
 * Battery thresholds (one fleet setting shared by every browser, kept on the host: see
 * ../console.ts) and the list of online devices with a low battery.
 */
import { computed } from '@preact/signals';
import { batteryLevel, type BatteryThresholds } from './battery-cells.ts';
import { changeConsole, consoleSettings } from '../console.ts';
import { devices } from '../store.ts';

export const thresholds = computed<BatteryThresholds>(() => consoleSettings.value.battery);

/** Saves the thresholds for every browser; resolves true when the host kept them. */
export function saveThresholds(t: BatteryThresholds): Promise<boolean> {
  return changeConsole(
    { battery: { warnPerCell: t.warnPerCell } },
    (s) => ({ ...s, battery: { warnPerCell: t.warnPerCell } }),
    'Battery warning not saved',
  );
}

/** Online devices whose pack reads low (an offline device's last reading is stale: not alerted). */
export const lowBattery = computed(() =>
  devices.value.filter((d) => {
    if (!d.online) return false;
    const l = batteryLevel(d.voltage_mV, thresholds.value);
    return l === 'warn' || l === 'bad';
  }),
);
