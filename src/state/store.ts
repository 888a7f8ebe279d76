/**
 * The Store: the one place state changes. Every mutation names its scopes; the Store
 * publishes them on the bus (→ SSE refresh) and commits the change to the journal.
 *
 * Two urgencies: an operator change ('soon': renames, groups, presets, scenes, settings,
 * new devices) is committed at once — changes arriving together share one fsync (group
 * commit) — and `whenDurable(n)` resolves once change n is on disk; the HTTP layer answers
 * a request only then. Radio telemetry ('lazy': RSSI, battery, last seen/ACK) rides along
 * with the next commit or is committed within `lazyMs` (5 s).
 *
 * A failed commit refuses every change not yet on disk: the model is rolled back to the
 * durable state (FULL refresh), their waiters get a PersistenceError (507 on a full disk),
 * and `writeError` stays set — a probe retries with backoff — until a write works again.
 */
import type { Clock, TimerHandle } from '../clock.ts';
import type { Device, StateModel } from '../domain/model.ts';
import { emptyState } from '../domain/model.ts';
import type { EventBus } from '../events.ts';
import type { Logger } from '../logger.ts';
import { ackScope } from './ack-context.ts';
import { DirtyTracker } from './dirty.ts';
import { CURRENT_SCHEMA_VERSION } from './migrations.ts';
import type { LoadResult, StatePersistence } from './persistence.ts';
import type { Scope } from './scopes.ts';
import { WriteQueue } from './write-queue.ts';

export interface StoreOptions {
  persistence: StatePersistence;
  bus: EventBus;
  clock: Clock;
  log: Logger;
  /** Unused (operator changes are committed at once); kept for callers' options objects. */
  debounceMs?: number;
  /** Delay of a lazy (telemetry-only) commit, in virtual ms (default 5000). */
  lazyMs?: number;
  /** Quiet time after the last commit before the journal is compacted into state.json. */
  idleCompactMs?: number;
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

export class Store {
  private model: StateModel = emptyState();
  private readonly queue: WriteQueue;
  private readonly dirty = new DirtyTracker();
  private readonly changeListeners = new Set<(c: StoreChange) => void>();
  private lazyTimer: TimerHandle | null = null;
  private idleTimer: TimerHandle | null = null;
  private closed = false;
  /** Operator-facing warning from loading (corrupt file, restored backup), shown on /api/health. */
  loadWarning: string | null = null;
  /** "Started empty" alarm, kept until an operator acknowledges it. */
  alarm: string | null = null;

  constructor(private readonly opts: StoreOptions) {
    this.queue = new WriteQueue({
      persistence: opts.persistence,
      clock: opts.clock,
      log: opts.log,
      model: () => this.model,
      takeDirty: (full) => this.dirty.take(full),
      markAllDirty: () => this.dirty.markAll(),
      rollback: () => this.rollback(),
      committed: () => this.armIdleCompaction(),
    });
  }

  get state(): Readonly<StateModel> {
    return this.model;
  }

  /** The current persistence failure ("state write failed: ENOSPC …"), null when writes work. */
  get writeError(): string | null {
    return this.queue.error?.message ?? null;
  }

  /** Loads from disk; every device starts offline (link state is never restored). */
  async load(): Promise<LoadResult> {
    const result = await this.adopt();
    if (!result.warning) {
      this.opts.log.info(
        { source: result.source, devices: result.state.devices.length, replayed: result.replayed },
        'state loaded',
      );
    }
    return result;
  }

  /** Calls `fn` after every applied change (synchronously, before the bus event). */
  onChange(fn: (c: StoreChange) => void): () => void {
    this.changeListeners.add(fn);
    return () => this.changeListeners.delete(fn);
  }

  /**
   * Applies `fn` to the live model, publishes the scopes and commits. Pass `devices` only
   * when `fn` changes nothing but those devices' own fields.
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

  /**
   * Publishes scopes for a change already applied and commits it; returns the change's
   * number for `whenDurable`. A request that makes an operator change is answered only
   * after it is durable (see ack-context.ts).
   */
  changed(scopes: readonly Scope[], urgency: WriteUrgency = 'soon', devices?: readonly Device[]): number {
    this.dirty.mark(scopes, devices ?? null);
    const n = this.queue.note(urgency === 'soon');
    if (urgency === 'soon') {
      const ctx = ackScope.getStore();
      if (ctx) ctx.seq = n;
    } else this.armLazy();
    this.notify(scopes, devices ?? null);
    this.opts.bus.emit('scopes', scopes);
    return n;
  }

  /** Resolves once change `n` is on disk; rejects with PersistenceError when it was refused. */
  whenDurable(n: number): Promise<void> {
    return this.queue.whenDurable(n);
  }

  /** Mutates and resolves once the change is durable (the awaitable form of `mutate`). */
  async commit<T>(
    scopes: readonly Scope[],
    fn: (state: StateModel) => T,
    devices?: readonly Device[],
  ): Promise<T> {
    const out = fn(this.model);
    await this.whenDurable(this.changed(scopes, 'soon', devices));
    return out;
  }

  /** Makes everything durable (telemetry included) and compacts; throws PersistenceError. */
  async save(): Promise<void> {
    await this.queue.flushAll();
    try {
      await this.opts.persistence.compact();
    } catch (err) {
      throw this.queue.fail(err);
    }
  }

