/**
 * The Store: the one place state changes. Every mutation names its scopes; the
 * Store publishes them on the bus (→ SSE refresh) and schedules a debounced,
 * atomic write. `save()` forces a durable write now.
 */
import type { Clock, TimerHandle } from '../clock.ts';
import type { StateModel } from '../domain/model.ts';
import { emptyState } from '../domain/model.ts';
import type { EventBus } from '../events.ts';
import { PersistenceError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { LoadResult, StatePersistence } from './persistence.ts';
import type { Scope } from './scopes.ts';

export interface StoreOptions {
  persistence: StatePersistence;
  bus: EventBus;
  clock: Clock;
  log: Logger;
  /** Quiet time before a scheduled write, in virtual ms (≤ 250). */
  debounceMs?: number;
}

export class Store {
  private model: StateModel = emptyState();
  private timer: TimerHandle | null = null;
  private writing: Promise<void> = Promise.resolve();
  private dirty = false;
  private lastWriteError: string | null = null;
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
    const result = await this.opts.persistence.load();
    for (const d of result.state.devices) d.online = false;
    this.model = result.state;
    this.loadWarning = result.warning;
    if (result.warning) this.opts.log.error({ path: this.opts.persistence.path }, result.warning);
    else this.opts.log.info({ source: result.source, devices: result.state.devices.length }, 'state loaded');
    // A migrated or restored state is written back in the current format right away.
    if (result.source === 'backup' || (result.source === 'main' && result.fromVersion !== 2)) {
      this.dirty = true;
      await this.save();
    }
    return result;
  }

  /** Applies `fn` to the live model, publishes the scopes and schedules a write. */
  mutate<T>(scopes: readonly Scope[], fn: (state: StateModel) => T): T {
    const out = fn(this.model);
    this.changed(scopes);
    return out;
  }

  /** Publishes scopes for a change already applied (and schedules a write). */
  changed(scopes: readonly Scope[]): void {
    this.dirty = true;
    this.schedule();
    this.opts.bus.emit('scopes', scopes);
  }

  /** Writes now and resolves once the data is durable; throws PersistenceError on failure. */
  async save(): Promise<void> {
    this.timer?.cancel();
    this.timer = null;
    this.dirty = true;
    await this.flush();
    if (this.lastWriteError) throw new PersistenceError(this.lastWriteError);
  }

  /**
   * Re-reads the file, replacing memory (the file wins: a pending debounced write is
   * dropped, so an edit made on disk is not overwritten); everyone offline; FULL refresh.
   */
  async reload(): Promise<void> {
    this.timer?.cancel();
    this.timer = null;
    this.dirty = false;
    await this.writing;
    const result = await this.opts.persistence.load();
    for (const d of result.state.devices) d.online = false;
    this.model = result.state;
    this.loadWarning = result.warning;
    this.opts.bus.emit('scopes', ['FULL']);
  }

  /** Flushes a pending debounced write (used at shutdown). */
  async close(): Promise<void> {
    this.timer?.cancel();
    this.timer = null;
    await this.flushPending();
  }

  private async flushPending(): Promise<void> {
    if (this.dirty) await this.flush();
    else await this.writing;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = this.opts.clock.setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, this.opts.debounceMs ?? 200);
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
      } catch (err) {
        this.dirty = true;
        this.lastWriteError = `state write failed: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
        this.opts.log.error({ err: (err as Error).message }, this.lastWriteError);
      }
    });
    return this.writing;
  }
}
