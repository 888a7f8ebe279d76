/**
 * Reply windows at the active RF settings. The §9.2 values in DriverOptions are sized for
 * SF7/125 kHz, where a reply takes ~50 ms on air; at SF12 the same reply takes ~1.2 s and
 * the fixed windows would close before it arrives. The rule (documented with the values in
 * options.ts): a window keeps its option value and grows by the extra radio time of the
 * replies it has to cover, so it is exactly the §9.2 value at the default settings.
 */
import { loraParamsFromRf, packetAirtimeMs, type LoraParams } from '../protocol/airtime.ts';
import { DEFAULT_RF } from '../protocol/types.ts';
import type { DriverOptions } from './options.ts';

/** Reply bodies (§6): ACK 3 B, GET_CONFIG reply 5 B, STATUS_REPLY 8 B, IDENTIFY_REPLY 9 B. */
export const REPLY_BODY = Object.freeze({ ack: 3, config: 5, status: 8, identify: 9 });
export type ReplyKind = keyof typeof REPLY_BODY;

/** Nodes run a 4-symbol CAD before every reply attempt (§8.5). */
const NODE_CAD_SYMBOLS = 4;
/** The settings the §9.2 values were measured at (the firmware default, SF7/125 kHz). */
const REFERENCE: LoraParams = loraParamsFromRf(DEFAULT_RF);

/** One reply attempt on the air: the node's CAD, then the packet. */
function slotMs(kind: ReplyKind, p: LoraParams): number {
  const symbolMs = (2 ** p.sf * 1000) / p.bwHz;
  return NODE_CAD_SYMBOLS * symbolMs + packetAirtimeMs(REPLY_BODY[kind], p);
}

/** The windows of one set of RF settings; every value is in (virtual) ms, rounded up. */
export interface ReplyWindows {
  /** Extra radio time of one reply at these settings over the reference (0 if faster). */
  growthMs(kind: ReplyKind): number;
  /** A unicast per-attempt window given as its SF7/125 value (option or caller override). */
  unicastMs(refMs: number, kind: ReplyKind): number;
  readonly statusUnicastMs: number;
  readonly setGroupTimeoutMs: number;
  readonly configTimeoutMs: number;
  readonly getConfigTimeoutMs: number;
  readonly discoveryMaxMs: number;
  readonly discoveryIdleMs: number;
  readonly statusIdleMs: number;
  /** Status broadcast ceiling for `expected` replies. */
  statusMaxMs(expected: number): number;
  /** STREAM ACK ceiling for `targets` devices (fragments after the first not included). */
  streamMaxMs(targets: number): number;
  /**
   * How long after a broadcast nodes may still hold (and then send) a reply: they abandon a
   * reply they could not start within nodeGiveUpMs, but one started just before that still
   * occupies them for its airtime.
   */
  nodeBusyMs(kind: ReplyKind): number;
}

export function replyWindows(o: DriverOptions, active: LoraParams): ReplyWindows {
  const cache = new Map<ReplyKind, number>();
  const growthMs = (kind: ReplyKind): number => {
    let g = cache.get(kind);
    if (g === undefined) {
      // Never shrink below the §9.2 values: their fixed parts (node delay, USB) stay.
      g = Math.max(0, slotMs(kind, active) - slotMs(kind, REFERENCE));
      cache.set(kind, g);
    }
    return g;
  };
  // Unicast and idle windows: the reply itself plus one more packet of the same size
  // (a collided reply, or a foreign one the node's LBT backs off from).
  const twoSlots = (refMs: number, kind: ReplyKind): number => Math.ceil(refMs + 2 * growthMs(kind));
  // Ceilings bounded by the node give-up: the last reply starting in time is one slot longer.
  const oneSlot = (refMs: number, kind: ReplyKind): number => Math.ceil(refMs + growthMs(kind));
  // Count-based ceilings: the base covers the first reply's slot, each target one more.
  const counted = (max: number, base: number, per: number, n: number, kind: ReplyKind): number => {
    const g = growthMs(kind);
    return Math.ceil(Math.min(max + g, base + g + (per + g) * n));
  };
  return {
    growthMs,
    unicastMs: twoSlots,
    statusUnicastMs: twoSlots(o.statusUnicastMs, 'status'),
    setGroupTimeoutMs: twoSlots(o.setGroupTimeoutMs, 'ack'),
    configTimeoutMs: twoSlots(o.configTimeoutMs, 'ack'),
    getConfigTimeoutMs: twoSlots(o.getConfigTimeoutMs, 'config'),
    discoveryMaxMs: oneSlot(o.discoveryMaxMs, 'identify'),
    discoveryIdleMs: twoSlots(o.discoveryIdleMs, 'identify'),
    statusIdleMs: twoSlots(o.statusIdleMs, 'status'),
    statusMaxMs: (expected) =>
      counted(o.statusMaxMs, o.statusBaseMs, o.statusPerNodeMs, Math.max(0, expected), 'status'),
    streamMaxMs: (targets) =>
      counted(o.streamMaxMs, o.streamBaseMs, o.streamPerTargetMs, Math.max(1, targets), 'ack'),
    nodeBusyMs: (kind) => oneSlot(o.nodeGiveUpMs, kind),
  };
}
