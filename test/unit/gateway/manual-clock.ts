import { sleepOn, type Clock, type TimerHandle } from '../../../src/clock.ts';

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/** Lets every pending microtask and I/O callback run (promise chains settle). */
export const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

/**
 * Virtual time that moves only when the test says so. `advance(ms)` fires due timers in
 * order and lets promise chains settle between them, so async code behaves as it would
 * on a real clock, without any wall-time dependence.
 */
export class ManualClock implements Clock {
  readonly scale = 1;
  private t = 1_700_000_000_000;
  private seq = 0;
  private timers: Timer[] = [];

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer: Timer = { at: this.t + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.timers.push(timer);
    return { cancel: () => void (timer.cancelled = true) };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    await settle();
    for (;;) {
      this.timers = this.timers.filter((x) => !x.cancelled);
      const due = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers.splice(this.timers.indexOf(due), 1);
      this.t = Math.max(this.t, due.at);
      due.fn();
      await settle();
    }
    this.t = end;
    await settle();
  }

  /** Advances in small steps until `p` settles (or `maxMs` passed); returns its value. */
  async run<T>(p: Promise<T>, maxMs = 60_000, stepMs = 10): Promise<T> {
    let done = false;
    p.then(
      () => (done = true),
      () => (done = true),
    );
    for (let waited = 0; !done && waited <= maxMs; waited += stepMs) await this.advance(stepMs);
    if (!done) throw new Error(`promise still pending after ${maxMs} virtual ms`);
    return p;
  }
}
