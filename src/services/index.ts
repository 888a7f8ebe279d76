/** The set of services the HTTP layer is handed by main.ts. */
import type { Clock } from '../clock.ts';
import type { EventBus } from '../events.ts';
import type { GatewayDriver } from '../gateway/types.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../state/store.ts';
import type { TaskManager } from '../tasks/task-manager.ts';
import type { ControlService } from './control.ts';
import type { BlackoutService } from './race/blackout.ts';
import type { DeviceMetaService } from './device-meta.ts';
import type { DeviceRegistry } from './device-registry.ts';
import type { DiscoveryService } from './discovery.ts';
import type { GroupService } from './groups.ts';
import type { FirmwareStore } from './firmware-store.ts';
import type { HostWifiService } from './host-wifi.ts';
import type { LedPresetsService } from './led-presets.ts';
import type { OtaService } from './ota.ts';
import type { MasterView } from './master-view.ts';
import type { NativePresetService } from './native-presets.ts';
import type { SceneService } from './scenes.ts';
import type { SceneDispatchService } from './scene-dispatch.ts';
import type { StatusService } from './status.ts';
import type { SpecialsService } from './specials.ts';
import type { SpecialsActions } from './specials-actions.ts';
import type { SpecialsSchema } from './specials-schema.ts';

export interface AppServices {
  clock: Clock;
  log: Logger;
  bus: EventBus;
  store: Store;
  tasks: TaskManager;
  driver: GatewayDriver;
  master: MasterView;
  registry: DeviceRegistry;
  groups: GroupService;
  discovery: DiscoveryService;
  status: StatusService;
  deviceMeta: DeviceMetaService;
  control: ControlService;
  /** Race-day all-off: cancels the scene and task, broadcasts brightness 0. */
  blackout: BlackoutService;
  wifi: HostWifiService;
  /** Uploaded firmware and cfg.json files. */
  firmware: FirmwareStore;
  /** LED preset files; `ledPresetOptions()` lists the active file's presets. */
  ledPresets: LedPresetsService;
  nativePresets: NativePresetService;
  scenes: SceneService;
  /** Body of GET /api/scenes/editor-schema (without `ok`). */
  sceneEditorSchema: () => Record<string, unknown>;
  /** Scene estimate, run and cancel. */
  sceneDispatch: SceneDispatchService;
  specials: SpecialsService;
  specialsSchema: SpecialsSchema;
  specialsActions: SpecialsActions;
  ota: OtaService;
  /** booting until state is loaded and the gateway link's first attempt ended. */
  phase: () => 'booting' | 'ready';
}
