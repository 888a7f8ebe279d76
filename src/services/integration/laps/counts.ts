/** The race lights' counters (`view().stats`), shared by the lap flashes and the phase looks. */

export type DropReason = 'radio_busy' | 'stale' | 'overflow' | 'not_sent' | 'blackout' | 'held';
/** Who asked for a flash: a timer's pass, or the operator's Test button. */
export type FlashSource = 'rotorhazard' | 'fpvtrackside' | 'test';
export type FlashResult = 'flash' | 'merged' | 'waiting' | DropReason;
export type IgnoreReason = 'disabled' | 'late' | 'holeshot' | 'unmapped' | 'red_flag';

/** The race lights' counters (`view().stats`); the phase looks count `phases_held`. */
export interface RaceLightsCounts {
  laps: number;
  flashes_sent: number;
  passes_flashed: number;
  merged: number;
  dropped: Record<DropReason, number>;
  ignored: Record<IgnoreReason, number>;
  /** Phase looks not played because a red flag was up. */
  phases_held: number;
}

// Key order is the order `view().stats` shows them in.
export const newCounts = (): RaceLightsCounts => ({
  laps: 0,
  flashes_sent: 0,
  passes_flashed: 0,
  merged: 0,
  dropped: { radio_busy: 0, stale: 0, overflow: 0, not_sent: 0, blackout: 0, held: 0 },
  ignored: { disabled: 0, late: 0, holeshot: 0, unmapped: 0, red_flag: 0 },
  phases_held: 0,
});
