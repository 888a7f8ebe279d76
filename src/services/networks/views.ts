/**
 * What the networks routes answer: network rows (with their channel and conflict), gateway
 * rows (one per attached gateway, plus one per network whose gateway is missing) and the
 * channel table with which network occupies each channel. Read-only views of the binder's
 * runtime state and the stored records.
 */
import type { LinkStability } from '../../gateway/link-stability.ts';
import type { GatewayDriver, GatewayReadiness } from '../../gateway/types.ts';
import type { Network, NetworkMigration } from '../../domain/networks.ts';
import {
  BAND_GUARD_HZ,
  MIN_SEPARATION_HZ,
  RF_CHANNELS,
  RF_REGIONS,
  channelOf,
  describeRf,
  rfDifferences,
  tooClose,
  type RfRegion,
} from '../../domain/rf-channels.ts';
import type { RfConfig } from '../../protocol/types.ts';
import type { StateModel } from '../../domain/model.ts';
import type { BindState, GatewayBinder, GatewaySlot } from './binding.ts';

export interface NetworkRow {
  id: number;
  name: string;
  gateway_mac: string | null;
  /**
   * ready · not_ready (attached, not ready) · conflict (attached, radio settings differ) ·
   * missing (its gateway is not attached) · no_gateway (none assigned)
   */
  state: 'ready' | 'not_ready' | 'conflict' | 'missing' | 'no_gateway';
  gateway: (GatewayReadiness & { stats: ReturnType<GatewayDriver['stats']> }) | null;
  device_count: number;
  online_count: number;
  /** What the network's nodes are tuned to (null until its gateway reported it). */
  rf: RfConfig | null;
  region: RfRegion | null;
  /** 1..5 when `rf` is exactly a table channel, else null (custom or unknown). */
  channel_id: number | null;
  channel_name: string | null;
  /** "EU868 ch 2 · 868.2 MHz" or "custom · …", null when unknown. */
  channel: string | null;
  migration: NetworkMigration | null;
  /** Its gateway is attached on other radio settings: no traffic until resolved. */
  conflict: { gateway_rf: RfConfig; fields: string[] } | null;
  /** Its gateway's USB link keeps being lost (flapping): reconnects are slowed down. */
  link_unstable: LinkStability | null;
}

export interface UnassignedGateway {
  label: string;
  gateway_mac: string | null;
  /** Connected and identified (it carries nothing until assigned): `connected` in `GET /api/gateways`. */
  ready: boolean;
  rf: RfConfig | null;
  channel: string | null;
  /** Unknown nodes heard announcing through it. */
  unknown_heard: number;
}

export interface GatewayRow {
  mac: string;
  port: string | null;
  transport: string | null;
  /** Carries its network's traffic: connected and bound (the `unassigned` list's `ready` is `connected`). */
  ready: boolean;
  /** Its USB/TCP link is up and it identified itself, whether or not it carries traffic. */
  connected: boolean;
  bind_state: BindState | 'missing';
  network_id: number | null;
  network_name: string | null;
  rf_actual: RfConfig | null;
  rf_expected: RfConfig | null;
  conflict_fields: string[];
  channel: string | null;
  unknown_heard: number;
  last_error: string | null;
  next_retry_in_s: number | null;
  /** The USB link keeps being lost (flapping): reconnects are slowed down. */
  link_unstable: LinkStability | null;
}

/** As the gateway snapshot shows them (MasterView): airtime in whole ms. */
function roundedStats(driver: GatewayDriver): ReturnType<GatewayDriver['stats']> {
  const s = driver.stats();
  return { ...s, airtimeMs: Math.round(s.airtimeMs) };
}

const channelFields = (
  rf: RfConfig | null,
): Pick<NetworkRow, 'region' | 'channel_id' | 'channel_name' | 'channel'> => {
  const c = rf ? channelOf(rf) : null;
  return {
    region: c?.region ?? null,
    channel_id: c?.id ?? null,
    channel_name: c?.name ?? null,
    channel: rf ? describeRf(rf) : null,
  };
};

