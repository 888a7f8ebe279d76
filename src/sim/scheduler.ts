/**
 * Discrete-event scheduler for the simulator, driven by a Clock.
 *
 * Why not plain clock timers: on a scaled clock one wall millisecond can be 50 virtual
 * milliseconds, and timers fire late and in coarse batches. If the simulation read
 * `clock.now()` inside each timer, airtime overlaps, CAD results and reply collisions would
 * depend on event-loop jitter. Here every event runs at its own *scheduled* virtual time,
 * in (time, sequence) order, so everything inside the simulated world is deterministic for
 * a given seed and a given sequence of host inputs. Only the times at which host bytes
 * arrive come from the real clock (`runExternal`).
 */
import type { Clock, TimerHandle } from '../clock.ts';

export interface SimTimer {
  cancel(): void;
}

interface Entry {
  time: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

export class SimScheduler {
  private readonly heap: Entry[] = [];
  private seq = 0;
  private current: number;
  private wake: TimerHandle | null = null;
  private wakeAt = Infinity;
  private running = false;
  private stopped = false;
  /** Errors thrown by events; the scheduler keeps going (one bad node must not stop the world). */
  onError: (err: unknown) => void = (err) => {
    queueMicrotask(() => {
      throw err;
    });
  };

  constructor(readonly clock: Clock) {
    this.current = clock.now();
  }

  /** Virtual time of the event being run, or the latest time the simulation has reached. */
  now(): number {
    return this.running ? this.current : Math.max(this.current, this.clock.now());
  }

  at(time: number, fn: () => void): SimTimer {
    const e: Entry = { time: Math.max(time, this.now()), seq: this.seq++, fn, cancelled: false };
    this.push(e);
    this.arm();
    return {
      cancel: () => {
        e.cancelled = true;
      },
    };
  }

  after(ms: number, fn: () => void): SimTimer {
    return this.at(this.now() + Math.max(0, ms), fn);
  }

  /**
   * Runs an input from outside the simulation (host bytes, a fault) at the current clock
   * time, after every event that is already due, so time never goes backwards.
   */
  runExternal<T>(fn: () => T): T {
    if (this.running) return fn();
    this.pump();
    this.running = true;
    this.current = Math.max(this.current, this.clock.now());
    try {
      return fn();
    } finally {
      this.running = false;
      this.arm();
    }
  }

  /** Cancels the wake-up timer; pending events stay queued but never run. */
  stop(): void {
    this.stopped = true;
    this.wake?.cancel();
    this.wake = null;
    this.wakeAt = Infinity;
  }

  /** Number of queued (not cancelled) events, for tests and diagnostics. */
  get pending(): number {
    return this.heap.filter((e) => !e.cancelled).length;
  }

  private pump(): void {
    if (this.running || this.stopped) return;
    const target = this.clock.now();
    this.running = true;
    try {
      for (;;) {
        const top = this.heap[0];
        if (!top || top.time > target) break;
        this.pop();
        if (top.cancelled) continue;
        this.current = Math.max(this.current, top.time);
        try {
          top.fn();
        } catch (err) {
          this.onError(err);
        }
      }
      this.current = Math.max(this.current, target);
    } finally {
      this.running = false;
    }
  }

  private arm(): void {
    if (this.stopped || this.running) return;
    while (this.heap[0]?.cancelled) this.pop();
    const top = this.heap[0];
    if (!top) return;
    if (this.wake && this.wakeAt <= top.time) return;
    this.wake?.cancel();
    this.wakeAt = top.time;
    // Timers may fire a little early on a scaled clock; pump() then simply re-arms.
    this.wake = this.clock.setTimeout(
      () => {
        this.wake = null;
        this.wakeAt = Infinity;
        this.pump();
        this.arm();
      },
      Math.max(0, top.time - this.clock.now()),
    );
  }

  private push(e: Entry): void {
    const h = this.heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(h[i] as Entry, h[p] as Entry)) break;
      [h[i], h[p]] = [h[p] as Entry, h[i] as Entry];
      i = p;
    }
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop();
    if (!last || h.length === 0) return;
    h[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && less(h[l] as Entry, h[m] as Entry)) m = l;
      if (r < h.length && less(h[r] as Entry, h[m] as Entry)) m = r;
      if (m === i) break;
      [h[i], h[m]] = [h[m] as Entry, h[i] as Entry];
      i = m;
    }
  }
}

function less(a: Entry, b: Entry): boolean {
  return a.time < b.time || (a.time === b.time && a.seq < b.seq);
}
