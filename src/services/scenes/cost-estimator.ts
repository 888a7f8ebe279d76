/**
 * Cost estimator (scenes reference §8, decisions §10): prices the dispatch planner's frame
 * list — the same list the runner sends — with the LoRa time-on-air formula at the
 * gateway's active radio settings.
 *
 * Per on-air packet of body B: `bytes` += B + 9 (the original's convention: Header7 + the
 * 2 framing bytes), `radio_bytes` += B + 7, airtime += ToA(B + 7), wall clock += ToA + 12 ms
 * (USB round trip and radio turnaround, §4.6; learned from runs, see overhead-calibration.ts). `link_bytes` counts the USB frames the host
 * writes (body + 6). A STREAM frame goes out as ⌈n/8⌉ fragments of 9 bytes and then waits
 * for the node's ACK. A delay adds its duration to airtime and wall clock (as the original).
 * `packets`/`bytes` are integers; airtime and wall clock are rounded up per row, and the
 * total is the exact sum rounded up once.
 */
import { packetAirtimeMs, type LoraParams } from '../../protocol/airtime.ts';
import { HEADER_LEN } from '../../protocol/packets.ts';
import type { RfConfig } from '../../protocol/types.ts';
import type { PlannedAction, PlannedFrame } from './plan/planner.ts';

/** Host write → TX done beyond the airtime (the original's calibration, §8.2). */
export const WIRE_OVERHEAD_MS = 12;
/** USB frame around an M2N body: SOF, LEN, TYPE, receiver (3). */
const USB_OVERHEAD = 6;
/** The original's per-packet byte convention: Header7 + 2. */
const BYTES_OVERHEAD = HEADER_LEN + 2;
const STREAM_FRAGMENT_BODY = 9;
/** A node answers after 50..300 ms of listen-before-talk (§8.5): the mean, plus its ACK. */
const ACK_MEAN_DELAY_MS = 175;
const ACK_BODY = 3;

export interface CostRow {
  packets: number;
  /** USB frames the host writes. */
  frames: number;
  bytes: number;
  radio_bytes: number;
  link_bytes: number;
  airtime_ms: number;
  wall_clock_ms: number;
}

export interface ActionCost extends CostRow {
  detail: Record<string, unknown>;
}

export interface LoraInfo {
  sf: number;
  bw_hz: number;
  /** Coding-rate denominator (5 = 4/5). */
  cr: number;
  preamble_sym: number;
  explicit_header: boolean;
  low_dr_opt: boolean;
  crc_on: boolean;
  sync_word: number;
  wire_overhead_ms_per_packet: number;
  /** `measured`: learned from this host's scene runs; `default`: the original's 12 ms. */
  wire_overhead_source: 'measured' | 'default';
  /** `gateway`: the settings the gateway reported; `default`: firmware defaults (not read yet). */
  source: 'gateway' | 'default';
}

/** One network's share of a scene (several gateways only). */
export interface NetworkCost {
  network_id: number;
  packets: number;
  bytes: number;
  /** This network's frames on its own channel (delays excluded). */
  airtime_ms: number;
  /** This network's own path through the scene: its frames plus every delay. */
  wall_clock_ms: number;
  lora: LoraInfo;
}

export interface CostEstimate {
  total: CostRow;
  per_action: ActionCost[];
  /** The primary network's settings (the first one's with several gateways). */
  lora: LoraInfo;
  /** Several gateways: each network's share; total.wall_clock_ms = Σ actions of the slowest. */
  per_network?: NetworkCost[];
}

export function loraInfo(
  rf: RfConfig,
  source: LoraInfo['source'],
  overhead: { ms: number; source: LoraInfo['wire_overhead_source'] } = {
    ms: WIRE_OVERHEAD_MS,
    source: 'default',
  },
): LoraInfo {
  const bwHz = rf.bwKhzX10 * 100;
  return {
    sf: rf.sf,
    bw_hz: bwHz,
    cr: rf.crDen,
    preamble_sym: rf.preamble,
    explicit_header: true,
    // Same rule as the airtime formula: on when a symbol lasts 16 ms or more.
    low_dr_opt: (2 ** rf.sf * 1000) / bwHz >= 16,
    crc_on: true,
    sync_word: rf.syncWord,
    wire_overhead_ms_per_packet: overhead.ms,
    wire_overhead_source: overhead.source,
    source,
  };
}

export function loraParams(l: LoraInfo): LoraParams {
  return {
    sf: l.sf,
    bwHz: l.bw_hz,
    crDen: l.cr,
    preamble: l.preamble_sym,
    explicitHeader: l.explicit_header,
    crc: l.crc_on,
    lowDataRateOpt: l.low_dr_opt,
  };
}

interface Exact {
  packets: number;
  frames: number;
  bytes: number;
  radio: number;
  link: number;
  airtime: number;
  wall: number;
}

const zero = (): Exact => ({ packets: 0, frames: 0, bytes: 0, radio: 0, link: 0, airtime: 0, wall: 0 });

