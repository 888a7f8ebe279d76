/**
 * Scene runner (scenes reference §6, decisions §6–§8): plans the scene once with the
 * dispatch planner and sends that frame list through the driver at interactive priority,
 * one frame at a time, in order; waits out delays; stops after a failed action when
 * `stop_on_error`; one run at a time; cancellable between actions and inside delays.
 * A frame counts as sent only on the gateway's TX-done outcome (a STREAM: on its ACK).
 * `scene_progress` events go out before and after every action.
 */
import type { Clock } from '../../../clock.ts';
import type { SceneAction } from '../../../domain/scenes/types.ts';
import { SceneRunningError } from '../../../errors.ts';
import type { EventBus, SceneProgress } from '../../../events.ts';
import type { GatewayDriver } from '../../../gateway/types.ts';
import type { Logger } from '../../../logger.ts';
import type { NetworkRouter } from '../../../gateway/network-parts.ts';
import type { PlanContext, PlannedAction, PlannedFrame } from '../plan/planner.ts';
import { planScene } from '../plan/scene.ts';
import { runParts } from './parts.ts';
import { errText } from '../../../util/err-text.ts';
import type { ActionResult, FrameError, NetworkFailure, RunResult } from './types.ts';

export type {
  ActionResult,
  ActionState,
  FrameError,
  NetworkFailure,
  NetworkPartResult,
  RunResult,
} from './types.ts';

export interface RunRequest {
  key: string;
  label: string;
  actions: readonly SceneAction[];
  stopOnError: boolean;
  draft: boolean;
  /** The planner's view of the store at the start of the run. */
  context: PlanContext;
}

export interface SceneRunnerDeps {
  driver: GatewayDriver;
  clock: Clock;
  bus: EventBus;
  log: Logger;
  /** Called with the frames of an action that went out (the device-row mirror). */
  onSent?(frames: readonly PlannedFrame[]): void;
  /** Called with each frame that went out and the ms from handing it over to TX done. */
  onFrameTimed?(frame: PlannedFrame, elapsedMs: number): void;
  /** Several gateways: each network's gateway (a plan with `parts` is sent per network). */
  router?: NetworkRouter;
}

/** How long a scene frame may wait in the driver's queue before it is dropped. */
const FRAME_DEADLINE_MS = 10_000;

class Cancelled extends Error {
  constructor() {
    super('cancelled');
  }
}

export class SceneRunner {
  private current: { key: string; abort: AbortController } | null = null;
  private cancelRequests = 0;

  constructor(private readonly deps: SceneRunnerDeps) {}

  /** The key of the running scene, or null. */
  running(): string | null {
    return this.current?.key ?? null;
  }

  /** How many cancels were asked for so far (whether or not a scene ran). */
  cancels(): number {
    return this.cancelRequests;
  }

  /** Asks the running scene to stop between actions (a delay ends at once). */
  cancel(): { cancelled: boolean; scene: string | null } {
    this.cancelRequests++;
    const cur = this.current;
    if (!cur) return { cancelled: false, scene: null };
    if (!cur.abort.signal.aborted) {
      this.deps.log.info({ scene: cur.key }, 'scene run cancel requested');
      cur.abort.abort(new Cancelled());
    }
    return { cancelled: true, scene: cur.key };
  }

  /** Plans and runs a scene; throws SceneRunningError while another run is in progress. */
  async run(req: RunRequest): Promise<RunResult> {
    if (this.current) throw new SceneRunningError(this.current.key);
    const abort = new AbortController();
    this.current = { key: req.key, abort };
    try {
      return await this.execute(req, planScene(req.actions, req.context), abort.signal);
    } finally {
      this.current = null;
    }
  }

