import type { Clock, TimerHandle } from '../../../src/clock.ts';

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
  dead: boolean;
}

const before = (a: Timer, b: Timer): boolean => a.at < b.at || (a.at === b.at && a.seq < b.seq);

/**
 * Virtual time that moves `stepMs` per event-loop turn, whatever the wall clock does.
 * The driver, the simulated fleet and the test share it, so a loaded machine slows a
 * scenario down but cannot reorder its timers: windows never close early under load.
 */
export class StepClock implements Clock {
  readonly scale = Number.NaN;
  private t = Date.now();
  private seq = 0;
  private readonly heap: Timer[] = [];
  private running = false;

  constructor(private readonly stepMs = 1) {}

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer: Timer = { at: this.t + Math.max(0, ms), seq: this.seq++, fn, dead: false };
    this.push(timer);
    return { cancel: () => void (timer.dead = true) };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const onAbort = (): void => {
        handle.cancel();
        reject(signal?.reason as Error);
      };
      const handle = this.setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  start(): this {
    this.running = true;
    const turn = (): void => {
      if (!this.running) return;
      this.step();
      setImmediate(turn);
    };
    setImmediate(turn);
    return this;
  }

  stop(): void {
    this.running = false;
  }

  private step(): void {
    const end = this.t + this.stepMs;
    for (let top = this.heap[0]; top && top.at <= end; top = this.heap[0]) {
      this.pop();
      if (top.dead) continue;
      this.t = Math.max(this.t, top.at);
      top.fn();
    }
    this.t = end;
  }

  private push(x: Timer): void {
    const h = this.heap;
    let i = h.push(x) - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = h[p] as Timer;
      if (!before(x, parent)) break;
      h[i] = parent;
      i = p;
    }
    h[i] = x;
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop();
    if (!last || h.length === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = l < h.length && before(h[l] as Timer, last) ? l : -1;
      if (r < h.length && before(h[r] as Timer, m < 0 ? last : (h[l] as Timer))) m = r;
      if (m < 0) break;
      h[i] = h[m] as Timer;
      i = m;
    }
    h[i] = last;
  }
}
