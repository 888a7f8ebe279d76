/**
 * Time, for everything: the driver's timeouts, the simulator's airtime and reply
 * delays, tasks and tests. Production uses real time; tests and the simulator may
 * run on a scaled clock so that a 5 s discovery window takes 250 ms of wall time
 * while every component still agrees on what "5 s" means.
 */
export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Virtual milliseconds since the Unix epoch. */
  now(): number;
  /** Runs `fn` after `ms` virtual milliseconds. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /** Resolves after `ms` virtual milliseconds; rejects with the signal's reason when aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Wall milliseconds per virtual millisecond (1 for real time). */
  readonly scale: number;
}

/**
 * A clock whose virtual time runs `1/scale` times faster than wall time.
 * scale = 1 is real time; scale = 0.05 makes everything 20x faster.
 */
export class ScaledClock implements Clock {
  private readonly wallStart: number;
  private readonly virtualStart: number;

  constructor(readonly scale = 1) {
    if (!(scale > 0)) throw new RangeError('clock scale must be > 0');
    this.wallStart = performance.now();
    this.virtualStart = Date.now();
  }

  now(): number {
    if (this.scale === 1) return Date.now();
    return this.virtualStart + (performance.now() - this.wallStart) / this.scale;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const t = setTimeout(fn, Math.max(0, ms) * this.scale);
    return { cancel: () => clearTimeout(t) };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }
}

export const realClock = (): Clock => new ScaledClock(1);

/** `sleep` for any clock: a timer on that clock, cancelled (and rejected) by the signal. */
export function sleepOn(clock: Pick<Clock, 'setTimeout'>, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => {
      handle.cancel();
      reject(signal?.reason as Error);
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A file-system request of this process is in flight: libuv's FSReqCallback / FSReqPromise,
 * or the CloseReq of a file handle being closed (part of every durable write).
 */
const fsInFlight = (): boolean =>
  process.getActiveResourcesInfo().some((r) => r.startsWith('FSReq') || r === 'CloseReq');

interface SteppedTimer {
  at: number;
  seq: number;
  fn: () => void;
  dead: boolean;
}

/**
 * Virtual time that advances by a fixed step per event-loop turn, independent of wall
 * time. Tests use it so that a busy machine slows everything down uniformly instead of
 * letting timeouts fire early: radio timing then depends on event order, not CPU load.
 */
export class SteppedClock implements Clock {
  /** Not tied to wall time. */
  readonly scale = Number.NaN;
  private t: number;
  private heap: SteppedTimer[] = [];
  private seq = 0;
  private running = false;

  private readonly holdDuringFs: boolean;

  constructor(
    private readonly stepMs = 1,
    startMs = Date.now(),
    opts: {
      /**
       * Virtual time stands still while a file-system request of this process is in
       * flight (an fsync, a journal append). Without it the loop keeps stepping while the
       * host awaits the disk, so a write that takes 100 ms of wall time costs seconds of
       * virtual time — more the busier the machine. With it, disk I/O takes no virtual
       * time (an ideal disk): benchmarks of radio work stay independent of machine load.
       */
      holdDuringFs?: boolean;
    } = {},
  ) {
    this.t = startMs;
    this.holdDuringFs = opts.holdDuringFs ?? false;
  }

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer: SteppedTimer = { at: this.t + Math.max(0, ms), seq: this.seq++, fn, dead: false };
    this.push(timer);
    return { cancel: () => (timer.dead = true) };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  /** Moves time forward by `ms`, firing due timers in time order. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const top = this.heap[0];
      if (!top || top.at > end) break;
      this.pop();
      if (top.dead) continue;
      this.t = Math.max(this.t, top.at);
      top.fn();
    }
    this.t = end;
  }

  /** Starts advancing one step per event-loop turn. */
  start(): this {
    if (this.running) return this;
    this.running = true;
    const loop = (): void => {
      if (!this.running) return;
      if (!(this.holdDuringFs && fsInFlight())) this.advance(this.stepMs);
      setImmediate(loop);
    };
    setImmediate(loop);
    return this;
  }

  stop(): void {
    this.running = false;
  }

  private less(a: SteppedTimer, b: SteppedTimer): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  private push(x: SteppedTimer): void {
    const h = this.heap;
    h.push(x);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const hp = h[p] as SteppedTimer;
      if (!this.less(x, hp)) break;
      h[i] = hp;
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
      let m = i;
      let mv = last;
      const lv = h[l];
      const rv = h[r];
      if (lv && this.less(lv, mv)) {
        m = l;
        mv = lv;
      }
      if (rv && this.less(rv, mv)) m = r;
      if (m === i) break;
      h[i] = h[m] as SteppedTimer;
      i = m;
    }
    h[i] = last;
  }
}
