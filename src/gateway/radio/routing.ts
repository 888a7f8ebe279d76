/**
 * Routing decisions for several gateways (one network each), as pure functions: which
 * networks a frame goes to, and how the per-gateway snapshots add up to the one gateway
 * and master snapshot the contract's routes serve. The Radio (radio.ts) applies them.
 *
 * The aggregate is honest: `ready` only when every network's gateway is ready, the first
 * problem is named with its network, counters are summed. Per-gateway detail goes into
 * extra fields (the contract allows extra fields). A gateway that serves no network (a
 * spare: unassigned, or not identified yet) is listed but says nothing about the networks:
 * it never makes a working fleet look down.
 */
import { BROADCAST, type Addr, type M2NRequest } from '../../protocol/types.ts';
import type { DriverStats, GatewayReadiness, MasterSnapshot } from '../types.ts';

/** What the router needs to know about the fleet (wired from the device registry). */
export interface RouteFacts {
  /** The network a stored device lives on; null for an unknown address. */
  networkOf(addr: Addr): number | null;
  /** Networks with at least one stored device in the group (group 1..254). */
  networksOfGroup(groupId: number): readonly number[];
}

/** The group byte a broadcast request filters on, or null when it has none (SYNC, …). */
export function requestGroup(request: M2NRequest): number | null {
  return 'groupId' in request ? request.groupId : null;
}

/**
 * The networks a frame goes to. A unicast goes to the device's network (or, for a node not
 * stored yet, where it was last heard); a group send to every network with members of the
 * group (none: every network, so one network behaves as it always did); group 255 and
 * frames without a group (SYNC, INDICATE, HEADLESS) to every network in scope.
 */
export function targetNetworks(
  receiver: Addr,
  request: M2NRequest,
  all: readonly number[],
  facts: RouteFacts,
  lastHeard?: (addr: Addr) => number | null,
): number[] {
  if (receiver !== BROADCAST) {
    const id = facts.networkOf(receiver) ?? lastHeard?.(receiver) ?? null;
    return id !== null && all.includes(id) ? [id] : [];
  }
  const g = requestGroup(request);
  if (g !== null && g >= 1 && g <= 254) {
    const members = facts.networksOfGroup(g).filter((id) => all.includes(id));
    if (members.length > 0) return [...all].filter((id) => members.includes(id));
  }
  return [...all];
}

export interface NetworkPart<T> {
  /** The network it serves (or would serve: a conflict), null for a spare gateway. */
  networkId: number | null;
  /** The network's name, or the spare gateway's port. */
  name: string;
  value: T;
}

/**
 * The parts that speak for the fleet: every network's (its gateway, or its lack of one).
 * Spares only when no network has a gateway at all (nothing served: they are all there is).
 */
function fleetParts<T>(parts: readonly NetworkPart<T>[]): readonly NetworkPart<T>[] {
  const networks = parts.filter((p) => p.networkId !== null);
  return networks.length > 0 ? networks : parts;
}

/**
 * Per-gateway detail added to the aggregate readiness with several gateways; a spare
 * gateway has `network_id: null` and its port as `network`.
 */
export type GatewayDetail = GatewayReadiness & { network_id: number | null; network: string };

export function aggregateReadiness(
  parts: readonly NetworkPart<GatewayReadiness>[],
): GatewayReadiness & { gateways: GatewayDetail[]; networks_ready: number; networks_total: number } {
  const counted = fleetParts(parts);
  const first = counted[0];
  if (!first) throw new Error('aggregateReadiness: no gateway');
  const notReady = counted.filter((p) => !p.value.ready);
  const problem = notReady.find((p) => p.value.last_error) ?? notReady[0];
  const retries = counted.map((p) => p.value.next_retry_in_s).filter((s): s is number => s !== null);
  const networks = counted.filter((p) => p.networkId !== null);
  return {
    ready: notReady.length === 0,
    last_error: problem ? `${problem.name}: ${problem.value.last_error ?? 'gateway not ready'}` : null,
    failure_count: parts.reduce((n, p) => n + p.value.failure_count, 0),
    transport: first.value.transport,
    port: first.value.port,
    gateway_mac: first.value.gateway_mac,
    next_retry_in_s: retries.length > 0 ? Math.min(...retries) : null,
    gateways: parts.map((p) => ({ ...p.value, network_id: p.networkId, network: p.name })),
    networks_ready: networks.filter((p) => p.value.ready).length,
    networks_total: networks.length,
  };
}

/** Worst first: a gateway in an unknown state makes the whole master unknown. */
const STATE_RANK = ['UNKNOWN', 'ERROR', 'TX', 'RX', 'RX_WINDOW', 'IDLE'];
const rank = (state: string): number => {
  const i = STATE_RANK.indexOf(state);
  return i < 0 ? 0 : i;
};

/**
 * The worst network's state. A spare gateway is left out (its state, its events — unknown
 * nodes announcing — and its errors are no network's), unless no network has a gateway.
 */
export function aggregateMaster(
  all: readonly NetworkPart<MasterSnapshot & { ready: boolean }>[],
): MasterSnapshot & { networks: (MasterSnapshot & { network_id: number | null; network: string })[] } {
  const parts = fleetParts(all);
  const first = parts[0];
  if (!first) throw new Error('aggregateMaster: no gateway');
  // A gateway that is not connected knows nothing: its part is UNKNOWN whatever it last said.
  const states = parts.map((p) => (p.value.ready ? p.value : { ...p.value, state: 'UNKNOWN' }));
  const worst = states.reduce((w, s) => (rank(s.state) < rank(w.state) ? s : w), states[0]!);
  const newest = parts.reduce((n, p) => (p.value.last_event_ts > n.value.last_event_ts ? p : n), first);
  const errorPart = parts.find((p) => p.value.last_error);
  return {
    state: worst.state,
    state_byte: worst.state_byte,
    state_metadata_ms: worst.state_metadata_ms,
    last_event: newest.value.last_event,
    last_event_ts: newest.value.last_event_ts,
    last_error: errorPart ? `${errorPart.name}: ${errorPart.value.last_error}` : null,
    networks: parts.map((p) => {
      const { ready: _r, ...m } = p.value;
      return { ...m, network_id: p.networkId, network: p.name };
    }),
  };
}

export function sumStats(all: readonly DriverStats[]): DriverStats {
  const out: DriverStats = {
    framesSent: 0,
    framesRejected: 0,
    framesTimedOut: 0,
    replies: 0,
    airtimeMs: 0,
    queueDepth: 0,
  };
  for (const s of all) for (const k of Object.keys(out) as (keyof DriverStats)[]) out[k] += s[k];
  return out;
}
