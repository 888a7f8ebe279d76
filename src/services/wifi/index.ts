/**
 * Host WiFi: listing the host's interfaces, and the backend the OTA workflow uses to
 * join a node's access point and restore the previous connection (nmcli, or none).
 * Child processes run through the CommandRunner, always as argument arrays.
 */
import type { Clock } from '../../clock.ts';
import type { Logger } from '../../logger.ts';
import { LeaseFile, NoWifiBackend, type WifiBackend } from './backend.ts';
import type { CommandRunner } from './command-runner.ts';
import { HostWifiService } from './host-wifi.ts';
import { NmcliBackend } from './nmcli.ts';

export {
  BSSID_RE,
  IFACE_RE,
  LeaseFile,
  NoWifiBackend,
  predictApBssid,
  WifiDisabledError,
  type Joined,
  type WifiBackend,
  type WifiLease,
} from './backend.ts';
export { processRunner, type CommandRunner } from './command-runner.ts';
export { HostWifiService, type WifiStatus } from './host-wifi.ts';

export interface WifiParts {
  /** GET /api/wifi/interfaces. */
  service: HostWifiService;
  /** What OTA uses to switch networks, and the lease that remembers what to restore. */
  backend: WifiBackend;
  lease: LeaseFile;
}

export function createWifi(d: {
  mode: 'nmcli' | 'none';
  dataDir: string;
  runner: CommandRunner;
  /** nmcli and sockets do not follow a simulated clock: wall time. */
  io: Clock;
  log: Logger;
  otaLog: Logger;
  /** Why there is no WiFi control though nobody asked for `--wifi none` (Config.wifiMissing). */
  missing?: string | null;
}): WifiParts {
  const lease = new LeaseFile(d.dataDir);
  const backend: WifiBackend =
    d.mode === 'nmcli'
      ? new NmcliBackend(d.runner, lease, d.io, d.otaLog)
      : new NoWifiBackend(d.missing ?? null);
  return { service: new HostWifiService(d.mode, d.runner, d.log, backend), backend, lease };
}
