/**
 * Estimate and run, for stored scenes and drafts: resolves the scene (or validates the
 * draft), builds the planner's view of the store, and hands the one plan to the cost
 * estimator or the runner. The routes call exactly one method here.
 */
import { NotFoundError, ValidationError } from '../../errors.ts';
import type { NativePreset } from '../../domain/scenes/native-preset.ts';
import type { ActionTarget, Scene, SceneAction, StartblockSlot } from '../../domain/scenes/types.ts';
import type { NativeEffectParams } from '../../domain/scenes/native-preset.ts';
import type { NetworkRouter } from '../../gateway/network-parts.ts';
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
  /** Validates a scene's `networks` against its (validated) actions; null: automatic scope. */
  validateScope(networks: unknown, actions: readonly SceneAction[]): number[] | null;
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
  /** Several gateways: the networks and their gateways (absent or no networks: one gateway). */
  router?: NetworkRouter;
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

  /** A network's radio settings: its gateway's, else its record's, else the primary's. */
  loraOf(networkId: number): LoraInfo {
    const route = this.deps.router?.route(networkId);
    if (route?.ok) {
      const { rf, source } = route.driver.radioSettings();
      return loraInfo(rf, source, this.deps.overhead?.());
    }
    const rf = this.deps.router?.networks()?.find((n) => n.id === networkId)?.rf;
    return rf ? loraInfo(rf, 'default', this.deps.overhead?.()) : this.lora();
  }

  /** The planner's view of the store right now (`scope`: the scene's explicit networks). */
  planContext(optimize = true, scope: readonly number[] | null = null): PlanContext {
    const devices: PlanDevice[] = this.deps.registry.all().map((d) => {
      const sb = deviceTypeInfo(d.dev_type).caps.includes('STARTBLOCK');
      return {
        addr: d.addr,
        groupId: d.groupId,
        groupPending: d.group_pending,
        brightness: d.brightness,
        network: d.network_id,
        startblock: sb
          ? {
              first: d.specials.startblock_first_slot ?? DEFAULT_SLOT,
              slots: d.specials.startblock_slots ?? DEFAULT_SLOT,
            }
          : null,
      };
    });
    const networks = this.deps.router?.networks() ?? null;
    return {
      devices,
      optimize,
      preset: (ref) => this.deps.presets.resolve(ref),
      heatSlots: this.deps.heatSlots?.() ?? [],
      // One network: no network fields at all, so the plan is today's, byte for byte.
      ...(networks && networks.length > 1 ? { networks, scope } : {}),
    };
  }

  estimateStored(key: string): CostEstimate {
    const scene = this.deps.scenes.lookup(key);
    if (!scene) throw new NotFoundError('scene not found');
    return this.estimate(scene.actions, scene.networks ?? null);
  }

  estimateDraft(body: DraftBody): CostEstimate {
    if (body.actions === undefined || body.actions === null)
      throw new ValidationError('actions: is required');
    const actions = this.deps.scenes.validateActions(body.actions);
    return this.estimate(actions, this.deps.scenes.validateScope(body.networks, actions));
  }

  estimate(actions: readonly SceneAction[], scope: readonly number[] | null = null): CostEstimate {
    return estimateCost(planScene(actions, this.planContext(true, scope)), this.lora(), (id) =>
      this.loraOf(id),
    );
  }

  /**
   * Runs the stored scene, or — when the body carries `actions` — that draft (validated
   * first; the stored scene stays untouched). `stop_on_error` falls back to the stored
   * scene's, then true.
   */
  /**
   * The actions `run(key, body)` would play (validated the same way, so a bad body is a 400 or
   * 404 here too): the command path reads their targets before the run starts.
   */
  actionsOf(key: string, body: DraftBody): SceneAction[] {
    const stored = this.deps.scenes.lookup(key);
    const draft = body.actions !== undefined && body.actions !== null;
    if (!draft && !stored) throw new NotFoundError('scene_not_found');
    return draft ? this.deps.scenes.validateActions(body.actions) : (stored?.actions ?? []);
  }

  async run(key: string, body: DraftBody): Promise<RunResult> {
    const stored = this.deps.scenes.lookup(key);
    const draft = body.actions !== undefined && body.actions !== null;
    if (!draft && !stored) throw new NotFoundError('scene_not_found');
    const actions = draft ? this.deps.scenes.validateActions(body.actions) : (stored?.actions ?? []);
    const label = draft ? draftLabel(body.label) : (stored?.label ?? key);
    const stopOnError = parseStop(body.stop_on_error, stored?.stop_on_error ?? true);
    const scope =
      draft && body.networks !== undefined
        ? this.deps.scenes.validateScope(body.networks, actions)
        : (stored?.networks ?? null);
    const context = this.planContext(true, scope);
    return this.deps.runner.run({ key, label, actions, stopOnError, draft, context });
  }

  /**
   * The trigger SYNC that would follow this stored scene (its brightness is the scene's last
   * preset's), planned ahead so a race start only has to hand it to the driver.
   */
  planSyncAfter(key: string | null): PlannedFrame[] {
    const stored = key ? this.deps.scenes.lookup(key) : undefined;
    if (key && !stored) throw new NotFoundError('scene_not_found');
    // Several networks: one SYNC per network of the arm scene (its scope; no scene: all).
    const context = this.planContext(true, stored?.networks ?? null);
    const plan = planScene([...(stored?.actions ?? []), { kind: 'sync' }], context);
    const frames = plan.at(-1)?.frames ?? [];
    if (frames.length === 0) throw new Error('sync plan without a frame');
    return frames;
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

  /** The key of the scene being run, or null. */
  running(): string | null {
    return this.deps.runner.running();
  }

  /** How many cancels (Stop, Blackout, …) were asked for so far. */
  cancels(): number {
    return this.deps.runner.cancels();
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
