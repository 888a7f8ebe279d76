/**
 * The dispatch planner's inputs and outputs: the store's view it plans from (devices,
 * presets, networks and a scene's scope) and the frames it plans, per action and, with
 * several gateways, per network.
 */
import type { NativePreset } from '../../../domain/scenes/native-preset.ts';
import type { ActionKind, StartblockSlot } from '../../../domain/scenes/types.ts';
import type { Addr, M2NRequest } from '../../../protocol/types.ts';

/** A known device as the planner needs it. */
export interface PlanDevice {
  addr: Addr;
  groupId: number;
  /** The stored group is not yet confirmed by the node. */
  groupPending: boolean;
  brightness: number;
  /** First slot and slot count of a start-block device, else null. */
  startblock: { first: number; slots: number } | null;
  /** The network the device lives on (absent: the one network). */
  network?: number;
}

/** A network as the planner needs it (only given when several gateways run). */
export interface PlanNetwork {
  id: number;
  name: string;
}

export interface PlanContext {
  devices: readonly PlanDevice[];
  /** Resolves a native_preset `presetId` reference (id, `RL:<key>` or key). */
  preset(ref: string): NativePreset | undefined;
  /** Our savings on (true) or the original host's plan (false). */
  optimize: boolean;
  /** The current heat's start-block slots from a timing application (1-based); none standalone. */
  heatSlots?: readonly StartblockSlot[];
  /**
   * The networks when several gateways run (one or none: today's plan, untouched). Each
   * network in a scene's scope is then planned with its own devices (networks.ts).
   */
  networks?: readonly PlanNetwork[];
  /** The scene's explicit `networks` (restricts broadcasts and SYNC); absent or null: automatic. */
  scope?: readonly number[] | null;
}

export interface PlannedFrame {
  receiver: Addr;
  request: M2NRequest;
  /** The body as the host sends it in its USB frame. */
  body: Uint8Array;
  /** `stream`: a STREAM sent with ACK collection (start blocks); `send`: TX outcome only. */
  via: 'send' | 'stream';
  /** Which part of an offset_group this frame belongs to (child = its index). */
  part?: { stage: 'offset' } | { stage: 'child'; child: number };
  /** The network whose gateway sends it (several gateways only). */
  network?: number;
}

/** One network's share of an action (several gateways only): sent in order, in parallel with the others. */
export interface PlannedPart {
  network: number;
  frames: PlannedFrame[];
  /** Why this network sends nothing for the action, else null. */
  degraded: string | null;
}

export interface PlannedAction {
  index: number;
  kind: ActionKind;
  frames: PlannedFrame[];
  /** Host wait (delay actions). */
  delayMs: number;
  /** Why nothing is sent for this action (unknown device, missing preset, …), else null. */
  degraded: string | null;
  detail: Record<string, unknown>;
  /** Several gateways: the frames per network (`frames` is their concatenation). */
  parts?: PlannedPart[];
}