  private async execute(req: RunRequest, plan: PlannedAction[], signal: AbortSignal): Promise<RunResult> {
    const { clock, log } = this.deps;
    const started = clock.now();
    const total = plan.length;
    const results: ActionResult[] = [];
    let abortedAt: number | undefined;
    let cancelled = false;
    log.info(
      {
        scene: req.key,
        draft: req.draft,
        actions: total,
        frames: plan.reduce((n, a) => n + a.frames.length, 0),
      },
      'scene run started',
    );
    for (const action of plan) {
      const stopped = cancelled || abortedAt !== undefined;
      if (!stopped && signal.aborted) cancelled = true;
      if (cancelled || abortedAt !== undefined) {
        const error = cancelled ? 'skipped: cancelled' : 'skipped: aborted';
        const r = skipped(action, error);
        results.push(r);
        this.progress(req.key, action, total, 'end', r);
        continue;
      }
      this.progress(req.key, action, total, 'start');
      const r = await this.runAction(action, signal);
      results.push(r);
      this.progress(req.key, action, total, 'end', r);
      if (r.state === 'cancelled') cancelled = true;
      else if (r.state === 'error' && req.stopOnError) abortedAt = action.index;
    }
    const ended = clock.now();
    const networked = plan.some((a) => a.parts !== undefined);
    const ok = results.every((r) => r.ok);
    const firstError = results.find((r) => !r.ok);
    const result: RunResult = {
      scene_key: req.key,
      label: req.label,
      draft: req.draft,
      ok,
      error: cancelled ? 'cancelled' : ok ? null : (firstError?.error ?? 'failed'),
      cancelled,
      ...(abortedAt !== undefined ? { aborted_at_index: abortedAt } : {}),
      actions: results,
      started_ts: started / 1000,
      ended_ts: ended / 1000,
      total_duration_ms: Math.round(ended - started),
      ...(networked ? { network_failures: networkFailures(results) } : {}),
    };
    log.info(
      { scene: req.key, ok, error: result.error, duration_ms: result.total_duration_ms },
      'scene run ended',
    );
    return result;
  }

  private async runAction(a: PlannedAction, signal: AbortSignal): Promise<ActionResult> {
    const t0 = this.deps.clock.now();
    const base = { index: a.index, kind: a.kind, frames_planned: a.frames.length };
    const detail = Object.keys(a.detail).length > 0 ? { detail: { ...a.detail } } : {};
    const duration = (): number => Math.round(this.deps.clock.now() - t0);
    if (a.degraded) {
      return {
        ...base,
        ok: false,
        state: 'degraded',
        degraded: true,
        error: a.degraded,
        duration_ms: 0,
        frames_sent: 0,
        ...detail,
      };
    }
    if (a.delayMs > 0) {
      try {
        await this.deps.clock.sleep(a.delayMs, signal);
      } catch {
        return {
          ...base,
          ok: false,
          state: 'cancelled',
          error: 'cancelled',
          duration_ms: duration(),
          frames_sent: 0,
          ...detail,
        };
      }
    }
    if (a.parts && this.deps.router) {
      const r = await runParts(a, this.deps.router, signal, (d, f) => this.sendFrame(f, d));
      this.mirror(r.sent);
      if (r.errors.length > 0)
        this.deps.log.warn({ index: a.index, kind: a.kind, failures: r.errors }, 'scene action failed');
      else if (r.degraded.length > 0)
        this.deps.log.warn({ index: a.index, kind: a.kind, degraded: r.degraded }, 'scene action degraded');
      return {
        ...base,
        ok: r.state === 'ok',
        state: r.state,
        ...(r.state === 'degraded' ? { degraded: true as const } : {}),
        error: r.error,
        duration_ms: duration(),
        frames_sent: r.sent.length,
        ...(r.errors.length > 0 ? { detail: { ...a.detail, failures: r.errors } } : detail),
        networks: r.networks,
      };
    }
    const sent: PlannedFrame[] = [];
    const failures: string[] = [];
    let offchannel: string | null = null;
    for (const f of a.frames) {
      // A cancel (Stop, Blackout) ends the action between frames: what follows must not
      // land after the blackout's off frame.
      if (signal.aborted) {
        failures.push('cancelled');
        break;
      }
      const err = await this.sendFrame(f);
      if (err === null) sent.push(f);
      else if (err.offchannel) offchannel ??= err.text;
      else failures.push(f.part?.stage === 'offset' ? `offset packet: ${err.text}` : err.text);
    }
    this.mirror(sent);
    if (offchannel !== null && failures.length === 0) {
      // The gateway is leased off its channel by an RF task: like a missing gateway's
      // share, degraded with the lease's text — it does not stop the scene.
      this.deps.log.warn({ index: a.index, kind: a.kind, error: offchannel }, 'scene action degraded');
      return {
        ...base,
        ok: false,
        state: 'degraded',
        degraded: true,
        error: offchannel,
        duration_ms: duration(),
        frames_sent: sent.length,
        ...detail,
      };
    }
    if (failures.length === 0)
      return {
        ...base,
        ok: true,
        state: 'ok',
        error: null,
        duration_ms: duration(),
        frames_sent: sent.length,
        ...detail,
      };
    if (failures.length === 1 && failures[0] === 'cancelled') {
      return {
        ...base,
        ok: false,
        state: 'cancelled',
        error: 'cancelled',
        duration_ms: duration(),
        frames_sent: sent.length,
        ...detail,
      };
    }
    const error =
      a.kind === 'offset_group'
        ? `offset_group_partial_failure: ${failures[0]}`
        : `send_failed: ${failures[0]}`;
    this.deps.log.warn({ index: a.index, kind: a.kind, failures }, 'scene action failed');
    return {
      ...base,
      ok: false,
      state: 'error',
      error,
      duration_ms: duration(),
      frames_sent: sent.length,
      detail: { ...a.detail, failures },
    };
  }

