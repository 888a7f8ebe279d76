/** Shared shapes of the OTA workflow: timings (one injectable object) and dependencies. */
import type { Clock } from '../../clock.ts';
import type { GatewayDriver } from '../../gateway/types.ts';
import type { Logger } from '../../logger.ts';
import type { DeviceRegistry } from '../devices/index.ts';
import type { FirmwareStore } from './firmware-store.ts';
import type { LedPresetsService } from '../led-presets/index.ts';
import type { LeaseFile, WifiBackend } from '../wifi/index.ts';

/**
 * Every wait of the workflow (ota.md §3.4, §7.1). Radio waits run on the shared Clock (the
 * simulator uses it too); WiFi and HTTP waits run on wall time (`io`), because nmcli
 * processes and sockets take real time however fast simulated time runs.
 */
export interface OtaTimings {
  /** WAIT_HTTP: overall budget, poll interval, per-request timeout (wall). */
  httpWaitMs: number;
  httpPollMs: number;
  infoTimeoutMs: number;
  /** presets.json / cfg.json upload, firmware POST, unlock POST, presets download (wall). */
  uploadTimeoutMs: number;
  firmwareTimeoutMs: number;
  unlockTimeoutMs: number;
  downloadTimeoutMs: number;
  /** Between firmware attempts (wall). */
  retryDelayMs: number;
  /** Multiplies the request's `timeoutS` scan+connect budget (tests shrink it). */
  connectScale: number;
  /** REANNOUNCE_WAIT and AUTORESTORE_WAIT (radio clock). */
  reannounceMs: number;
  autorestoreMs: number;
  /** Upload progress emits at most this often (radio clock). */
  progressIntervalMs: number;
}

export const DEFAULT_OTA_TIMINGS: OtaTimings = {
  httpWaitMs: 90_000,
  httpPollMs: 1000,
  infoTimeoutMs: 3000,
  uploadTimeoutMs: 45_000,
  firmwareTimeoutMs: 60_000,
  unlockTimeoutMs: 8000,
  downloadTimeoutMs: 15_000,
  retryDelayMs: 2000,
  connectScale: 1,
  reannounceMs: 30_000,
  autorestoreMs: 8000,
  progressIntervalMs: 250,
};

export interface OtaDeps {
  driver: GatewayDriver;
  registry: DeviceRegistry;
  firmware: FirmwareStore;
  ledPresets: LedPresetsService;
  wifi: WifiBackend;
  lease: LeaseFile;
  clock: Clock;
  io: Clock;
  log: Logger;
  timings: OtaTimings;
}

export type DeviceState = 'queued' | 'running' | 'ok' | 'error' | 'reannounce_timeout';
