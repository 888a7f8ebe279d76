/**
 * The Radio's aggregate snapshots with several gateways (or one held): one part per gateway
 * in service, one per network whose gateway is not attached and one per network with
 * devices but no gateway, folded by routing.ts into the contract's `gateway` and `master`
 * shapes with the per-network detail beside them. A gateway in no network is a spare part
 * (networkId null): listed, but it does not decide whether the fleet is ready.
 */
import { aggregateMaster, aggregateReadiness, type NetworkPart } from './routing.ts';
import type { GatewayHold, RadioGateway } from './table.ts';
import type { GatewayDriver, GatewayReadiness, MasterSnapshot } from '../types.ts';

/** The Radio's gateway table, read-only. */
export interface RadioView {
  gateways: readonly RadioGateway[];
  retired: ReadonlySet<number>;
  bound: ReadonlyMap<number, number>;
  held: ReadonlyMap<number, GatewayHold>;
  networks(): readonly { id: number; name: string; gateway_mac: string | null }[];
  networkName(id: number): string;
  /** Whether any stored device belongs to the network (one without a gateway then matters). */
  hasDevices(networkId: number): boolean;
}

/**
 * One part per configured gateway (a spare one — unassigned, or not identified yet — with
 * networkId null), plus one per network whose gateway is not attached (`missing(mac)`) or
 * that has devices but no gateway at all (`missing(null)`).
 */
function parts<T>(
  v: RadioView,
  value: (d: GatewayDriver) => T,
  missing: (mac: string | null) => T,
): NetworkPart<T>[] {
  const parts: NetworkPart<T>[] = v.gateways.flatMap((g, i) => {
    if (v.retired.has(i)) return [];
    const id = v.bound.get(i) ?? v.held.get(i)?.networkId ?? null;
    return [
      {
        networkId: id,
        name: id !== null ? v.networkName(id) : `gateway on ${g.label}`,
        value: value(g.driver),
      },
    ];
  });
  const attached = new Set([
    ...v.bound.values(),
    ...[...v.held.values()].flatMap((h) => (h.networkId === null ? [] : [h.networkId])),
  ]);
  for (const n of v.networks()) {
    if (attached.has(n.id)) continue;
    if (n.gateway_mac !== null || v.hasDevices(n.id))
      parts.push({ networkId: n.id, name: n.name, value: missing(n.gateway_mac) });
  }
  return parts;
}

export function radioReadiness(v: RadioView): GatewayReadiness {
  const held = new Map([...v.held].map(([i, h]) => [v.gateways[i]?.driver, h]));
  const agg = aggregateReadiness(
    parts(
      v,
      (d) => {
        const r = d.readiness();
        const h = held.get(d);
        // A held gateway is connected but carries no traffic: not ready, and why.
        return h && r.ready ? { ...r, ready: false, last_error: h.reason } : r;
      },
      (mac) => ({
        ready: false,
        last_error: mac !== null ? `gateway ${mac} not connected` : 'no gateway assigned',
        failure_count: 0,
        transport: v.gateways.find((_, i) => !v.retired.has(i))?.driver.readiness().transport ?? 'sim',
        port: null,
        gateway_mac: mac,
        next_retry_in_s: null,
      }),
    ),
  );
  return agg;
}

export function radioMaster(v: RadioView): MasterSnapshot {
  return aggregateMaster(
    parts(
      v,
      (d) => ({ ...d.master(), ready: d.readiness().ready }),
      () => ({
        state: 'UNKNOWN',
        state_byte: 0xff,
        state_metadata_ms: 0,
        last_event: null,
        last_event_ts: 0,
        last_error: null,
        ready: false,
      }),
    ),
  );
}
