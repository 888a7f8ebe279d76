/**
 * Over-the-air work on nodes: uploaded firmware/cfg files, the `fwupdate` and
 * `presets_download` tasks (open the node's AP, join it, HTTP to the node, restore),
 * and the request checks of their routes.
 */
import type { Clock } from '../../clock.ts';
import type { GatewayDriver } from '../../gateway/types.ts';
import type { Logger } from '../../logger.ts';
import type { TaskManager } from '../../tasks/task-manager.ts';
import type { DeviceRegistry } from '../devices/index.ts';
import type { LedPresetsService } from '../led-presets/index.ts';
import type { WifiParts } from '../wifi/index.ts';
import { FirmwareStore } from './firmware-store.ts';
import { OtaService } from './service.ts';
import { DEFAULT_OTA_TIMINGS, type OtaTimings } from './types.ts';

export { FirmwareStore, parseKind, UPLOAD_LIMITS } from './firmware-store.ts';
export { fwStartSchema, presetsDownloadSchema } from './request.ts';
export { OtaService } from './service.ts';
export { DEFAULT_OTA_TIMINGS, type OtaTimings } from './types.ts';

export function createOta(d: {
  dataDir: string;
  driver: GatewayDriver;
  registry: DeviceRegistry;
  ledPresets: LedPresetsService;
  wifi: WifiParts;
  tasks: TaskManager;
  clock: Clock;
  io: Clock;
  log: Logger;
  timings?: Partial<OtaTimings>;
}): { firmware: FirmwareStore; ota: OtaService } {
  const firmware = new FirmwareStore(d.dataDir, d.clock, d.log.child({ mod: 'uploads' }));
  const ota = new OtaService(
    {
      driver: d.driver,
      registry: d.registry,
      firmware,
      ledPresets: d.ledPresets,
      wifi: d.wifi.backend,
      lease: d.wifi.lease,
      clock: d.clock,
      io: d.io,
      log: d.log.child({ mod: 'ota' }),
      timings: { ...DEFAULT_OTA_TIMINGS, ...d.timings },
    },
    d.tasks,
  );
  return { firmware, ota };
}
