/**
 * Runs a function at a wall-clock moment, as close to it as the event loop allows: the timer
 * wakes a little early and the last stretch yields turn by turn (setImmediate) until the
 * moment. A plain timer on a loaded 2-core machine — the timing server busy-waits its own
 * start on one core — was seen 20+ ms late.
 */
export interface WallTimer {
  now(): number;
  setTimeout(fn: () => void, ms: number): { cancel(): void };
}

const EARLY_WAKE_MS = 15;

export function atWallTime(wall: WallTimer, atMs: number, fn: () => void): { cancel(): void } {
  let cancelled = false;
  const spin = (): void => {
    if (cancelled) return;
    if (wall.now() >= atMs) fn();
    else setImmediate(spin);
  };
  const wake = wall.setTimeout(spin, atMs - EARLY_WAKE_MS - wall.now());
  return {
    cancel: () => {
      cancelled = true;
      wake.cancel();
    },
  };
}
