/**
 * The networks capability: binds each gateway to its network when the gateway identifies
 * itself, and lists the networks for `GET /api/networks`.
 *
 * Binding (domain/networks.ts): a network naming the gateway's MAC wins; otherwise the only
 * network without a gateway takes it when it is the only gateway configured (a migrated
 * single-gateway install binds to the gateway it already uses). On an empty data folder
 * every gateway found at start becomes its own network, named, with the radio settings read
 * from the gateway. Anything else stays unassigned and carries no traffic (choosing is the
 * channel-plan work's operator step). A network without radio settings adopts its gateway's.
 */
import type { GatewayDriver, GatewayReadiness } from '../../gateway/types.ts';
import type { Radio } from '../../gateway/radio.ts';
import type { Logger } from '../../logger.ts';
import type { RfConfig } from '../../protocol/types.ts';
import {
  bindGateway,
  defaultNetworkName,
  nextNetworkId,
  normalizeGatewayMac,
  type Network,
} from '../../domain/networks.ts';
import type { Store } from '../../state/store.ts';

export interface NetworkGateway {
  driver: GatewayDriver;
  /** Port or address the gateway was opened on. */
  label: string;
}

export interface NetworkRow {
  id: number;
  name: string;
  gateway_mac: string | null;
  /** ready · not_ready (attached, not ready) · missing (its gateway is not attached) · no_gateway */
  state: 'ready' | 'not_ready' | 'missing' | 'no_gateway';
  gateway: (GatewayReadiness & { stats: ReturnType<GatewayDriver['stats']> }) | null;
  device_count: number;
  online_count: number;
  /** What the network's nodes are tuned to (null until its gateway reported it). */
  rf: RfConfig | null;
}

export interface UnassignedGateway {
  label: string;
  gateway_mac: string | null;
  ready: boolean;
  rf: RfConfig | null;
}

export interface NetworksService {
  list(): { networks: NetworkRow[]; unassigned: UnassignedGateway[] };
  /**
   * Health warnings with several gateways: a network whose gateway is missing or not ready,
   * a gateway that belongs to no network. None with one gateway (its state is the gateway's).
   */
  warnings(): string[];
  /** The network a gateway (by configured index) serves, or null. */
  networkOfGateway(index: number): number | null;
  /** Subscribes to the gateways; call before they start (their first connect binds them). */
  attach(): () => void;
}

