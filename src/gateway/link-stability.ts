/**
 * Flapping-link detection: a gateway whose USB link is lost more than `maxLosses` times
 * within `windowMs` (a loose cable, an overloaded hub, a brown-out) counts as unstable.
 * While unstable its reconnects wait longer (each fresh connect can reset the board and
 * costs the other traffic a burst of identify probes), and the UI shows a banner naming
 * it. It is stable again once a whole window passes without a loss.
 */
import type { Clock, TimerHandle } from '../clock.ts';

export interface LinkStability {
  /** Link losses within the last window. */
  losses: number;
  window_s: number;
  /** Epoch seconds: since when the link counts as unstable. */
  since_ts: number;
  /** The least wait before each reconnect while unstable. */
  reconnect_min_s: number;
}

export interface LinkStabilityOptions {
  /** More losses than this within the window make the link unstable (0 disables). */
  maxLosses: number;
  windowMs: number;
  /** The reconnect delay floor while unstable. */
  reconnectMs: number;
}

export class LinkStabilityWatch {
  private losses: number[] = [];
  private since: number | null = null;
  private clearTimer: TimerHandle | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly opts: LinkStabilityOptions,
    /** Unstable turned on or off (the caller adjusts its backoff and announces it). */
    private readonly onChange: (unstable: boolean, losses: number) => void,
  ) {}

  get unstable(): boolean {
    return this.since !== null;
  }

  /** One link loss now. */
  lost(): void {
    const { maxLosses, windowMs } = this.opts;
    if (maxLosses <= 0) return;
    const now = this.clock.now();
    this.losses = this.losses.filter((t) => now - t < windowMs);
    this.losses.push(now);
    if (this.since !== null) {
      // Still flapping: stable only a whole window after this loss.
      this.armClear();
      return;
    }
    if (this.losses.length > maxLosses) {
      this.since = now;
      this.armClear();
      this.onChange(true, this.losses.length);
    }
  }

  snapshot(): LinkStability | null {
    if (this.since === null) return null;
    const now = this.clock.now();
    return {
      losses: this.losses.filter((t) => now - t < this.opts.windowMs).length,
      window_s: Math.round(this.opts.windowMs / 100) / 10,
      since_ts: this.since / 1000,
      reconnect_min_s: Math.round(this.opts.reconnectMs / 100) / 10,
    };
  }

  stop(): void {
    this.clearTimer?.cancel();
    this.clearTimer = null;
  }

  private armClear(): void {
    this.clearTimer?.cancel();
    this.clearTimer = this.clock.setTimeout(() => {
      this.clearTimer = null;
      this.since = null;
      this.losses = [];
      this.onChange(false, 0);
    }, this.opts.windowMs);
  }
}
