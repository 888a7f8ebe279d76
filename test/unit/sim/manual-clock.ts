/** A hand-driven Clock for unit tests: time moves only when `advance` is called. */
import type { Clock, TimerHandle } from '../../../src/clock.ts';

export class ManualClock implements Clock {
  readonly scale = 1;
  private t = 1_000_000;
  private timers: { at: number; seq: number; fn: () => void; dead: boolean }[] = [];
  private seq = 0;

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const e = { at: this.t + Math.max(0, ms), seq: this.seq++, fn, dead: false };
    this.timers.push(e);
    return { cancel: () => (e.dead = true) };
  }

  sleep(ms: number): Promise<void> {
    return new Promise((r) => this.setTimeout(r, ms));
  }

  /** Moves time forward without firing timers (a busy event loop that wakes up late). */
  skip(ms: number): void {
    this.t += ms;
  }

  /** Moves time forward, firing due timers in order (timers set meanwhile included). */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const due = this.timers
        .filter((e) => !e.dead && e.at <= end)
        .sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      due.dead = true;
      this.t = Math.max(this.t, due.at);
      due.fn();
    }
    this.timers = this.timers.filter((e) => !e.dead);
    this.t = end;
  }
}
