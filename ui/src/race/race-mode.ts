/**
 * Race-day state shared by every browser (kept on the host, see ../console.ts): race mode
 * (destructive maintenance actions — reboot, forget master, firmware, reload, resets — are
 * hidden in every browser while it is on) and the scenes pinned to the race panel, in
 * order (number keys 1–9 run them).
 */
import { computed } from '@preact/signals';
import { changeConsole, consoleSettings } from '../console.ts';

/** The host keeps at most this many pins (keys 1–9). */
export const MAX_PINNED = 9;

export const raceMode = computed(() => consoleSettings.value.race_mode);
export const pinnedScenes = computed(() => consoleSettings.value.pinned_scenes);

export function setRaceMode(on: boolean): Promise<boolean> {
  return changeConsole(
    { race_mode: on },
    (s) => ({ ...s, race_mode: on }),
    on ? 'Race mode not switched on' : 'Race mode not switched off',
  );
}

export function setPinned(keys: string[]): Promise<boolean> {
  return changeConsole({ pinned_scenes: keys }, (s) => ({ ...s, pinned_scenes: keys }), 'Pins not saved');
}
