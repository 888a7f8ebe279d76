/** The set of services the HTTP layer is handed by the host (each capability's create…). */
import type { Clock } from '../clock.ts';
import type { EventBus } from '../events.ts';
import type { GatewayDriver } from '../gateway/types.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../state/store.ts';
import type { TaskManager } from '../tasks/task-manager.ts';
import type { BackupService } from './backup/index.ts';
import type { RaceLinkImportService } from './import/index.ts';
import type { DevicesServices } from './devices/index.ts';
import type { LedPresetsService } from './led-presets/index.ts';
import type { IntegrationService } from './integration/index.ts';
import type { RaceLights } from './integration/laps/index.ts';
import type { Timers } from './integration/timers/index.ts';
import type { FirmwareStore, OtaService } from './ota/index.ts';
import type { ScenesServices } from './scenes/index.ts';
import type { SpecialsActions, SpecialsSchema, SpecialsService } from './specials/index.ts';
import type { HostWifiService } from './wifi/index.ts';
import type { HistoryService } from './history/index.ts';
import type { LinkTestService } from './link-test/index.ts';
import type { LogBuffer } from './logs/index.ts';
import type { BlackoutService, SafetyRepeats } from './race/index.ts';
import type { FlagService } from './flags/index.ts';
import type { OscStats } from './osc/index.ts';
import type { MqttStats } from './mqtt/index.ts';
import type { DmxFace } from './dmx/index.ts';
import type { CommandPathService } from './command-path/index.ts';
import type { ConsoleSettingsService } from './console/index.ts';
import type { NetworksService } from './networks/index.ts';
import type { RfMovesService } from './rf-moves/index.ts';
import type { RealFolderSummary } from '../sim/real-folder.ts';

export interface AppServices extends DevicesServices, ScenesServices {
  clock: Clock;
  log: Logger;
  bus: EventBus;
  store: Store;
  tasks: TaskManager;
  driver: GatewayDriver;
  wifi: HostWifiService;
  /** Uploaded firmware and cfg.json files. */
  firmware: FirmwareStore;
  /** LED preset files; `ledPresetOptions()` lists the active file's presets. */
  ledPresets: LedPresetsService;
  specials: SpecialsService;
  specialsSchema: SpecialsSchema;
  specialsActions: SpecialsActions;
  ota: OtaService;
  /** The activity log's ring of recent entries. */
  logs: LogBuffer;
  /** Signal and battery history per device. */
  history: HistoryService;
  linkTest: LinkTestService;
  /** Operator backup and restore of state, preset files and the firmware index. */
  backup: BackupService;
  /** Moving in from RaceLink: its data folder mapped onto the state (dry run or written). */
  racelinkImport: RaceLinkImportService;
  /** Timing-application integration (heat, armed race start); mode `none` standalone. */
  integration: IntegrationService;
  /** RotorHazard laps and race phases on the gates: settings and live service. */
  raceLights: RaceLights;
  /** Second timers (FPVTrackside's push): their receivers and state. */
  timers: Timers;
  /** Race-day all-off: cancels the scene and task, broadcasts brightness 0. */
  blackout: BlackoutService;
  /** Blackout's and red's repeats (dropped when a later command went out). */
  safetyRepeats: SafetyRepeats;
  /** Race flags (green, yellow, red, clear): red holds the race looks back until cleared. */
  flags: FlagService;
  /** The OSC receiver's counters (`GET /api/osc`), or null when it is off. */
  oscStats: () => OscStats | null;
  /** The MQTT bridge's connection and counters (`GET /api/mqtt`), or null when it is off. */
  mqttStats: () => MqttStats | null;
  /** DMX in (`GET /api/dmx`, `PUT /api/dmx/patch`), or null when no `--dmx` was given. */
  dmx: () => DmxFace | null;
  /** Every light command's source, priority and owner, decided in one place (issue 37). */
  commandPath: CommandPathService;
  /** Race mode, pinned scenes, battery warning level, acknowledged alerts: shared by every browser. */
  consoleSettings: ConsoleSettingsService;
  /** Where the state lives; `simulated` when it is the simulator's own folder. */
  dataFolder: {
    dir: string;
    simulated: boolean;
    /** Devices of the simulated fleet found in a real data folder (older versions saved them there). */
    simulatedLeftovers: string[];
    /** The real data folder (`--data-dir`); on the simulator `dir` is another one unless `--sim-data-dir` names it. */
    realDir: string;
    /** On the simulator: what the real data folder holds (it does not show here), or null. */
    real: RealFolderSummary | null;
  };
  /** Networks (one per gateway): gateway binding and the `GET /api/networks` list. */
  networks: NetworksService;
  /** Finds gateways plugged in while running (`POST /api/gateways/rescan`). */
  gatewayScan: {
    rescan(opts?: { only?: readonly string[]; quiet?: boolean }): Promise<{
      attached: { mac: string; port: string }[];
      tried: { path: string; result: string; detail?: string }[];
      skipped: string[];
    }>;
    stop(): void;
  };
  /** Channel scan, rescue, RF migration, pinned nodes (issue 27). */
  rfMoves: RfMovesService;
  /** booting until state is loaded and the gateway link's first attempt ended. */
  phase: () => 'booting' | 'ready';
}