  private mirror(sent: readonly PlannedFrame[]): void {
    if (sent.length === 0) return;
    try {
      this.deps.onSent?.(sent);
    } catch (err) {
      this.deps.log.error({ err: errText(err) }, 'scene mirror failed');
    }
  }

  /** Sends one planned frame (through `driver`: one network's gateway); null when it went out, else why not. */
  private async sendFrame(
    f: PlannedFrame,
    driver: GatewayDriver = this.deps.driver,
  ): Promise<FrameError | null> {
    const opts = { priority: 'interactive' as const, deadlineMs: FRAME_DEADLINE_MS };
    if (f.via === 'stream' && f.request.op === 'STREAM') {
      const r = await driver.stream(f.receiver, f.request.payload, opts);
      if (!r.ok) return frameError(r.reason, `${f.receiver}: ${r.detail}`);
      return r.value.ok ? null : frameError('nack', `${f.receiver}: ACK status ${r.value.status}`);
    }
    const t0 = this.deps.clock.now();
    const out = await driver.send(f.receiver, f.request, opts);
    if (!out.ok) return frameError(out.reason, out.detail);
    this.deps.onFrameTimed?.(f, this.deps.clock.now() - t0);
    return null;
  }

  private progress(
    key: string,
    a: PlannedAction,
    total: number,
    phase: SceneProgress['phase'],
    r?: ActionResult,
  ): void {
    const ev: SceneProgress = { key, index: a.index, total, phase, action_kind: a.kind };
    if (r) {
      ev.ok = r.ok;
      ev.state = r.state;
      ev.duration_ms = r.duration_ms;
      if (r.error) ev.error = r.error;
    } else ev.state = 'started';
    try {
      this.deps.bus.emit('scene_progress', ev);
    } catch (err) {
      // A listener must never affect the run.
      this.deps.log.error({ err: errText(err) }, 'scene_progress listener threw');
    }
  }
}

const frameError = (reason: string, text: string): FrameError => ({
  text,
  offchannel: reason === 'offchannel',
});

function networkFailures(results: readonly ActionResult[]): NetworkFailure[] {
  return results.flatMap((r) =>
    (r.networks ?? []).flatMap((n) =>
      n.ok ? [] : [{ network_id: n.network_id, index: r.index, state: n.state, error: n.error ?? 'failed' }],
    ),
  );
}

function skipped(a: PlannedAction, error: string): ActionResult {
  return {
    index: a.index,
    kind: a.kind,
    ok: false,
    state: 'skipped',
    error,
    duration_ms: 0,
    frames_planned: a.frames.length,
    frames_sent: 0,
  };
}