export function networkRow(state: StateModel, binder: GatewayBinder, n: Network): NetworkRow {
  const at = binder.slotOfNetwork(n.id);
  const slot = at && at.slot.mac === n.gateway_mac ? at.slot : null;
  const readiness = slot?.driver.readiness() ?? null;
  let devices = 0;
  let online = 0;
  for (const d of state.devices) {
    if (d.network_id !== n.id) continue;
    devices++;
    if (d.online) online++;
  }
  const gatewayRf = slot ? binder.rfOf(slot) : null;
  const conflict =
    slot?.state === 'conflict' && gatewayRf && n.rf
      ? { gateway_rf: gatewayRf, fields: rfDifferences(n.rf, gatewayRf) }
      : null;
  return {
    id: n.id,
    name: n.name,
    gateway_mac: n.gateway_mac,
    state: !slot
      ? n.gateway_mac === null
        ? 'no_gateway'
        : 'missing'
      : conflict
        ? 'conflict'
        : readiness?.ready
          ? 'ready'
          : 'not_ready',
    gateway: slot && readiness ? { ...readiness, stats: roundedStats(slot.driver) } : null,
    device_count: devices,
    online_count: online,
    rf: n.rf,
    ...channelFields(n.rf),
    migration: n.migration,
    conflict,
    link_unstable: slot?.driver.linkStability?.() ?? null,
  };
}

export function unassignedRows(binder: GatewayBinder): UnassignedGateway[] {
  return binder.slots
    .filter((s) => !s.retired && (s.state === 'unassigned' || s.state === 'pending'))
    .filter((s) => s.networkId === null)
    .map((s) => {
      const r = s.driver.readiness();
      const rf = binder.rfOf(s);
      return {
        label: s.label,
        gateway_mac: s.mac,
        ready: r.ready,
        rf,
        channel: rf ? describeRf(rf) : null,
        unknown_heard: s.heard.size,
      };
    });
}

function slotRow(state: StateModel, binder: GatewayBinder, s: GatewaySlot): GatewayRow | null {
  if (!s.mac) return null;
  const r = s.driver.readiness();
  const net = s.networkId === null ? null : (state.networks.find((n) => n.id === s.networkId) ?? null);
  const rf = binder.rfOf(s);
  return {
    mac: s.mac,
    port: r.port ?? s.label,
    transport: r.transport,
    ready: r.ready && s.state === 'bound',
    connected: r.ready,
    bind_state: s.state,
    network_id: net?.id ?? null,
    network_name: net?.name ?? null,
    rf_actual: rf,
    rf_expected: net?.rf ?? null,
    conflict_fields: s.state === 'conflict' && rf && net?.rf ? rfDifferences(net.rf, rf) : [],
    channel: rf ? describeRf(rf) : null,
    unknown_heard: s.heard.size,
    // Connected but holding its traffic: say why (the driver itself has no error).
    last_error: r.ready && s.state !== 'bound' ? s.reason : r.last_error,
    next_retry_in_s: r.next_retry_in_s,
    link_unstable: s.driver.linkStability?.() ?? null,
  };
}

export function gatewayRows(state: StateModel, binder: GatewayBinder): GatewayRow[] {
  const rows = binder.slots.flatMap((s) => slotRow(state, binder, s) ?? []);
  const attached = new Set(rows.map((r) => r.mac));
  for (const n of state.networks) {
    if (n.gateway_mac === null || attached.has(n.gateway_mac)) continue;
    rows.push({
      mac: n.gateway_mac,
      port: null,
      transport: null,
      ready: false,
      connected: false,
      bind_state: 'missing',
      network_id: n.id,
      network_name: n.name,
      rf_actual: null,
      rf_expected: n.rf,
      conflict_fields: [],
      channel: n.rf ? describeRf(n.rf) : null,
      unknown_heard: 0,
      last_error: `gateway of ${n.name} not connected`,
      next_retry_in_s: null,
      link_unstable: null,
    });
  }
  return rows;
}

export function channelTable(networks: readonly Network[]): {
  regions: Record<
    RfRegion,
    {
      id: number;
      name: string;
      freq_hz: number;
      rf: RfConfig;
      note: string;
      occupied_by: { id: number; name: string } | null;
    }[]
  >;
  rule: { min_separation_hz: number; guard_hz: number; text: string };
} {
  const regions = Object.fromEntries(
    RF_REGIONS.map((region) => [
      region,
      RF_CHANNELS.filter((c) => c.region === region).map((c) => {
        // Occupied = a network on it or too close to it (picking it would be refused).
        const o = networks.find((n) => n.rf !== null && tooClose(n.rf, c.rf));
        return {
          id: c.id,
          name: c.name,
          freq_hz: c.rf.freqHz,
          rf: c.rf,
          note: c.note,
          occupied_by: o ? { id: o.id, name: o.name } : null,
        };
      }),
    ]),
  ) as ReturnType<typeof channelTable>['regions'];
  return {
    regions,
    rule: {
      min_separation_hz: MIN_SEPARATION_HZ,
      guard_hz: BAND_GUARD_HZ,
      text:
        'two networks need at least 500 kHz between their centre frequencies, and their bands ' +
        'may not overlap (half of each bandwidth plus 250 kHz guard); another sync word alone ' +
        'does not separate them',
    },
  };
}
