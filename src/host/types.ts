/** What `startHost` returns, and what tests and benchmarks may swap in (host/index.ts). */
import type { OscHandle } from './osc.ts';
import type { MqttHandle } from './mqtt.ts';
import type { DmxHandle } from './dmx.ts';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../clock.ts';
import type { createGatewayDriver } from '../gateway/driver.ts';
import type { AppOptions } from '../http/app.ts';
import type { SecurityOptions } from '../http/security.ts';
import type { SseHub } from '../http/sse.ts';
import type { DetectOverride } from './gateways/choice.ts';
import type { RecoveryOptions } from '../services/devices/index.ts';
import type { HistoryOptions } from '../services/history/index.ts';
import type { AppServices } from '../services/index.ts';
import type { OtaTimings } from '../services/ota/index.ts';
import type { CommandRunner } from '../services/wifi/index.ts';
import type { SafetyRepeatOptions } from '../services/race/index.ts';
import type { SimOnMemory } from '../sim/sim-host.ts';

export interface HostHandle {
  app: FastifyInstance;
  /** Base URL including the prefix, e.g. http://127.0.0.1:5077/lightnet */
  url: string;
  port: number;
  services: AppServices;
  sse: SseHub;
  /** Counts the reads answered before Fastify (http/fast-reads.ts). */
  fastReads: { readonly served: number };
  sim: SimOnMemory | null;
  /** The folder this host keeps its state in (the simulator's own one on the simulator). */
  dataDir: string;
  /** Every simulated gateway (`--sim-gateways N`); `sim` is the first. */
  sims: SimOnMemory[];
  /** The OSC receiver (`--osc-port`), or null. */
  osc: OscHandle | null;
  /** The MQTT bridge (`--mqtt`), or null. */
  mqtt: MqttHandle | null;
  /** DMX in (`--dmx`), or null. */
  dmx: DmxHandle | null;
  close(): Promise<void>;
}

export interface HostOverrides {
  runner?: CommandRunner;
  /** Clock for the simulated fleet and everything that shares its time (tests). */
  simClock?: Clock;
  /** Blackout's and red's repeats (tests; no gaps: each is sent once). */
  safetyRepeats?: SafetyRepeatOptions;
  /** Driver option overrides (tests). */
  driverOptions?: Parameters<typeof createGatewayDriver>[0]['options'];
  /** OTA workflow timings (tests shrink them). */
  otaTimings?: Partial<OtaTimings>;
  /** Field recovery options (tests, benchmarks). */
  recoveryOptions?: Partial<RecoveryOptions>;
  /** Built web UI folder (default: the project's dist/ui). */
  uiDir?: string;
  /**
   * An already running simulated fleet to use instead of a new one (tests, benchmarks: a
   * host that restarts while the field stays powered). Used with `--gateway sim`; the host
   * neither starts nor stops it.
   */
  sim?: SimOnMemory;
  /** HTTP hardening knobs (tests shrink timeouts and inject the login throttle's clock). */
  http?: Pick<AppOptions, 'limits'> & Pick<SecurityOptions, 'now' | 'throttle' | 'sessions'>;
  /** Signal-history sizing (tests use a tiny bucket so each poll is its own sample). */
  history?: Partial<HistoryOptions>;
  /**
   * How long a device-option write waits for the node's ACKs (default 6 s). Tests that
   * need a write to stay running while they act lengthen it, instead of racing the clock.
   */
  specialsAckBudgetMs?: number;
  /** How `--gateway auto` at start and `POST /api/gateways/rescan` find and open ports (tests: simulated boards). */
  detect?: DetectOverride;
}
