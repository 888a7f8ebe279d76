/**
 * How lively a timer source is, the same way for every timer (RotorHazard's plugin,
 * FPVTrackside): when it was last heard, whether that counts as connected, and its events
 * over the last minute. Counted in a ring of 60 one-second buckets: constant memory and
 * constant work per event whatever the rate (a flood of 100 events/s included).
 */

/** Timers send nothing between races: "connected" means heard this recently. */
export const CONNECTED_MS = 10 * 60_000;
const SECONDS = 60;

export class SourceActivity {
  private last: number | null = null;
  private readonly buckets = new Array<{ s: number; n: number }>(SECONDS).fill({ s: -1, n: 0 });

  /** One event arrived at `at` (epoch ms). */
  heard(at: number): void {
    this.last = at;
    const sec = Math.floor(at / 1000);
    const i = sec % SECONDS;
    const b = this.buckets[i] as { s: number; n: number };
    this.buckets[i] = b.s === sec ? { s: sec, n: b.n + 1 } : { s: sec, n: 1 };
  }

  get lastHeard(): number | null {
    return this.last;
  }

  connected(now: number): boolean {
    return this.last !== null && now - this.last < CONNECTED_MS;
  }

  /** Events in the 60 whole seconds up to and including `now`'s. */
  perMinute(now: number): number {
    const sec = Math.floor(now / 1000);
    return this.buckets.reduce((sum, b) => (sec - b.s < SECONDS && b.s <= sec ? sum + b.n : sum), 0);
  }
}