function addFrame(acc: Exact, f: PlannedFrame, p: LoraParams, overheadMs: number): void {
  acc.frames++;
  acc.link += f.body.length + USB_OVERHEAD;
  const stream = f.via === 'stream' || f.request.op === 'STREAM';
  const n = stream ? Math.max(1, Math.ceil(f.body.length / 8)) : 1;
  const body = stream ? STREAM_FRAGMENT_BODY : f.body.length;
  const toa = packetAirtimeMs(body, p);
  acc.packets += n;
  acc.bytes += n * (body + BYTES_OVERHEAD);
  acc.radio += n * (body + HEADER_LEN);
  acc.airtime += n * toa;
  acc.wall += n * (toa + overheadMs);
  if (f.via === 'stream') acc.wall += ACK_MEAN_DELAY_MS + packetAirtimeMs(ACK_BODY, p);
}

/** Exact (unrounded) cost of one planned action. */
function exactCost(a: PlannedAction, p: LoraParams, overheadMs: number): Exact {
  const acc = zero();
  for (const f of a.frames) addFrame(acc, f, p, overheadMs);
  acc.airtime += a.delayMs;
  acc.wall += a.delayMs;
  return acc;
}

const row = (e: Exact): CostRow => ({
  packets: e.packets,
  frames: e.frames,
  bytes: e.bytes,
  radio_bytes: e.radio,
  link_bytes: e.link,
  // Round up, but not past float noise (41.216 * 3 must not become 124).
  airtime_ms: Math.ceil(e.airtime - 1e-9),
  wall_clock_ms: Math.ceil(e.wall - 1e-9),
});

/**
 * Several networks transmit in parallel: an action's packets, bytes and airtime are the sums
 * of its networks' shares (each priced with its own radio settings), its wall clock is the
 * slowest share's (the runner waits for every network before the next action).
 */
function networkedCost(
  a: PlannedAction,
  loraOf: (network: number) => LoraInfo,
  perNetwork: Map<number, Exact>,
): Exact {
  const acc = zero();
  let slowest = 0;
  for (const part of a.parts ?? []) {
    const l = loraOf(part.network);
    const e = zero();
    for (const f of part.frames) addFrame(e, f, loraParams(l), l.wire_overhead_ms_per_packet);
    for (const k of Object.keys(acc) as (keyof Exact)[]) if (k !== 'wall') acc[k] += e[k];
    slowest = Math.max(slowest, e.wall);
    const net = perNetwork.get(part.network) ?? zero();
    for (const k of Object.keys(net) as (keyof Exact)[]) net[k] += e[k];
    perNetwork.set(part.network, net);
  }
  acc.wall = slowest + a.delayMs;
  acc.airtime += a.delayMs;
  // Every network waits out a delay (the barrier between actions).
  for (const net of perNetwork.values()) net.wall += a.delayMs;
  return acc;
}

/**
 * Prices a plan. `per_action` is 1:1 with the scene's top-level actions. A plan across several
 * networks (actions with `parts`) is priced per network with `loraOf` (default: `lora`).
 */
export function estimateCost(
  plan: readonly PlannedAction[],
  lora: LoraInfo,
  loraOf: (network: number) => LoraInfo = () => lora,
): CostEstimate {
  const p = loraParams(lora);
  const total = zero();
  const networked = plan.some((a) => a.parts !== undefined);
  const perNetwork = new Map<number, Exact>();
  if (networked)
    for (const n of new Set(plan.flatMap((a) => (a.parts ?? []).map((x) => x.network))))
      perNetwork.set(n, zero());
  const per_action: ActionCost[] = plan.map((a) => {
    const e = networked
      ? networkedCost(a, loraOf, perNetwork)
      : exactCost(a, p, lora.wire_overhead_ms_per_packet);
    for (const k of Object.keys(total) as (keyof Exact)[]) total[k] += e[k];
    const detail: Record<string, unknown> = { ...a.detail };
    if (a.degraded) detail.degraded = a.degraded;
    return { ...row(e), detail };
  });
  if (!networked) return { total: row(total), per_action, lora };
  const per_network = [...perNetwork]
    .sort(([x], [y]) => x - y)
    .map(([id, e]): NetworkCost => {
      const r = row(e);
      return {
        network_id: id,
        packets: r.packets,
        bytes: r.bytes,
        airtime_ms: r.airtime_ms,
        wall_clock_ms: r.wall_clock_ms,
        lora: loraOf(id),
      };
    });
  return { total: row(total), per_action, lora, per_network };
}

/**
 * The on-air time of one transmission of the plan: the total with one network; with several
 * (which transmit in parallel) the slowest network's, not the sum (race-start lead times).
 */
export function parallelAirtimeMs(e: CostEstimate): number {
  return e.per_network && e.per_network.length > 0
    ? Math.max(...e.per_network.map((n) => n.airtime_ms))
    : e.total.airtime_ms;
}

/** Exact per-action airtime and wall clock (unrounded), for tests and the benchmark. */
export function exactActionCost(a: PlannedAction, lora: LoraInfo): { airtime: number; wall: number } {
  const e = exactCost(a, loraParams(lora), lora.wire_overhead_ms_per_packet);
  return { airtime: e.airtime, wall: e.wall };
}
