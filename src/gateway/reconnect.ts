/**
 * Reconnect backoff: the first retry after `initialMs`, each further failure doubles the
 * delay up to `maxMs`, forever (a gateway unplugged for an hour must come back by itself
 * when it is plugged in again). One timer at a time; a success or a manual retry resets.
 */
import type { Clock, TimerHandle } from '../clock.ts';

export class ReconnectBackoff {
  private delayMs: number;
  private timer: TimerHandle | null = null;
  private dueAt: number | null = null;
  private stopped = false;
  /** Lower bound of every delay (a flapping link waits longer, see connection.ts). */
  private floorMs = 0;

  constructor(
    private readonly clock: Clock,
    private readonly initialMs: number,
    private readonly maxMs: number,
    /** Runs one connect attempt; the loop does not overlap attempts. */
    private readonly attempt: () => Promise<boolean>,
    /** Called whenever a new attempt was scheduled (readiness shows the countdown). */
    private readonly onScheduled: () => void = () => undefined,
  ) {
    this.delayMs = initialMs;
  }

  /** Schedules the next attempt with the current delay, then doubles the delay. */
  schedule(): void {
    if (this.stopped || this.timer) return;
    const delay = Math.max(this.delayMs, this.floorMs);
    this.delayMs = Math.min(this.maxMs, this.delayMs * 2);
    this.dueAt = this.clock.now() + delay;
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      this.dueAt = null;
      void this.attempt().then(
        (ok) => {
          if (ok) this.reset();
          else this.schedule();
        },
        () => this.schedule(),
      );
    }, delay);
    this.onScheduled();
  }

  /** Every delay from now on is at least `ms` (0: back to the plain doubling). */
  setFloor(ms: number): void {
    this.floorMs = ms;
  }

  /** Back to the initial delay; cancels a pending attempt. */
  reset(): void {
    this.cancel();
    this.delayMs = this.initialMs;
  }

  cancel(): void {
    this.timer?.cancel();
    this.timer = null;
    this.dueAt = null;
  }

  /** No further attempts, ever. */
  stop(): void {
    this.stopped = true;
    this.cancel();
  }

  get pending(): boolean {
    return this.timer !== null;
  }

  /** The delay the next `schedule()` will use. */
  get nextDelayMs(): number {
    return Math.max(this.delayMs, this.floorMs);
  }

  /** Seconds until the scheduled attempt, or null when none is scheduled. */
  nextRetryInS(): number | null {
    if (this.dueAt === null) return null;
    return Math.max(0, Math.round((this.dueAt - this.clock.now()) / 100) / 10);
  }
}