export function createNetworks(deps: {
  store: Store;
  gateways: readonly NetworkGateway[];
  /** The router with several gateways; null with one (the driver is used directly). */
  radio: Radio | null;
  log: Logger;
}): NetworksService {
  const { store, gateways, radio, log } = deps;
  const bound = new Map<number, number>();
  const warned = new Set<string>();
  // Decided at attach (after the state is loaded), before anything is bound: an empty data
  // folder gives every gateway its own network.
  let fresh = false;

  const onIdentified = (index: number, mac: string, rf: RfConfig | null): void => {
    const networks = store.state.networks;
    // Two ports answering with one MAC (a misconfigured list, or two sims with one MAC): the
    // first keeps the network, the other carries nothing.
    const twin = [...bound].find(
      ([i, id]) => i !== index && networks.find((n) => n.id === id)?.gateway_mac === mac,
    );
    if (twin) {
      bound.delete(index);
      radio?.bind(index, null);
      log.error(
        { gateway_mac: mac, port: gateways[index]?.label, other: gateways[twin[0]]?.label },
        'two gateways answer with the same MAC: the second carries no traffic',
      );
      return;
    }
    let decision = bindGateway(networks, mac, gateways.length);
    if (decision.kind === 'unassigned' && fresh) {
      const free = networks.find((n) => n.gateway_mac === null);
      decision = free ? { kind: 'adopt', networkId: free.id } : { kind: 'adopt', networkId: 0 };
    }
    if (decision.kind === 'unassigned') {
      bound.delete(index);
      radio?.bind(index, null);
      if (!warned.has(mac)) {
        warned.add(mac);
        log.warn(
          { gateway_mac: mac, port: gateways[index]?.label },
          radio
            ? 'gateway belongs to no network: it carries no traffic'
            : 'gateway belongs to no network (the only gateway: it serves every device as before)',
        );
      }
      return;
    }
    const existing = networks.find((n) => n.id === decision.networkId);
    const needs = !existing || existing.gateway_mac !== mac || (existing.rf === null && rf !== null);
    const net = !needs
      ? existing
      : store.mutate(['NETWORKS'], (state) => {
          let n = state.networks.find((x) => x.id === decision.networkId);
          if (!n) {
            const id = nextNetworkId(state.networks, state.next_ids?.networks);
            n = { id, name: uniqueName(state.networks, id), gateway_mac: null, rf: null, migration: null };
            state.networks.push(n);
            state.next_ids = { native_presets: 0, scenes: 0, ...state.next_ids, networks: id + 1 };
          }
          n.gateway_mac = mac;
          if (n.rf === null && rf !== null) n.rf = { ...rf };
          return n;
        });
    if (needs)
      log.info({ network: net.id, name: net.name, gateway_mac: mac }, 'gateway bound to its network');
    bound.set(index, net.id);
    radio?.bind(index, net.id);
  };

  const networkRow = (n: Network): NetworkRow => {
    const index = [...bound].find(([, id]) => id === n.id)?.[0];
    const driver = index === undefined ? null : (gateways[index]?.driver ?? null);
    const readiness = driver?.readiness() ?? null;
    let devices = 0;
    let online = 0;
    for (const d of store.state.devices) {
      if (d.network_id !== n.id) continue;
      devices++;
      if (d.online) online++;
    }
    return {
      id: n.id,
      name: n.name,
      gateway_mac: n.gateway_mac,
      state: readiness
        ? readiness.ready
          ? 'ready'
          : 'not_ready'
        : n.gateway_mac === null
          ? 'no_gateway'
          : 'missing',
      gateway: driver && readiness ? { ...readiness, stats: roundedStats(driver) } : null,
      device_count: devices,
      online_count: online,
      rf: n.rf,
    };
  };

  return {
    list() {
      const unassigned = gateways
        .map((g, i) => ({ g, i }))
        .filter(({ i }) => !bound.has(i))
        .map(({ g }) => {
          const r = g.driver.readiness();
          const s = g.driver.radioSettings();
          return {
            label: g.label,
            gateway_mac: r.gateway_mac,
            ready: r.ready,
            rf: s.source === 'gateway' ? s.rf : null,
          };
        });
      return { networks: store.state.networks.map(networkRow), unassigned };
    },
    networkOfGateway: (index) => bound.get(index) ?? null,
    warnings() {
      if (gateways.length < 2) return [];
      const { networks, unassigned } = this.list();
      return [
        ...networks
          .filter((n) => n.state === 'missing' || n.state === 'not_ready')
          .map((n) => `network ${n.name}: gateway ${n.state === 'missing' ? 'not connected' : 'not ready'}`),
        ...unassigned
          .filter((g) => g.gateway_mac !== null)
          .map(
            (g) => `gateway ${g.gateway_mac ?? ''} on ${g.label} belongs to no network (carries no traffic)`,
          ),
      ];
    },
    attach() {
      fresh = store.state.devices.length === 0 && store.state.networks.every((n) => n.gateway_mac === null);
      const offs = gateways.map((g, i) =>
        g.driver.on('readiness', (r) => {
          const mac = r.ready ? normalizeGatewayMac(r.gateway_mac) : null;
          if (!mac) return;
          const s = g.driver.radioSettings();
          onIdentified(i, mac, s.source === 'gateway' ? s.rf : null);
        }),
      );
      return () => offs.forEach((off) => off());
    },
  };
}

function uniqueName(networks: readonly Network[], id: number): string {
  const taken = new Set(networks.map((n) => n.name.toLowerCase()));
  for (let k = id; ; k++) if (!taken.has(defaultNetworkName(k).toLowerCase())) return defaultNetworkName(k);
}

/** As the gateway snapshot shows them (MasterView): airtime in whole ms. */
function roundedStats(driver: GatewayDriver): ReturnType<GatewayDriver['stats']> {
  const s = driver.stats();
  return { ...s, airtimeMs: Math.round(s.airtimeMs) };
}
