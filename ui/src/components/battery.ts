/** Battery thresholds (browser storage: the host has no settings route) and the low list. */
import { computed, signal } from '@preact/signals';
import { batteryLevel, DEFAULT_BATTERY, type BatteryThresholds } from '../format.ts';
import { devices } from '../store.ts';

function loadThresholds(): BatteryThresholds {
  try {
    const raw = localStorage.getItem('lightnet.battery');
    if (raw) return { ...DEFAULT_BATTERY, ...(JSON.parse(raw) as Partial<BatteryThresholds>) };
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

export const lowBattery = computed(() =>
  devices.value.filter((d) => {
    const l = batteryLevel(d.voltage_mV, thresholds.value);
    return l === 'warn' || l === 'bad';
  }),
);
