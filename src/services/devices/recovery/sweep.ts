/**
 * The recovery sweep: passes over the rejoining nodes, each pass a pipelined run of
 * unicast SET_GROUP (their stored group) with `depth` exchanges in flight. A node that
 * rebooted has no master, so it accepts SET_GROUP from any sender (§8.2–§8.3) and is then
 * bound to this gateway again. Order: most recently seen first (the gates that were up
 * last are the likeliest to be up now). A node that stays silent through a pass waits
 * longer before its next one (doubling backoff), so nodes switched on later are still
 * reached while dark ones cost little; past its deadline it is given up (offline).
 */
import type { Clock } from '../../../clock.ts';
import type { GatewayDriver } from '../../../gateway/types.ts';
import type { Logger } from '../../../logger.ts';
import type { Addr } from '../../../protocol/types.ts';
import type { RecoveryOptions, RejoinEntry } from './types.ts';
import { runUnicastPipeline, type UnicastJob } from '../radio/unicast-pipeline.ts';

export interface SweepHost {
  entries(): Iterable<RejoinEntry>;
  has(addr: Addr): boolean;
  /** The node's stored group now (null: no longer known or nothing to restore). */
  groupOf(addr: Addr): number | null;
  lastSeen(addr: Addr): number;
  restored(addr: Addr, groupId: number): void;
  /** The node has nothing to restore any more (its stored group became 0, or it was removed). */
  forget(addr: Addr): void;
  /** An RF task is rebinding the node itself (recovery.claim): the sweep leaves it alone. */
  claimed?(addr: Addr): boolean;
  giveUp(entry: RejoinEntry): void;
}

export class RecoverySweep {
  private running: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private abort = new AbortController();
  /** Ends the current pass early (its in-flight exchanges finish): a new pass order is due. */
  private passAbort: AbortController | null = null;
  private stopped = false;

  constructor(
    private readonly deps: {
      clock: Clock;
      driver: GatewayDriver;
      log: Logger;
      opts: RecoveryOptions;
      host: SweepHost;
    },
  ) {}

  get active(): boolean {
    return this.running !== null;
  }

  /**
   * Starts the loop (after `settleMs` when `settle`), or wakes it for new entries; with
   * `restart` the pass under way ends early so that the next one starts over in order
   * (a field was just switched on: the nodes a long pass already tried while they were
   * still dark must not wait for its end).
   */
  kick(settle: boolean, restart = false): void {
    if (this.stopped) return;
    if (this.running) {
      if (restart) this.passAbort?.abort();
      this.wake?.();
      return;
    }
    this.running = this.loop(settle)
      .catch((err: unknown) => this.deps.log.warn({ err }, 'recovery sweep failed'))
      .finally(() => {
        this.running = null;
      });
  }

  /** Ends the loop for good (shutdown); exchanges in flight are aborted. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    this.wake?.();
    await this.running;
  }

  private async loop(settle: boolean): Promise<void> {
    const { clock, driver, opts, host } = this.deps;
    if (settle) await this.pause(opts.settleMs);
    for (;;) {
      if (this.stopped) return;
      const now = clock.now();
      const all = [...host.entries()];
      if (all.length === 0) return;
      // A node whose gateway an RF task holds (gateway/lease.ts), or that an RF task is
      // rebinding itself, waits: its budget pauses.
      const held = (e: RejoinEntry): boolean =>
        Boolean(driver.offchannel?.(e.addr)) || host.claimed?.(e.addr) === true;
      for (const e of all) if (held(e)) e.deadline = Math.max(e.deadline, now + opts.passBackoffMaxMs);
      for (const e of all) if (!e.inFlight && now >= e.deadline) host.giveUp(e);
      if (!driver.readiness().ready) {
        // No gateway: nothing can be sent; deadlines keep running (the link may not return).
        await this.pause(1000);
        continue;
      }
      const due = [...host.entries()]
        .filter((e) => !e.inFlight && e.nextAt <= now && !held(e))
        .sort((a, b) => host.lastSeen(b.addr) - host.lastSeen(a.addr));
      if (due.length === 0) {
        const waiting = [...host.entries()].filter((e) => !held(e));
        if (waiting.length === 0) {
          await this.pause(250);
          continue;
        }
        const next = Math.min(...waiting.map((e) => Math.min(e.nextAt, e.deadline)));
        await this.pause(Math.max(50, Math.min(next - now, opts.passBackoffMaxMs)));
        continue;
      }
      await this.pass(due);
    }
  }

  private async pass(due: RejoinEntry[]): Promise<void> {
    const { clock, driver, opts, host } = this.deps;
    const jobs: UnicastJob<unknown>[] = due.map((e) => ({
      key: e.addr,
      attempt: async ({ signal }) => {
        const groupId = host.groupOf(e.addr);
        if (groupId === null) {
          host.forget(e.addr);
          return { ok: true, value: null };
        }
        e.inFlight = true;
        e.tries++;
        try {
          const r = await driver.setGroup(e.addr, groupId, {
            priority: 'bulk',
            attempts: 1,
            timeoutMs: opts.attemptTimeoutMs,
            ...(signal ? { signal } : {}),
          });
          if (r.ok && r.value.ok) host.restored(e.addr, groupId);
          return r;
        } finally {
          e.inFlight = false;
        }
      },
    }));
    const passAbort = new AbortController();
    this.passAbort = passAbort;
    const stopAll = (): void => passAbort.abort();
    this.abort.signal.addEventListener('abort', stopAll);
    const outcomes = await runUnicastPipeline(jobs, {
      clock,
      depth: opts.depth,
      attempts: opts.attemptsPerPass,
      signal: passAbort.signal,
      // A restarted pass lets its exchanges finish: an ACK on the way still counts.
      abortInFlight: false,
      settled: (key) => !host.has(key),
      accept: (v) => v === null || (typeof v === 'object' && (v as { ok?: boolean }).ok !== false),
    });
    this.abort.signal.removeEventListener('abort', stopAll);
    this.passAbort = null;
    const now = clock.now();
    for (const o of outcomes) {
      if (o.ok || o.reason === 'skipped' || o.attempts === 0) continue;
      const e = due.find((x) => x.addr === o.key);
      if (!e || !host.has(e.addr)) continue;
      e.passes++;
      e.lastError = o.detail;
      e.nextAt = now + Math.min(opts.passBackoffMs * 2 ** (e.passes - 1), opts.passBackoffMaxMs);
    }
  }

  /** Sleeps on the clock; new entries (kick) or stop end it early. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = this.deps.clock.setTimeout(done, ms);
      function done(): void {
        t.cancel();
        resolve();
      }
      this.wake = () => {
        this.wake = null;
        done();
      };
    });
  }
}
