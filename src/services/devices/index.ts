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
import { DiscoveryService } from './discovery.ts';
import { GroupService } from './groups.ts';
import { MasterView } from './master-view.ts';
import { DeviceMetaService } from './meta.ts';
import { DeviceRegistry } from './registry.ts';
import { StatusService } from './status.ts';

export { ControlService } from './control.ts';
export { DiscoveryService } from './discovery.ts';
export { GroupService } from './groups.ts';
export { MasterView, type GatewaySnapshot } from './master-view.ts';
export { DeviceMetaService } from './meta.ts';
export { DeviceRegistry, type DeviceRow } from './registry.ts';
export { StatusService } from './status.ts';

export interface DevicesDeps {
  store: Store;
  driver: GatewayDriver;
  bus: EventBus;
  tasks: TaskManager;
  clock: Clock;
  log: Logger;
}

export interface DevicesServices {
  master: MasterView;
  registry: DeviceRegistry;
  groups: GroupService;
  discovery: DiscoveryService;
  status: StatusService;
  deviceMeta: DeviceMetaService;
  control: ControlService;
}

export function createDevices(d: DevicesDeps): DevicesServices {
  const master = new MasterView(d.driver, d.bus, d.clock);
  const registry = new DeviceRegistry(d.store, d.driver, d.clock, d.log.child({ mod: 'radio' }));
  const groups = new GroupService(d.store);
  const { driver, tasks, store } = d;
  return {
    master,
    registry,
    groups,
    discovery: new DiscoveryService({ driver, registry, groups, tasks }),
    status: new StatusService({ driver, registry, groups, tasks }),
    deviceMeta: new DeviceMetaService({ store, driver, registry, groups, tasks }),
    control: new ControlService({ store, driver, registry, groups, master, log: d.log }),
  };
}
