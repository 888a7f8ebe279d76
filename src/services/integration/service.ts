/**
 * Timing-application integration (plugin mode): the latest heat, scene runs that must not
 * hold the caller, and the armed race start — arm the gates at staging, fire one SYNC at
 * the announced start instant (less the SYNC's airtime, so the nodes apply on time).
 *
 * The plugin on the timing application's side only translates its events into these calls;
 * every decision (what to run, when to fire) is taken here.
 */
import { ValidationError } from '../../errors.ts';
import type { StartblockSlot } from '../../domain/scenes/types.ts';
import type { Logger } from '../../logger.ts';
import type { TxOutcome } from '../../gateway/types.ts';
import type { PlannedFrame, RunResult } from '../scenes/index.ts';
import { atWallTime, type WallTimer } from './at-time.ts';
import { heatSlots, type Heat, type HeatBody } from './heat.ts';

export type IntegrationMode = 'none' | 'rotorhazard';

export interface IntegrationDeps {
  mode: IntegrationMode;
  log: Logger;
  wall: WallTimer;
  /**
   * Runs a stored scene, or a draft when `body.actions` is set (SceneDispatchService.run), as
   * `source`'s command (the command path may refuse it: CommandRefusedError).
   */
  runScene(key: string, body: Record<string, unknown>, source: string): Promise<RunResult>;
  /** Radio airtime of one SYNC frame at the current settings (ms). */
  syncAirtimeMs(): number;
  /**
   * Plans the trigger SYNC that follows the arm scene (null: a bare SYNC): one frame, or one
   * per network of the arm scene with several gateways.
   */
  planSync(scene: string | null): PlannedFrame[];
  /** Hands the planned SYNC frame(s) to the gateway(s), ahead of anything queued, all at once. */
  sendFrames(frames: readonly PlannedFrame[]): Promise<TxOutcome>;
  /**
   * Holds bulk traffic on the gateways these frames go through (the "bulk hold": their TX
   * slots stay idle for the trigger); returns the release. Absent: no hold.
   */
  holdBulk?(frames: readonly PlannedFrame[]): () => void;
}

export interface PendingStart {
  scene: string | null;
  start_epoch_ms: number;
  lead_ms: number;
  fire_at_epoch_ms: number;
}

export interface StartOutcome {
  start_epoch_ms: number;
  fired_at_epoch_ms: number;
  /** fired − (start − lead): how late the SYNC was handed to the radio. */
  late_ms: number;
  ok: boolean;
  error: string | null;
}

/** The longest a race start may lie ahead of its announcement (RotorHazard stages ≤ ~30 s). */
const MAX_START_AHEAD_MS = 5 * 60_000;

export class IntegrationService {
  private current: Heat | null = null;
  private pending:
    (PendingStart & { timer: { cancel(): void }; frames: PlannedFrame[]; release: () => void }) | null = null;
  private lastStart: StartOutcome | null = null;
  /** Scenes to start at a race's announced start (key → moment and timer). */
  private readonly scheduled = new Map<string, { at_epoch_ms: number; timer: { cancel(): void } }>();
  private lastContactMs: number | null = null;
  private lastRun: {
    scene: string;
    ok: boolean;
    error: string | null;
    /** When the start request arrived and when the run ended (wall-clock ms). */
    requested_epoch_ms: number;
    at_epoch_ms: number;
  } | null = null;

  constructor(private readonly deps: IntegrationDeps) {}

  get mode(): IntegrationMode {
    return this.deps.mode;
  }

  /** Called for every authenticated integration request: the plugin is alive. */
  touch(): void {
    this.lastContactMs = this.deps.wall.now();
  }

  setHeat(body: HeatBody): Heat {
    this.current = { ...body, source: 'rotorhazard', received_at_ms: this.deps.wall.now() };
    this.deps.log.debug({ heat_id: body.heat_id, seats: body.seats.length }, 'heat received');
    return this.current;
  }

  heat(): Heat | null {
    return this.current;
  }

  /** Start-block slots of the current heat (1-based display slots); empty without a heat. */
  slots(): StartblockSlot[] {
    return heatSlots(this.current);
  }

  /** A race start is armed (from staging until it fires or is cancelled). */
  armed(): boolean {
    return this.pending !== null;
  }

  view(): Record<string, unknown> {
    const { pending } = this;
    return {
      mode: this.deps.mode,
      last_contact_epoch_ms: this.lastContactMs,
      heat: this.current,
      startblock_slots: this.slots(),
      pending_start: pending
        ? {
            scene: pending.scene,
            start_epoch_ms: pending.start_epoch_ms,
            lead_ms: pending.lead_ms,
            fire_at_epoch_ms: pending.fire_at_epoch_ms,
          }
        : null,
      scheduled: [...this.scheduled].map(([scene, sch]) => ({ scene, at_epoch_ms: sch.at_epoch_ms })),
      last_start: this.lastStart,
      last_run: this.lastRun,
    };
  }

  /**
   * Starts a stored scene (or the draft in `body.actions`) and returns once it has begun (the timing application must never
   * wait for the radio). A refusal — unknown scene, another scene running — comes before
   * the first frame, so it is rethrown here for the caller's 404/409.
   */
  async startScene(key: string, body: Record<string, unknown> = {}): Promise<void> {
    const outcome = this.runScene(key, body).then(
      () => null,
      (err: unknown) => err as Error,
    );
    const early = await Promise.race([outcome, tick()]);
    if (early instanceof Error) throw early;
  }

