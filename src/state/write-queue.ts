/**
 * The Store's commit machinery: numbers every change, commits pending ones one batch at a
 * time (changes that arrive while a commit runs share the next one: group commit), tells
 * waiters when their change is durable or refused, and after a failure retries a probe
 * with backoff so the error clears by itself once the disk takes writes again.
 */
import type { Clock, TimerHandle } from '../clock.ts';
import type { StateModel } from '../domain/model.ts';
import { PersistenceError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { DirtyHint } from './dirty.ts';
import type { StatePersistence } from './persistence.ts';

export interface WriteQueueDeps {
  persistence: StatePersistence;
  clock: Clock;
  log: Logger;
  model(): StateModel;
  /** What changed since the last commit (null: compare everything); resets it. */
  takeDirty(full: boolean): DirtyHint | null;
  /** A commit that was neither written nor rolled back: compare everything next time. */
  markAllDirty(): void;
  /** Replace the live model with the durable one (a commit was refused). */
  rollback(): void;
  /** Called after every successful commit. */
  committed(): void;
}

interface Waiter {
  n: number;
  resolve(): void;
  reject(err: PersistenceError): void;
}

const RETRY_MIN_MS = 1000;
const RETRY_MAX_MS = 30_000;
const ERRNO_TEXT: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EIO: 'input/output error',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
};

/** The PersistenceError for a failed write, naming the cause (errno code and its meaning). */
export function persistenceError(err: unknown, what = 'state write failed'): PersistenceError {
  if (err instanceof PersistenceError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  const text = code ? `${code} (${ERRNO_TEXT[code] ?? (err as Error).message})` : (err as Error).message;
  return new PersistenceError(`${what}: ${text}`, code);
}

export class WriteQueue {
  /** Number of the latest change noted. */
  changeCount = 0;
  /** Every change up to this number is on disk (or was refused and rolled back). */
  private durable = 0;
  private operatorPending = 0;
  private lazyDue = false;
  private waiters: Waiter[] = [];
  private refused: { from: number; to: number; error: PersistenceError }[] = [];
  private lock: Promise<unknown> = Promise.resolve();
  private pumpQueued = false;
  private retryTimer: TimerHandle | null = null;
  private retryMs = RETRY_MIN_MS;
  private closed = false;
  error: PersistenceError | null = null;

  constructor(private readonly deps: WriteQueueDeps) {}

  /** Registers a change; an operator change is committed at once. */
  note(operator: boolean): number {
    const n = ++this.changeCount;
    if (operator) {
      this.operatorPending = n;
      this.kick(false);
    }
    return n;
  }

  /** Starts a commit of what is pending (`lazy`: telemetry too). */
  kick(lazy: boolean): void {
    if (lazy) this.lazyDue = true;
    if (this.pumpQueued || this.closed) return;
    this.pumpQueued = true;
    // Let the current tick finish: its changes go into the same commit.
    setImmediate(() => {
      void this.exclusive(async () => {
        this.pumpQueued = false;
        while (this.operatorPending > this.durable || (this.lazyDue && this.changeCount > this.durable)) {
          try {
            // Telemetry commits compare everything: the safety net for a too-narrow hint.
            await this.commitLocked(this.lazyDue);
          } catch {
            break; // refused and reported; the probe takes over
          }
        }
      });
    });
  }

  whenDurable(n: number): Promise<void> {
    if (n <= this.durable) {
      const r = this.refused.find((x) => n >= x.from && n <= x.to);
      return r ? Promise.reject(r.error) : Promise.resolve();
    }
    if (this.closed)
      return Promise.reject(new PersistenceError('state write failed: the host is shutting down'));
    return new Promise((resolve, reject) => this.waiters.push({ n, resolve, reject }));
  }

  /** Runs `fn` with no commit in between. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lock.then(fn, fn);
    this.lock = run.catch(() => undefined);
    return run;
  }

  flushAll(): Promise<void> {
    return this.exclusive(() => this.flushAllLocked());
  }

  /** Commits everything pending, telemetry included; throws PersistenceError on failure. */
  async flushAllLocked(): Promise<void> {
    // Compare everything even when nothing is pending: a change with a too-narrow hint is caught here.
    do await this.commitLocked(true, true);
    while (this.changeCount > this.durable);
    if (this.error) throw this.error;
  }

  /** One commit of everything noted so far (`full`: compare all). Must run inside `exclusive`. */
  async commitLocked(full = false, always = false): Promise<void> {
    const target = this.changeCount;
    if (target <= this.durable && !always) return;
    try {
      await this.deps.persistence.commit(this.deps.model(), this.deps.takeDirty(full));
    } catch (err) {
      const e = this.fail(err);
      if (this.operatorPending > this.durable) this.refuse(e);
      else {
        this.lazyDue = false; // telemetry only: kept in memory, retried after the probe
        this.deps.markAllDirty();
      }
      throw e;
    }
    this.durable = Math.max(this.durable, target);
    if (target === this.changeCount) this.lazyDue = false;
    this.settle();
    this.recovered();
    this.deps.committed();
  }

  /** The model was just replaced by what is on disk: nothing is pending. */
  adopted(): void {
    this.durable = this.changeCount;
    this.operatorPending = Math.min(this.operatorPending, this.durable);
    this.lazyDue = false;
    this.settle();
  }

  /** Records a write failure (health, log) and arms the probe; returns the error to throw. */
  fail(err: unknown): PersistenceError {
    const e = persistenceError(err);
    if (e.message !== this.error?.message) this.deps.log.error({ code: e.code }, e.message);
    this.error = e;
    this.armProbe();
    return e;
  }

  close(): void {
    this.closed = true;
    this.retryTimer?.cancel();
    this.retryTimer = null;
  }

  /** Every change not on disk is refused: the model goes back to the durable state. */
  private refuse(e: PersistenceError): void {
    const from = this.durable + 1;
    const to = this.changeCount;
    this.deps.rollback();
    this.durable = to;
    this.refused.push({ from, to, error: e });
    if (this.refused.length > 64) this.refused.shift();
    this.deps.log.warn({ changes: to - from + 1, error: e.message }, 'changes refused and rolled back');
    this.settle();
  }

  private settle(): void {
    const keep: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.n > this.durable) keep.push(w);
      else {
        const r = this.refused.find((x) => w.n >= x.from && w.n <= x.to);
        if (r) w.reject(r.error);
        else w.resolve();
      }
    }
    this.waiters = keep;
  }

  private recovered(): void {
    if (!this.error) return;
    this.deps.log.info({}, 'state write recovered');
    this.error = null;
    this.retryMs = RETRY_MIN_MS;
    this.retryTimer?.cancel();
    this.retryTimer = null;
  }

  private armProbe(): void {
    if (this.retryTimer || this.closed) return;
    const delay = this.retryMs;
    this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2);
    this.retryTimer = this.deps.clock.setTimeout(() => {
      this.retryTimer = null;
      this.deps.persistence.probe().then(
        () => {
          this.recovered();
          if (this.changeCount > this.durable) this.kick(true);
        },
        (err: unknown) => this.fail(err),
      );
    }, delay);
  }
}
