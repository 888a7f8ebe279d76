/** Options, timing and persisted state of a simulated node. */
import type { Addr, RfConfig } from '../../protocol/types.ts';
import type { LinkQuality } from '../air.ts';
import type { Overrides, StartblockConfig, StartblockRecord } from './config.ts';
import type { LedEngine } from './led.ts';
import { DEFAULT_NODE_RADIO_TIMING, type NodeRadio, type NodeRadioTiming } from './radio.ts';

export const STARTBLOCK_TYPES: readonly number[] = [50, 51];

export interface NodeTiming {
  /** Power-on (or reboot) until the radio is up. */
  bootMs: number;
  /** Radio up until the first boot announcement is queued. */
  announceMs: number;
  /** First announcement on air until the second one is queued. */
  secondAnnounceMs: number;
  /** How long a node is offline when it reboots onto a new RF config (docs: ≈5 s). */
  rfRebootMs: number;
  /** Blocking wait between queueing the RF_CONFIG ACK and restarting. */
  rfRestartBlockMs: number;
  radio: NodeRadioTiming;
}

export const DEFAULT_NODE_TIMING: NodeTiming = {
  bootMs: 800,
  announceMs: 1000,
  secondAnnounceMs: 3000,
  rfRebootMs: 4000,
  rfRestartBlockMs: 50,
  radio: DEFAULT_NODE_RADIO_TIMING,
};

export interface SimNodeOptions {
  /** Full MAC, 12 hex digits (separators allowed). */
  mac: string;
  devType: number;
  /** Battery voltage in mV; 0 = mains powered / no battery usermod. */
  vbatMv: number;
  quality: LinkQuality;
  rf?: RfConfig;
  timing?: Partial<NodeTiming>;
}

/** What survives a reboot (flash / cfg.json / NVS). */
export interface Persisted {
  macFilterEnabled: boolean;
  macFilterPersist: boolean;
  master: Addr | null;
  rf: RfConfig;
}

/** The whole flash image of a node: what a power cycle keeps (the simulator's memory). */
export interface NodeFlash extends Persisted {
  overrides: Overrides;
  startblock: StartblockConfig | null;
}

/**
 * A node as its opcode handlers and its snapshot see it. SimNode implements it; the
 * handlers depend on this shape rather than on SimNode, which owns the handlers.
 */
export interface NodeState {
  readonly mac: string;
  readonly addr: Addr;
  readonly devType: number;
  readonly radio: NodeRadio;
  readonly timing: NodeTiming;
  vbatMv: number;
  groupId: number;
  master: Addr | null;
  macFilterEnabled: boolean;
  macFilterPersist: boolean;
  apActive: boolean;
  lastRssi: number;
  lastSnr: number;
  readonly rebootCount: number;
  nvsFail: boolean;
  readonly overrides: Overrides;
  readonly startblock: StartblockConfig | null;
  readonly startblockDisplay: Map<number, StartblockRecord>;
  led: LedEngine;
  readonly isPowered: boolean;
  readonly configByte: number;
  reboot(offlineMs?: number): void;
  persistedView(): Readonly<Persisted> & { overrides: Overrides };
}