  /** Runs a stored scene (or the draft in `body.actions`) to its end, noted as the last run. */
  async runScene(
    key: string,
    body: Record<string, unknown> = {},
    source = 'rotorhazard',
  ): Promise<RunResult> {
    const requested = this.deps.wall.now();
    try {
      const r = await this.deps.runScene(key, body, source);
      this.noteRun(key, requested, r.ok, r.error);
      return r;
    } catch (err) {
      this.noteRun(key, requested, false, (err as Error).message);
      throw err;
    }
  }

  /**
   * Race staged: run the arm scene now (its presets should carry `arm_on_sync`), then send
   * one trigger SYNC so that it reaches the nodes at `startEpochMs`. A new staging replaces
   * a pending start.
   */
  async armStart(opts: {
    scene: string | null;
    startEpochMs: number;
    leadMs?: number;
  }): Promise<PendingStart> {
    const now = this.deps.wall.now();
    if (opts.startEpochMs < now - 1000 || opts.startEpochMs > now + MAX_START_AHEAD_MS) {
      throw new ValidationError('start_epoch_ms: must lie between now and 5 minutes ahead');
    }
    this.cancelArm('restaged');
    const frames = this.deps.planSync(opts.scene);
    if (opts.scene) await this.startScene(opts.scene);
    const lead = Math.max(0, Math.round(opts.leadMs ?? this.deps.syncAirtimeMs()));
    const fireAt = opts.startEpochMs - lead;
    const pending: PendingStart = {
      scene: opts.scene,
      start_epoch_ms: opts.startEpochMs,
      lead_ms: lead,
      fire_at_epoch_ms: fireAt,
    };
    // From arming to the trigger no status poll or group push may occupy a TX slot: the
    // SYNC must find every involved gateway idle (design networks §2.5).
    const release = this.deps.holdBulk?.(frames) ?? (() => {});
    const timer = atWallTime(this.deps.wall, fireAt, () => this.fire(pending, frames, release));
    this.pending = { ...pending, timer, frames, release };
    this.deps.log.info({ ...pending, networks: frames.length }, 'race start armed');
    return pending;
  }

  /**
   * Starts a stored scene at a wall-clock moment (a race's announced start), so the radio
   * work begins at the start instead of after the timing application's event has travelled
   * here. A second schedule of the same scene replaces the first.
   */
  schedule(key: string, atEpochMs: number): { scene: string; at_epoch_ms: number } {
    const now = this.deps.wall.now();
    if (atEpochMs < now - 1000 || atEpochMs > now + MAX_START_AHEAD_MS) {
      throw new ValidationError('at_epoch_ms: must lie between now and 5 minutes ahead');
    }
    this.deps.planSync(key); // 404 now for an unknown scene, not silently at the start
    this.scheduled.get(key)?.timer.cancel();
    const timer = atWallTime(this.deps.wall, atEpochMs, () => {
      this.scheduled.delete(key);
      this.startScene(key).catch(() => {}); // the outcome is recorded in last_run
    });
    this.scheduled.set(key, { at_epoch_ms: atEpochMs, timer });
    this.deps.log.info({ scene: key, at_epoch_ms: atEpochMs }, 'scene scheduled for the race start');
    return { scene: key, at_epoch_ms: atEpochMs };
  }

  /** Race aborted or stopped before the start: no SYNC, no scheduled scene. */
  cancelStart(reason: string): boolean {
    let any = false;
    for (const [key, sch] of this.scheduled) {
      sch.timer.cancel();
      this.scheduled.delete(key);
      any = true;
    }
    return this.cancelArm(reason) || any;
  }

  private cancelArm(reason: string): boolean {
    const p = this.pending;
    if (!p) return false;
    p.timer.cancel();
    p.release();
    this.pending = null;
    this.deps.log.info({ reason, start_epoch_ms: p.start_epoch_ms }, 'armed race start cancelled');
    return true;
  }

  private fire(p: PendingStart, frames: PlannedFrame[], release: () => void): void {
    this.pending = null;
    const firedAt = this.deps.wall.now();
    const late = firedAt - p.fire_at_epoch_ms;
    const done = (ok: boolean, error: string | null): void => {
      release();
      this.lastStart = {
        start_epoch_ms: p.start_epoch_ms,
        fired_at_epoch_ms: firedAt,
        late_ms: late,
        ok,
        error,
      };
      const log = ok ? this.deps.log.info.bind(this.deps.log) : this.deps.log.warn.bind(this.deps.log);
      log({ late_ms: late, error }, 'race start SYNC sent');
    };
    this.deps.sendFrames(frames).then(
      (r) => done(r.ok, r.ok ? null : r.detail),
      (err: unknown) => done(false, (err as Error).message),
    );
  }

  private noteRun(scene: string, requested: number, ok: boolean, error: string | null): void {
    this.lastRun = { scene, ok, error, requested_epoch_ms: requested, at_epoch_ms: this.deps.wall.now() };
    // A cancelled run (Blackout, Stop, a race phase taking over) is no failure.
    if (!ok && error !== 'cancelled') this.deps.log.warn({ scene, error }, 'integration scene run failed');
  }
}

const tick = (): Promise<null> => new Promise((r) => setImmediate(() => r(null)));