  /**
   * Makes pending changes durable first, then re-reads the files (state.json + journal),
   * replacing memory; everyone offline; FULL refresh. A change made while the files are
   * read is committed and the read repeated, so nothing acknowledged is dropped.
   */
  async reload(): Promise<void> {
    const result = await this.queue.exclusive(async () => {
      await this.queue.flushAllLocked();
      return this.adoptLocked();
    });
    this.opts.log.info({ source: result.source, devices: result.state.devices.length }, 'state reloaded');
    this.opts.bus.emit('scopes', ['FULL']);
  }

  /**
   * Replaces the whole state (restore): pending changes are made durable first, then the
   * new state is written as the snapshot in one rename (the current one becomes
   * state.json.bak) and adopted; FULL refresh. Throws PersistenceError. A device that is
   * in both keeps what this host observed of it (online, last heard, signal, battery,
   * firmware, last ACK): a restore must not make a healthy fleet look dead. Devices this
   * host has not heard start offline.
   */
  async replace(state: StateModel): Promise<void> {
    await this.queue.exclusive(async () => {
      await this.queue.flushAllLocked();
      const live = new Map(this.model.devices.map((d) => [d.addr, d]));
      try {
        await this.opts.persistence.replace(state);
      } catch (err) {
        throw this.queue.fail(err);
      }
      this.model = this.opts.persistence.durableCopy();
      for (const d of this.model.devices) {
        const l = live.get(d.addr);
        if (l) keepObserved(d, l);
        else d.online = false;
      }
      this.queue.adopted();
      this.notify(['FULL'], null);
    });
    this.opts.log.warn({ devices: this.model.devices.length }, 'state replaced (restore)');
    this.opts.bus.emit('scopes', ['FULL']);
  }

  /** Clears the "started empty" alarm (the operator has seen it). */
  async acknowledgeAlarm(): Promise<void> {
    await this.opts.persistence.acknowledgeAlarm();
    if (this.alarm) this.opts.log.warn({ alarm: this.alarm }, 'state-loss alarm acknowledged');
    this.alarm = null;
  }

  /** Flushes everything and compacts (shutdown); later changes stay in memory only. */
  async close(): Promise<void> {
    this.closed = true;
    this.lazyTimer?.cancel();
    this.idleTimer?.cancel();
    try {
      await this.queue.flushAll();
      await this.opts.persistence.compact();
    } catch (err) {
      this.opts.log.error({ err: (err as Error).message }, 'final state write failed');
    }
    this.queue.close();
    await this.opts.persistence.close();
  }

  private async adopt(): Promise<LoadResult> {
    return this.queue.exclusive(() => this.adoptLocked());
  }

  private async adoptLocked(): Promise<LoadResult> {
    let result: LoadResult;
    for (;;) {
      const before = this.queue.changeCount;
      result = await this.opts.persistence.load();
      if (this.queue.changeCount === before) break;
      // A change arrived while reading: commit it, then read again (it is in the journal now).
      await this.queue.flushAllLocked();
    }
    for (const d of result.state.devices) d.online = false;
    this.model = result.state;
    this.queue.adopted();
    this.notify(['FULL'], null);
    this.loadWarning = result.warning;
    this.alarm = result.alarm;
    if (result.warning) this.opts.log.error({ path: this.opts.persistence.path }, result.warning);
    if (result.alarm) this.opts.log.error({ alarm: result.alarm }, 'STATE WAS LOST: started empty');
    for (const note of result.notes ?? []) this.opts.log.warn({ note }, 'stored record repaired on load');
    // A migrated, restored or replayed state is written back as a snapshot right away.
    if (
      result.source === 'backup' ||
      result.replayed > 0 ||
      (result.source === 'main' && result.fromVersion !== CURRENT_SCHEMA_VERSION)
    ) {
      this.opts.persistence.compact().catch((err: unknown) => this.queue.fail(err));
    }
    return result;
  }

  /** Rolls the model back to what is on disk (after a refused commit). */
  private rollback(): void {
    this.model = this.opts.persistence.durableCopy();
    this.notify(['FULL'], null);
    this.opts.bus.emit('scopes', ['FULL']);
  }

  private notify(scopes: readonly Scope[], devices: readonly Device[] | null): void {
    for (const fn of this.changeListeners) fn({ scopes, devices });
  }

  private armLazy(): void {
    if (this.lazyTimer || this.closed) return;
    this.lazyTimer = this.opts.clock.setTimeout(() => {
      this.lazyTimer = null;
      this.queue.kick(true);
    }, this.opts.lazyMs ?? 5000);
  }

  /** After a commit: compact when the journal is large, or once things have been quiet. */
  private armIdleCompaction(): void {
    if (this.closed) return;
    const p = this.opts.persistence;
    if (p.wantsCompaction()) {
      p.compact().catch((err: unknown) => this.queue.fail(err));
      return;
    }
    this.idleTimer?.cancel();
    this.idleTimer = this.opts.clock.setTimeout(() => {
      this.idleTimer = null;
      if (!this.closed) p.compact().catch((err: unknown) => this.queue.fail(err));
    }, this.opts.idleCompactMs ?? 60_000);
  }
}

/** What the host observed of a node (not what the operator authored): survives a restore. */
function keepObserved(d: Device, live: Device): void {
  d.online = live.online;
  d.last_seen_ts = live.last_seen_ts;
  d.node_rssi = live.node_rssi;
  d.node_snr = live.node_snr;
  d.host_rssi = live.host_rssi;
  d.host_snr = live.host_snr;
  d.voltage_mV = live.voltage_mV;
  d.version = live.version;
  d.last_ack = live.last_ack;
  d.full_mac = live.full_mac ?? d.full_mac;
}
