/**
 * Devices: the registry of known nodes and their rows, groups, names and membership,
 * discovery, status polls, interactive control and the master/gateway snapshot.
 * This file is the capability's public face: the host, the routes and other
 * capabilities import from here only.
 */
import type { Clock } from '../../clock.ts';
import type { EventBus } from '../../events.ts';
import type { GatewayDriver } from '../../gateway/types.ts';
import type { Logger } from '../../logger.ts';
import type { Store } from '../../state/store.ts';
import type { TaskManager } from '../../tasks/task-manager.ts';
import { ControlService } from './control.ts';
import { DiscoveryService } from './discovery/task.ts';
import { GroupService } from './groups.ts';
import { MasterView } from './master-view.ts';
import { DeviceMetaService } from './meta.ts';
import { DeviceForgetService } from './forget.ts';
import { DeviceRegistry } from './registry/registry.ts';
import { StatusService } from './status/task.ts';
import { RecoveryService } from './recovery/recovery.ts';
import { RestoreGroupsTask } from './recovery/task.ts';
import type { RecoveryOptions } from './recovery/types.ts';

export { ControlService } from './control.ts';
export { DiscoveryService } from './discovery/task.ts';
export { GroupService } from './groups.ts';
export { MasterView, type GatewaySnapshot } from './master-view.ts';
export { DeviceMetaService } from './meta.ts';
export { DeviceForgetService, type ForgetHook, type ForgetReferences, type ForgetResult } from './forget.ts';
export { DeviceRegistry, type DeviceRow } from './registry/registry.ts';
export { StatusService } from './status/task.ts';
export {
  DEFAULT_PIPELINE_ATTEMPTS,
  DEFAULT_PIPELINE_DEPTH,
  PIPELINE_ATTEMPT_TIMEOUT_MS,
  replyQuietMs,
  runUnicastPipeline,
  type PipelineOptions,
  type PipelineProgress,
  type UnicastJob,
  type UnicastOutcome,
} from './radio/unicast-pipeline.ts';
export { radioPace, type RadioPace } from './radio/pace.ts';
export { RecoveryService } from './recovery/recovery.ts';
export { RestoreGroupsTask, type RestoreRequest, type RestoreResult } from './recovery/task.ts';
export * from './recovery/types.ts';
export type { NetworkAlert, NetworkAlerts } from './registry/network-alerts.ts';

export interface DevicesDeps {
  store: Store;
  driver: GatewayDriver;
  bus: EventBus;
  tasks: TaskManager;
  clock: Clock;
  log: Logger;
  /** Field recovery options (budget from --restore-budget; tests and benchmarks tune more). */
  recovery?: Partial<RecoveryOptions>;
}

export interface DevicesServices {
  master: MasterView;
  registry: DeviceRegistry;
  groups: GroupService;
  discovery: DiscoveryService;
  status: StatusService;
  deviceMeta: DeviceMetaService;
  /** Forgetting devices (registry, groups; other capabilities hook in). */
  deviceForget: DeviceForgetService;
  control: ControlService;
  /** Field recovery: rejoining nodes put back into their stored groups. */
  recovery: RecoveryService;
  /** The operator's "Restore groups" task. */
  restoreGroups: RestoreGroupsTask;
}

export function createDevices(d: DevicesDeps): DevicesServices {
  const master = new MasterView(d.driver, d.bus, d.clock);
  const registry = new DeviceRegistry(d.store, d.driver, d.clock, d.log.child({ mod: 'radio' }));
  const groups = new GroupService(d.store);
  const { driver, tasks, store } = d;
  const recovery = new RecoveryService(
    { driver, registry, store, clock: d.clock, bus: d.bus, log: d.log.child({ mod: 'recovery' }) },
    d.recovery,
  );
  const deviceForget = new DeviceForgetService({ store, tasks, log: d.log.child({ mod: 'devices' }) });
  deviceForget.onForget((addrs) => {
    registry.dropTransient(addrs);
    recovery.drop(addrs);
  });
  return {
    recovery,
    deviceForget,
    restoreGroups: new RestoreGroupsTask({ recovery, registry, groups, tasks, clock: d.clock, driver }),
    master,
    registry,
    groups,
    discovery: new DiscoveryService({ driver, registry, groups, tasks, clock: d.clock }),
    status: new StatusService({ driver, registry, groups, tasks, clock: d.clock }),
    deviceMeta: new DeviceMetaService({ store, driver, registry, groups, tasks }),
    control: new ControlService({ store, driver, registry, groups, master, log: d.log }),
  };
}
