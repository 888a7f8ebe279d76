/**
 * Task meta of the OTA tasks (ota.md §3.5): every emit replaces the whole meta object
 * and carries fresh copies of deviceState / deviceMessages / deviceProgress, so an event
 * already queued for SSE never changes afterwards. Upload progress is throttled.
 */
import type { Clock } from '../../clock.ts';
import type { TaskContext } from '../../tasks/task-manager.ts';
import type { DeviceState } from './types.ts';

export interface Progress {
  bytes: number;
  total: number;
  percent: number;
}

export class OtaMeta {
  index = 0;
  addr: string | null = null;
  readonly deviceState: Record<string, DeviceState> = {};
  readonly deviceMessages: Record<string, string> = {};
  readonly deviceProgress: Record<string, Progress> = {};
  private last: { stage: string; message: string; extra: Record<string, unknown> } = {
    stage: 'INIT',
    message: '',
    extra: {},
  };
  private lastProgressAt = -Infinity;

  constructor(
    private readonly ctx: TaskContext,
    private readonly clock: Clock,
    private readonly base: Record<string, unknown>,
    private readonly progressIntervalMs: number,
  ) {}

  emit(stage: string, message: string, extra: Record<string, unknown> = {}): void {
    this.last = { stage, message, extra };
    this.publish();
  }

  /**
   * Upload progress of the current device: the first and the last report of each upload
   * always, in between at most one emit per interval.
   */
  progress(addr: string, bytes: number, total: number): void {
    const percent = total > 0 ? Math.floor((bytes * 100) / total) : 100;
    const prev = this.deviceProgress[addr];
    const first = !prev || prev.bytes >= prev.total || prev.total !== total || bytes < prev.bytes;
    this.deviceProgress[addr] = { bytes, total, percent };
    const now = this.clock.now();
    if (!first && bytes < total && now - this.lastProgressAt < this.progressIntervalMs) return;
    this.lastProgressAt = now;
    this.publish();
  }

  private publish(): void {
    this.ctx.setMeta({
      ...this.base,
      stage: this.last.stage,
      index: this.index,
      addr: this.addr,
      ...this.last.extra,
      message: this.last.message,
      deviceState: { ...this.deviceState },
      deviceMessages: { ...this.deviceMessages },
      deviceProgress: Object.fromEntries(Object.entries(this.deviceProgress).map(([k, v]) => [k, { ...v }])),
    });
  }
}
