/**
 * The Store: the one place state changes. Every mutation names its scopes; the
 * Store publishes them on the bus (→ SSE refresh) and schedules a debounced,
 * atomic write. `save()` forces a durable write now.
 *
 * Two write urgencies: a change the operator made or a new device is written within
 * the debounce (≤ 250 ms); a runtime refresh (RSSI, battery, last ACK of a reply) is
 * written lazily, so radio traffic does not rewrite the file several times a second.
 */
import type { Clock, TimerHandle } from '../clock.ts';
import type { Device, StateModel } from '../domain/model.ts';
import { emptyState } from '../domain/model.ts';
import type { EventBus } from '../events.ts';
import { PersistenceError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { LoadResult, StatePersistence } from './persistence.ts';
import { CURRENT_SCHEMA_VERSION } from './migrations.ts';
import type { Scope } from './scopes.ts';

export interface StoreOptions {
  persistence: StatePersistence;
  bus: EventBus;
  clock: Clock;
  log: Logger;
  /** Quiet time before a scheduled write, in virtual ms (≤ 250). */
  debounceMs?: number;
  /** Delay of a lazy (runtime-only) write, in virtual ms. */
  lazyMs?: number;
}

export type WriteUrgency = 'soon' | 'lazy';

/**
 * One applied change, for in-process caches (serialised device rows). `devices` narrows
 * it: only these devices' own fields changed (a reply, an offline mark); null means
 * anything may have changed, so every cached view is rebuilt.
 */
export interface StoreChange {
  scopes: readonly Scope[];
  devices: readonly Device[] | null;
}

const RETRY_MIN_MS = 1000;
const RETRY_MAX_MS = 30_000;

export class Store {
  private model: StateModel = emptyState();
  private timer: TimerHandle | null = null;
  private timerDue = Infinity;
  private writing: Promise<void> = Promise.resolve();
  private dirty = false;
  private closed = false;
  private lastWriteError: string | null = null;
  private retryMs = RETRY_MIN_MS;
  private readonly changeListeners = new Set<(c: StoreChange) => void>();
  /** Operator-facing warning from loading (corrupt file, restored backup), shown on /api/health. */
  loadWarning: string | null = null;

  constructor(private readonly opts: StoreOptions) {}

  get state(): Readonly<StateModel> {
    return this.model;
  }

  get writeError(): string | null {
    return this.lastWriteError;
  }

  /** Loads from disk; every device starts offline (link state is never restored). */
  async load(): Promise<LoadResult> {
    const result = await this.adopt();
    if (!result.warning) {
      this.opts.log.info({ source: result.source, devices: result.state.devices.length }, 'state loaded');
    }
    return result;
  }

  /** Calls `fn` after every applied change (synchronously, before the bus event). */
  onChange(fn: (c: StoreChange) => void): () => void {
    this.changeListeners.add(fn);
    return () => this.changeListeners.delete(fn);
  }

  /**
   * Applies `fn` to the live model, publishes the scopes and schedules a write. Pass
   * `devices` only when `fn` changes nothing but those devices' own fields.
   */
  mutate<T>(
    scopes: readonly Scope[],
    fn: (state: StateModel) => T,
    urgency: WriteUrgency = 'soon',
    devices?: readonly Device[],
  ): T {
    const out = fn(this.model);
    this.changed(scopes, urgency, devices);
    return out;
  }

  /** Publishes scopes for a change already applied (and schedules a write); `devices` as in mutate. */
  changed(scopes: readonly Scope[], urgency: WriteUrgency = 'soon', devices?: readonly Device[]): void {
    this.dirty = true;
    this.schedule(urgency === 'soon' ? (this.opts.debounceMs ?? 200) : (this.opts.lazyMs ?? 5000));
    this.notify(scopes, devices ?? null);
    this.opts.bus.emit('scopes', scopes);
  }

  private notify(scopes: readonly Scope[], devices: readonly Device[] | null): void {
    for (const fn of this.changeListeners) fn({ scopes, devices });
  }

  /** Writes now and resolves once the data is durable; throws PersistenceError on failure. */
  async save(): Promise<void> {
    this.cancelTimer();
    this.dirty = true;
    await this.flush();
    if (this.lastWriteError) throw new PersistenceError(this.lastWriteError);
  }

  /**
   * Re-reads the file, replacing memory (the file wins: a pending debounced write is
   * dropped, so an edit made on disk is not overwritten); everyone offline; FULL refresh.
   */
  async reload(): Promise<void> {
    this.cancelTimer();
    this.dirty = false;
    await this.writing;
    const result = await this.adopt();
    this.opts.log.info({ source: result.source, devices: result.state.devices.length }, 'state reloaded');
    this.opts.bus.emit('scopes', ['FULL']);
  }

  /** Flushes a pending write (shutdown); later changes stay in memory only. */
  async close(): Promise<void> {
    this.cancelTimer();
    // Closed first: a change made while the last write runs must not arm a timer that
    // writes into the data dir after close() resolved; it is written by the second pass.
    this.closed = true;
    await this.flush();
    if (this.dirty && !this.lastWriteError) await this.flush();
  }

  private async adopt(): Promise<LoadResult> {
    const result = await this.opts.persistence.load();
    for (const d of result.state.devices) d.online = false;
    this.model = result.state;
    this.notify(['FULL'], null);
    this.loadWarning = result.warning;
    if (result.warning) this.opts.log.error({ path: this.opts.persistence.path }, result.warning);
    for (const note of result.notes ?? []) this.opts.log.warn({ note }, 'stored record repaired on load');
    // A migrated or restored state is written back in the current format right away.
    if (
      result.source === 'backup' ||
      (result.source === 'main' && result.fromVersion !== CURRENT_SCHEMA_VERSION)
    ) {
      this.dirty = true;
      await this.flush();
    }
    return result;
  }

  private cancelTimer(): void {
    this.timer?.cancel();
    this.timer = null;
    this.timerDue = Infinity;
  }

  /** Arms the write timer, or brings a later one forward. */
  private schedule(delayMs: number): void {
    if (this.closed) return;
    const due = this.opts.clock.now() + delayMs;
    if (this.timer && this.timerDue <= due) return;
    this.cancelTimer();
    this.timerDue = due;
    this.timer = this.opts.clock.setTimeout(() => {
      this.timer = null;
      this.timerDue = Infinity;
      void this.flush();
    }, delayMs);
  }

  /** Serialises writes: one in progress at a time, the latest state always wins. */
  private flush(): Promise<void> {
    this.writing = this.writing.then(async () => {
      if (!this.dirty) return;
      this.dirty = false;
      try {
        await this.opts.persistence.write(this.model);
        if (this.lastWriteError) this.opts.log.info({}, 'state write recovered');
        this.lastWriteError = null;
        this.retryMs = RETRY_MIN_MS;
      } catch (err) {
        this.dirty = true;
        const message = `state write failed: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
        if (message !== this.lastWriteError) this.opts.log.error({ err: (err as Error).message }, message);
        this.lastWriteError = message;
        // Keep trying on our own (disk full, read-only remount): nothing acknowledged is dropped.
        this.schedule(this.retryMs);
        this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2);
      }
    });
    return this.writing;
  }
}
