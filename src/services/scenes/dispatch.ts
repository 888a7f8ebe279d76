/**
 * Estimate and run, for stored scenes and drafts: resolves the scene (or validates the
 * draft), builds the planner's view of the store, and hands the one plan to the cost
 * estimator or the runner. The routes call exactly one method here.
 */
import { NotFoundError, ValidationError } from '../../errors.ts';
import type { NativePreset } from '../../domain/scenes/native-preset.ts';
import type { ActionTarget, Scene, SceneAction, StartblockSlot } from '../../domain/scenes/types.ts';
import type { NativeEffectParams } from '../../domain/scenes/native-preset.ts';
import type { GatewayDriver } from '../../gateway/types.ts';
import { deviceTypeInfo } from '../../protocol/device-types.ts';
import { estimateCost, loraInfo, type CostEstimate, type LoraInfo } from './cost-estimator.ts';
import type { DeviceRegistry } from '../devices/index.ts';
import { planScene, type PlanContext, type PlanDevice, type PlannedFrame } from './dispatch-planner.ts';
import type { RunResult, SceneRunner } from './runner.ts';

export interface SceneSource {
  lookup(key: string): Scene | undefined;
  /** Validates a draft's actions as a save would (400 naming the action and field). */
  validateActions(actions: unknown): SceneAction[];
}

export interface PresetSource {
  resolve(ref: string | number): NativePreset | undefined;
}

export interface SceneDispatchDeps {
  scenes: SceneSource;
  presets: PresetSource;
  registry: Pick<DeviceRegistry, 'all'>;
  driver: Pick<GatewayDriver, 'radioSettings'>;
  runner: SceneRunner;
  /** The learned per-packet overhead of the wall-clock estimate. */
  overhead?: () => { ms: number; source: 'measured' | 'default' };
  /** The current heat's start-block slots (timing-application integration). */
  heatSlots?: () => readonly StartblockSlot[];
}

/** A draft body: `{label?, actions, stop_on_error?}`. */
export type DraftBody = Record<string, unknown>;

const DEFAULT_SLOT = 1;

export class SceneDispatchService {
  constructor(private readonly deps: SceneDispatchDeps) {}

  /** The radio settings estimates use: the gateway's active ones, else firmware defaults. */
  lora(): LoraInfo {
    const { rf, source } = this.deps.driver.radioSettings();
    return loraInfo(rf, source, this.deps.overhead?.());
  }

  /** The planner's view of the store right now. */
  planContext(optimize = true): PlanContext {
    const devices: PlanDevice[] = this.deps.registry.all().map((d) => {
      const sb = deviceTypeInfo(d.dev_type).caps.includes('STARTBLOCK');
      return {
        addr: d.addr,
        groupId: d.groupId,
        groupPending: d.group_pending,
        brightness: d.brightness,
        startblock: sb
          ? {
              first: d.specials.startblock_first_slot ?? DEFAULT_SLOT,
              slots: d.specials.startblock_slots ?? DEFAULT_SLOT,
            }
          : null,
      };
    });
    return {
      devices,
      optimize,
      preset: (ref) => this.deps.presets.resolve(ref),
      heatSlots: this.deps.heatSlots?.() ?? [],
    };
  }

  estimateStored(key: string): CostEstimate {
    const scene = this.deps.scenes.lookup(key);
    if (!scene) throw new NotFoundError('scene not found');
    return this.estimate(scene.actions);
  }

  estimateDraft(body: DraftBody): CostEstimate {
    if (body.actions === undefined || body.actions === null)
      throw new ValidationError('actions: is required');
    return this.estimate(this.deps.scenes.validateActions(body.actions));
  }

  estimate(actions: readonly SceneAction[]): CostEstimate {
    return estimateCost(planScene(actions, this.planContext()), this.lora());
  }

  /**
   * Runs the stored scene, or — when the body carries `actions` — that draft (validated
   * first; the stored scene stays untouched). `stop_on_error` falls back to the stored
   * scene's, then true.
   */
  async run(key: string, body: DraftBody): Promise<RunResult> {
    const stored = this.deps.scenes.lookup(key);
    const draft = body.actions !== undefined && body.actions !== null;
    if (!draft && !stored) throw new NotFoundError('scene_not_found');
    const actions = draft ? this.deps.scenes.validateActions(body.actions) : (stored?.actions ?? []);
    const label = draft ? draftLabel(body.label) : (stored?.label ?? key);
    const stopOnError = parseStop(body.stop_on_error, stored?.stop_on_error ?? true);
    return this.deps.runner.run({ key, label, actions, stopOnError, draft, context: this.planContext() });
  }

  /**
   * The trigger SYNC that would follow this stored scene (its brightness is the scene's last
   * preset's), planned ahead so a race start only has to hand it to the driver.
   */
  planSyncAfter(key: string | null): PlannedFrame {
    const stored = key ? this.deps.scenes.lookup(key) : undefined;
    if (key && !stored) throw new NotFoundError('scene_not_found');
    const plan = planScene([...(stored?.actions ?? []), { kind: 'sync' }], this.planContext());
    const frame = plan.at(-1)?.frames[0];
    if (!frame) throw new Error('sync plan without a frame');
    return frame;
  }

  /**
   * The frames of one native effect to a target, planned as a scene action (addressing,
   * flags) but not run: for callers that send on their own terms (lap flashes).
   */
  planEffect(target: ActionTarget, params: NativeEffectParams): PlannedFrame[] {
    const plan = planScene(
      [{ kind: 'native_effect', target, params, flags_override: {} }],
      this.planContext(),
    );
    return plan.flatMap((a) => a.frames);
  }

  cancel(): { cancelled: boolean; scene: string | null } {
    return this.deps.runner.cancel();
  }
}

function draftLabel(v: unknown): string {
  if (v === undefined || v === null) return 'draft';
  if (typeof v !== 'string') throw new ValidationError('label: must be a string');
  return v.trim() || 'draft';
}

function parseStop(v: unknown, dflt: boolean): boolean {
  if (v === undefined || v === null) return dflt;
  if (typeof v === 'boolean') return v;
  if (v === 0 || v === 1) return v === 1;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(s)) return true;
    if (['false', '0', 'no', 'off'].includes(s)) return false;
  }
  throw new ValidationError('stop_on_error: must be a boolean');
}
