/**
 * Native presets and scenes: the stored library, the editor schema, and one dispatch
 * planner behind both the cost estimate and the runner (the estimate prices exactly the
 * frames a run sends). The start-block payload encoder is shared with device options.
 */
import type { Clock } from '../../clock.ts';
import type { StartblockSlot } from '../../domain/scenes/types.ts';
import type { EventBus } from '../../events.ts';
import type { NetworkRouter } from '../../gateway/network-parts.ts';
import type { GatewayDriver } from '../../gateway/types.ts';
import type { Logger } from '../../logger.ts';
import type { Store } from '../../state/store.ts';
import type { DeviceRegistry, GroupService } from '../devices/index.ts';
import type { LedPresetsService } from '../led-presets/index.ts';
import { SceneDispatchService } from './dispatch.ts';
import { sceneEditorSchema } from './editor-schema.ts';
import { SceneService } from './library.ts';
import { mirrorSentFrames } from './mirror.ts';
import type { PlannedFrame } from './plan/planner.ts';
import { NativePresetService } from './native-presets.ts';
import { WireOverheadCalibration } from './overhead-calibration.ts';
import { SceneRunner } from './run/runner.ts';

export { SceneDispatchService } from './dispatch.ts';
export type { PlannedFrame } from './plan/planner.ts';
export type { RunResult } from './run/runner.ts';
export { SceneService } from './library.ts';
export { NativePresetService } from './native-presets.ts';
export { startblockPayload, STARTBLOCK_SLOTS } from './plan/fields.ts';
export { parallelAirtimeMs } from './cost-estimator.ts';
export { mirrorSentFrames } from './mirror.ts';

export interface ScenesServices {
  nativePresets: NativePresetService;
  scenes: SceneService;
  /** Body of GET /api/scenes/editor-schema (without `ok`). */
  sceneEditorSchema: () => Record<string, unknown>;
  /** Scene estimate, run and cancel. */
  sceneDispatch: SceneDispatchService;
}

export function createScenes(d: {
  store: Store;
  driver: GatewayDriver;
  bus: EventBus;
  clock: Clock;
  log: Logger;
  registry: DeviceRegistry;
  groups: GroupService;
  ledPresets: LedPresetsService;
  /** The current heat's start-block slots from a timing application (read at plan time). */
  heatSlots?: () => readonly StartblockSlot[];
  /** Also told of every frame a scene sent (race lights remember what each gate shows). */
  onSent?: (frames: readonly PlannedFrame[]) => void;
  /** Several gateways: each network's gateway (scenes are planned and run per network). */
  router?: NetworkRouter;
}): ScenesServices {
  const { store, clock, log, driver } = d;
  const nativePresets = new NativePresetService({ store, clock, log });
  // The scope check at save reads the planner's view of the fleet (built below).
  let dispatchRef: SceneDispatchService | null = null;
  const scenes = new SceneService({
    store,
    clock,
    log,
    presets: nativePresets,
    planContext: () => dispatchRef?.planContext() ?? { devices: [], optimize: true, preset: () => undefined },
  });
  // Group ids are positions: deleting one renumbers the scene actions that name groups.
  d.groups.onRenumber((deletedId) => scenes.renumberGroups(deletedId));
  const overhead = new WireOverheadCalibration(() => driver.radioSettings().rf);
  const runner = new SceneRunner({
    driver,
    clock,
    bus: d.bus,
    log: log.child({ mod: 'scenes' }),
    onSent: (frames) => {
      mirrorSentFrames(store, frames);
      d.onSent?.(frames);
    },
    onFrameTimed: (f, ms) => overhead.sample(f.body.length, ms),
    ...(d.router ? { router: d.router } : {}),
  });
  const sceneDispatch = new SceneDispatchService({
    scenes,
    presets: nativePresets,
    registry: d.registry,
    driver,
    runner,
    overhead: () => overhead.current(),
    heatSlots: d.heatSlots,
    ...(d.router ? { router: d.router } : {}),
  });
  dispatchRef = sceneDispatch;
  return {
    nativePresets,
    scenes,
    sceneEditorSchema: () =>
      sceneEditorSchema({
        presets: nativePresets,
        lora: () => ({ ...sceneDispatch.lora() }),
        ledPresetOptions: () => d.ledPresets.options(),
      }),
    sceneDispatch,
  };
}
