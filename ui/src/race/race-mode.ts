/**
 * Race-day state kept in this browser: race mode (destructive maintenance actions —
 * reboot, forget master, firmware, reload, resets — are hidden while it is on) and the
 * scenes pinned to the race panel, in order (number keys 1–9 run them).
 */
import { signal } from '@preact/signals';

function load<T>(key: string, fallback: T): T {
  try {
    const raw = localStorage.getItem(key);
    return raw === null ? fallback : (JSON.parse(raw) as T);
  } catch {
    return fallback;
  }
}

export const raceMode = signal<boolean>(load('lightnet.raceMode', false));
export const pinnedScenes = signal<string[]>(load('lightnet.pinned', []));

export function setRaceMode(on: boolean): void {
  raceMode.value = on;
  localStorage.setItem('lightnet.raceMode', JSON.stringify(on));
}

export function setPinned(keys: string[]): void {
  pinnedScenes.value = keys;
  localStorage.setItem('lightnet.pinned', JSON.stringify(keys));
}
