/**
 * The field recovery as the operator sees it: one episode ("Restoring n/total" in the status
 * bar) with its counts, start and end, sent to the bus as `recovery` events at most every
 * 250 ms (the first and the last always go out). Which nodes rejoin and why is the
 * RecoveryService's job; this only keeps the score of an episode and reports it.
 */
import type { Clock } from '../../../clock.ts';
import type { EventBus } from '../../../events.ts';
import type { Logger } from '../../../logger.ts';
import type { RecoveryProgress, RecoveryTrigger } from './types.ts';

/** At most this often a progress event (the UI's status bar), plus the first and last. */
const PROGRESS_EVERY_MS = 250;

export interface EpisodeDeps {
  clock: Clock;
  bus: EventBus;
  log: Logger;
  /** Each node's time budget, shown with the progress. */
  budgetMs: number;
  /** Nothing rejoining for this long ends the episode (one power-up, one episode). */
  lingerMs: number;
  /** How many nodes are rejoining now. */
  rejoining(): number;
}

export class RecoveryEpisode {
  private state: RecoveryProgress;
  private progressTimer: { cancel(): void } | null = null;
  private lingerTimer: { cancel(): void } | null = null;
  private lastProgressAt = -Infinity;

  constructor(private readonly deps: EpisodeDeps) {
    this.state = this.empty();
  }

  get active(): boolean {
    return this.state.active;
  }

  progress(): RecoveryProgress {
    return { ...this.state, rejoining: this.deps.rejoining() };
  }

  begin(trigger: RecoveryTrigger): void {
    this.state = { ...this.empty(), active: true, trigger, started_ts: this.deps.clock.now() / 1000 };
  }

  /** Nodes joined the episode (`n` < 0: dropped from it without a verdict). */
  added(n: number): void {
    this.state.total += n;
  }

  restored(): void {
    this.state.restored++;
  }

  failed(): void {
    this.state.failed++;
  }

  /**
   * An episode ends once nothing is rejoining for a burst window: a field power-up starts
   * with single announcements, and the burst that follows belongs to the same episode
   * (one "Restoring n/total", not a run of 1/1 bars).
   */
  endIfIdle(): void {
    if (this.deps.rejoining() > 0 || !this.state.active || this.lingerTimer) return;
    this.lingerTimer = this.deps.clock.setTimeout(() => {
      this.lingerTimer = null;
      if (this.deps.rejoining() > 0 || !this.state.active) return;
      this.finish();
      this.publish();
    }, this.deps.lingerMs);
  }

  /** Progress to the bus, at most every 250 ms (the last state always goes out). */
  publish(): void {
    const { clock, bus } = this.deps;
    if (this.progressTimer) return;
    const wait = this.lastProgressAt + PROGRESS_EVERY_MS - clock.now();
    const emit = (): void => {
      this.progressTimer = null;
      this.lastProgressAt = clock.now();
      bus.emit('recovery', this.progress());
    };
    if (wait <= 0 || !this.state.active) emit();
    else this.progressTimer = clock.setTimeout(emit, wait);
  }

  stop(): void {
    this.progressTimer?.cancel();
    this.lingerTimer?.cancel();
  }

  private finish(): void {
    this.state.active = false;
    this.state.ended_ts = this.deps.clock.now() / 1000;
    const { total, restored, failed } = this.state;
    this.deps.log.info({ total, restored, failed }, 'field recovery finished');
  }

  private empty(): RecoveryProgress {
    return {
      active: false,
      trigger: null,
      total: 0,
      restored: 0,
      failed: 0,
      rejoining: 0,
      started_ts: null,
      ended_ts: null,
      budget_s: Math.round(this.deps.budgetMs / 1000),
    };
  }
}
