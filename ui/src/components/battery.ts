/** Battery thresholds (browser storage: the host has no settings route) and the low list. */
import { computed, signal } from '@preact/signals';
import { batteryLevel, DEFAULT_BATTERY, type BatteryThresholds } from '../common/battery-cells.ts';
import { devices } from '../store.ts';

function loadThresholds(): BatteryThresholds {
  try {
    const raw = localStorage.getItem('lightnet.battery');
    if (raw) {
      const o = JSON.parse(raw) as Partial<BatteryThresholds> & { warn2s?: number };
      // Before per-cell judgement the browser kept a 2S threshold: half of it per cell.
      if (typeof o.warnPerCell === 'number') return { warnPerCell: o.warnPerCell };
      if (typeof o.warn2s === 'number') return { warnPerCell: o.warn2s / 2 };
    }
  } catch {
    /* defaults */
  }
  return DEFAULT_BATTERY;
}

export const thresholds = signal<BatteryThresholds>(loadThresholds());

export function saveThresholds(t: BatteryThresholds): void {
  thresholds.value = t;
  localStorage.setItem('lightnet.battery', JSON.stringify(t));
}

/** Online devices whose pack reads low (an offline device's last reading is stale: not alerted). */
export const lowBattery = computed(() =>
  devices.value.filter((d) => {
    if (!d.online) return false;
    const l = batteryLevel(d.voltage_mV, thresholds.value);
    return l === 'warn' || l === 'bad';
  }),
);
