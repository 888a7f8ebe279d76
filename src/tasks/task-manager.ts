/**
 * One task at a time. A task is a named async job with progress meta, rx counters,
 * a result or an error; every change is published as a snapshot on the bus. Tasks
 * can be cancelled: they see an aborted signal and stop at their next safe point.
 */
import type { Clock } from '../clock.ts';
import { BusyError } from '../errors.ts';
import type { EventBus } from '../events.ts';
import type { Logger } from '../logger.ts';

export { TASK_NAMES, type TaskName, type TaskSnapshot } from './task-types.ts';
import type { TaskName, TaskSnapshot } from './task-types.ts';

export interface TaskContext {
  readonly signal: AbortSignal;
  /** Replaces the whole meta object (as the original does) and publishes a snapshot. */
  setMeta(meta: Record<string, unknown>): void;
  bumpRx(counter: 'rx_replies' | 'rx_window_events' | 'rx_count_delta_total', by?: number): void;
  /** Throws the cancellation error when cancel was requested (call at safe points). */
  checkpoint(): void;
}

export class TaskCancelledError extends Error {
  override readonly name = 'TaskCancelledError';
  constructor() {
    super('cancelled');
  }
}

interface Running {
  snap: Omit<TaskSnapshot, 'elapsed_s'>;
  abort: AbortController;
}

export class TaskManager {
  private nextId = 1;
  private slot: Running | null = null;
  private done: Promise<void> = Promise.resolve();

  constructor(
    private readonly bus: EventBus,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  current(): TaskSnapshot | null {
    return this.slot ? this.snapshot(this.slot) : null;
  }

  isRunning(): boolean {
    return this.slot?.snap.state === 'running';
  }

  /** Throws BusyError when a task runs (routes answer 409 with its snapshot). */
  assertIdle(): void {
    if (this.isRunning()) throw new BusyError(this.current());
  }

  /**
   * Starts a task and returns its first snapshot. `run` gets a context; its return
   * value becomes `result`, a throw becomes `last_error`.
   */
  start<T>(
    name: TaskName,
    meta: Record<string, unknown>,
    run: (ctx: TaskContext) => Promise<T>,
    hooks: { onDone?: (result: T) => void } = {},
  ): TaskSnapshot {
    this.assertIdle();
    const running: Running = {
      snap: {
        id: this.nextId++,
        name,
        state: 'running',
        started_ts: this.clock.now() / 1000,
        ended_ts: null,
        meta,
        rx_replies: 0,
        rx_window_events: 0,
        rx_count_delta_total: 0,
        last_error: null,
        result: null,
        cancel_requested: false,
      },
      abort: new AbortController(),
    };
    this.slot = running;
    const publish = (): void => {
      if (this.slot === running) this.bus.emit('task', this.snapshot(running));
    };
    const ctx: TaskContext = {
      signal: running.abort.signal,
      setMeta: (m) => {
        running.snap.meta = m;
        publish();
      },
      bumpRx: (counter, by = 1) => {
        running.snap[counter] += by;
        publish();
      },
      checkpoint: () => {
        if (running.abort.signal.aborted) throw new TaskCancelledError();
      },
    };
    this.log.info({ task: name, id: running.snap.id }, 'task started');
    const first = this.snapshot(running);
    this.bus.emit('task', first);
    this.done = (async () => {
      try {
        const result = await run(ctx);
        running.snap.result = result ?? null;
        running.snap.state = 'done';
        running.snap.ended_ts = this.clock.now() / 1000;
        this.log.info({ task: name, id: running.snap.id, result }, 'task done');
        publish();
        hooks.onDone?.(result);
      } catch (err) {
        running.snap.state = 'error';
        running.snap.ended_ts = this.clock.now() / 1000;
        running.snap.last_error =
          err instanceof TaskCancelledError || running.abort.signal.aborted
            ? 'cancelled'
            : describeError(err);
        if (running.snap.last_error === 'cancelled')
          this.log.info({ task: name, id: running.snap.id }, 'task cancelled');
        else
          this.log.warn({ task: name, id: running.snap.id, error: running.snap.last_error }, 'task failed');
        publish();
      }
    })();
    return first;
  }

  /** Bumps a counter of the running task, if any (for events not tied to one task's code). */
  bumpCurrent(counter: 'rx_replies' | 'rx_window_events' | 'rx_count_delta_total'): void {
    if (this.slot?.snap.state !== 'running') return;
    this.slot.snap[counter] += 1;
    this.bus.emit('task', this.snapshot(this.slot));
  }

  /** Asks the running task to stop; returns its snapshot, or null when none runs. */
  cancel(): TaskSnapshot | null {
    if (!this.slot || this.slot.snap.state !== 'running') return null;
    this.slot.snap.cancel_requested = true;
    this.slot.abort.abort(new TaskCancelledError());
    const snap = this.snapshot(this.slot);
    this.bus.emit('task', snap);
    return snap;
  }

  /** Resolves when the current task (if any) has ended. */
  settled(): Promise<void> {
    return this.done;
  }

  private snapshot(r: Running): TaskSnapshot {
    const end = r.snap.ended_ts ?? this.clock.now() / 1000;
    return {
      ...r.snap,
      meta: { ...r.snap.meta },
      elapsed_s: Math.max(0, Math.round((end - r.snap.started_ts) * 1000) / 1000),
    };
  }
}

export function describeError(err: unknown): string {
  if (err instanceof Error) return `${err.name === 'Error' ? 'Error' : err.name}: ${err.message}`;
  return String(err);
}
