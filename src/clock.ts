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
}

export const realClock = (): Clock => new ScaledClock(1);
