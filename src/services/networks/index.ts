/**
 * The networks capability: binds each gateway to its network (binding.ts), lists networks,
 * gateways and the channel plan (views.ts), lets the operator create, rename and delete
 * networks (records.ts) and assign, release, retune or adopt gateways (actions.ts), and
 * tells the devices of a network whose gateway is missing that they are unreachable.
 *
 * With one gateway serving network 1 nothing here changes what a single-gateway user sees:
 * the Radio passes everything through, rows keep today's fields and states.
 */
import type { Clock } from '../../clock.ts';
import type { LinkStability } from '../../gateway/link-stability.ts';
import type { Radio } from '../../gateway/radio/radio.ts';
import type { Logger } from '../../logger.ts';
import type { Device } from '../../domain/model.ts';
import type { Addr } from '../../protocol/types.ts';
import type { Network } from '../../domain/networks.ts';
import type { Store } from '../../state/store.ts';
import type { NetworkAlert, NetworkAlerts } from '../devices/index.ts';
import {
  adoptGatewayRf,
  assignGateway,
  pinnedAddrs,
  releaseGateway,
  retuneGateway,
  type ActionDeps,
  type AssignInput,
} from './actions.ts';
import { GatewayBinder } from './binding.ts';
import { createNetwork, deleteNetwork, renameNetwork, type CreateNetworkInput } from './records.ts';
import {
  channelTable,
  gatewayRows,
  networkRow,
  unassignedRows,
  type GatewayRow,
  type NetworkRow,
  type UnassignedGateway,
} from './views.ts';

export type { GatewayRow, NetworkRow, UnassignedGateway } from './views.ts';

/** A network's devices turn unreachable only after this long without their gateway (no flapping). */
export const UNREACHABLE_AFTER_MS = 5000;

export interface NetworksList {
  networks: NetworkRow[];
  unassigned: UnassignedGateway[];
  /** Devices that moved network, addresses claimed by two nodes (newest last). */
  alerts: readonly NetworkAlert[];
}

export interface NetworksService {
  list(): NetworksList;
  gateways(): GatewayRow[];
  channels(): ReturnType<typeof channelTable>;
  create(input: CreateNetworkInput): Promise<NetworkRow>;
  rename(id: number, name: string): Promise<NetworkRow>;
  remove(id: number): Promise<void>;
  assign(
    mac: string,
    input: AssignInput,
  ): Promise<{ gateway: GatewayRow | null; network: NetworkRow; pinned: Addr[] }>;
  release(mac: string): Promise<{ gateway: GatewayRow | null; network: NetworkRow | null }>;
  retune(id: number): Promise<{ network: NetworkRow; gateway: GatewayRow | null }>;
  adopt(id: number): Promise<{ network: NetworkRow; gateway: GatewayRow | null; stranded: number }>;
  /** Health warnings: missing, conflicting, unassigned gateways; moves and address clashes. */
  warnings(): string[];
  /** Re-runs the binding against the stored records (after a reload or restore). */
  rebind(): void;
  /** Binding, SSE or device-row news: the bind state or readiness of a gateway changed. */
  onChange(fn: () => void): () => void;
  /** Subscribes to the gateways; call before they start (their first connect binds them). */
  attach(): () => void;
  /** Starts binding a gateway the Radio gained while running. */
  added(index: number): () => void;
}

export function createNetworks(deps: {
  store: Store;
  radio: Radio;
  clock: Clock;
  log: Logger;
  /** The device registry's face the networks need (alerts, unreachable rows). */
  registry: {
    find(addr: Addr): Device | undefined;
    networkAlerts: NetworkAlerts;
    reachability: ((d: Device) => string | null) | null;
  };
}): NetworksService {
  const { store, radio, clock, log, registry } = deps;
  const binder = new GatewayBinder(store, radio, log, (a) => registry.find(a) !== undefined);
  const act: ActionDeps = { store, binder, clock, log };
  const listeners = new Set<() => void>();
  /** Network id → since when its gateway cannot carry traffic. */
  const downSince = new Map<number, number>();
  const timers = new Map<number, { cancel(): void }>();

  const state = () => store.state;
  const row = (n: Network): NetworkRow => networkRow(state(), binder, n);
  const gatewayOf = (mac: string | null): GatewayRow | null =>
    mac === null ? null : (gatewayRows(state(), binder).find((g) => g.mac === mac) ?? null);

  /** Why a network cannot be reached, or null (several gateways, or its gateway swapped/conflicting). */
  const downReason = (r: NetworkRow): string | null => {
    if (r.state === 'missing') return `gateway of ${r.name} not connected`;
    if (r.state === 'conflict') return `gateway of ${r.name} is on other radio settings (conflict)`;
    // With one network, a migrated install waits for its gateway as it always did.
    if (r.state === 'no_gateway' && r.device_count > 0 && state().networks.length > 1)
      return `${r.name} has no gateway assigned`;
    // One gateway losing its link is today's single-gateway story (nodes keep their own state).
    if (r.state === 'not_ready' && radio.multi) return `gateway of ${r.name} not connected`;
    return null;
  };

  const refreshDevices = (): void => {
    store.changed(['DEVICES'], 'lazy');
  };

  const track = (): void => {
    const now = clock.now();
    for (const n of state().networks) {
      const down = downReason(row(n)) !== null;
      if (down && !downSince.has(n.id)) {
        downSince.set(n.id, now);
        timers.set(
          n.id,
          clock.setTimeout(() => {
            timers.delete(n.id);
            // The reason as it is now (a gateway that is connected but tuned elsewhere is
            // not "not connected"), in the same words the devices' offline reason gives.
            const current = state().networks.find((x) => x.id === n.id);
            const why = current ? downReason(row(current)) : null;
            log.warn(
              { network: n.id, name: n.name },
              `${why ?? `gateway of ${n.name} not connected`}: its devices are unreachable`,
            );
            refreshDevices();
            emit();
          }, UNREACHABLE_AFTER_MS),
        );
      } else if (!down && downSince.has(n.id)) {
        const since = downSince.get(n.id) ?? now;
        downSince.delete(n.id);
        timers.get(n.id)?.cancel();
        timers.delete(n.id);
        if (now - since >= UNREACHABLE_AFTER_MS) {
          log.info(
            { network: n.id, name: n.name },
            `gateway of ${n.name} back: its devices are reachable again`,
          );
          refreshDevices();
        }
      }
    }
  };

  const emit = (): void => {
    for (const fn of listeners) fn();
  };

  registry.reachability = (d) => {
    const since = downSince.get(d.network_id);
    if (since === undefined || clock.now() - since < UNREACHABLE_AFTER_MS) return null;
    const n = state().networks.find((x) => x.id === d.network_id);
    return n ? downReason(row(n)) : null;
  };
  registry.networkAlerts.onAlert = emit;

  const networkName = (id: number): string =>
    state().networks.find((n) => n.id === id)?.name ?? `network ${id}`;

  return {
    list: () => ({
      networks: state().networks.map(row),
      unassigned: unassignedRows(binder),
      alerts: registry.networkAlerts.all(),
    }),
    gateways: () => gatewayRows(state(), binder),
    channels: () => channelTable(state().networks),
    async create(input) {
      const n = await createNetwork(store, input);
      log.info({ network: n.id, name: n.name }, 'network created');
      emit();
      return row(n);
    },
    async rename(id, name) {
      const n = await renameNetwork(store, id, name);
      emit();
      return row(n);
    },
    async remove(id) {
      await deleteNetwork(store, id);
      log.info({ network: id }, 'network deleted');
      emit();
    },
    async assign(mac, input) {
      const { network, pinned } = await assignGateway(act, mac, input);
      track();
      emit();
      return { gateway: gatewayOf(network.gateway_mac), network: row(network), pinned };
    },
    async release(mac) {
      const net = await releaseGateway(act, mac);
      track();
      emit();
      const m = mac.replace(/[:\-\s]/g, '').toUpperCase();
      return { gateway: gatewayOf(m), network: net ? row(net) : null };
    },
    async retune(id) {
      const n = await retuneGateway(act, id);
      return { network: row(n), gateway: gatewayOf(n.gateway_mac) };
    },
    async adopt(id) {
      const { network, stranded } = await adoptGatewayRf(act, id);
      track();
      emit();
      return { network: row(network), gateway: gatewayOf(network.gateway_mac), stranded };
    },
    warnings() {
      const out: string[] = [];
      for (const r of state().networks.map(row)) {
        if (r.state === 'missing')
          out.push(`network ${r.name}: gateway ${r.gateway_mac ?? ''} not connected`);
        else if (r.state === 'conflict')
          out.push(
            `network ${r.name}: its gateway is on other radio settings (${r.conflict?.fields.join(', ') ?? ''} differ): resolve the conflict`,
          );
        else if (r.state === 'not_ready' && radio.multi) out.push(`network ${r.name}: gateway not ready`);
        if (r.link_unstable) out.push(unstableText(r.name, r.link_unstable));
      }
      for (const g of unassignedRows(binder))
        if (g.gateway_mac !== null)
          out.push(
            `gateway ${g.gateway_mac} on ${g.label} belongs to no network (carries no traffic; ${g.unknown_heard} unknown node(s) heard): assign it`,
          );
      for (const a of registry.networkAlerts.all()) {
        if (a.kind === 'addr_clash')
          out.push(
            `address clash: node ${a.other_mac ?? '?'} on ${networkName(a.to_network)} announces address ${a.addr}, which belongs to ${a.mac} on ${networkName(a.from_network)} (not applied)`,
          );
        else
          out.push(
            `device ${a.addr} moved from ${networkName(a.from_network)} to ${networkName(a.to_network)}`,
          );
      }
      return out;
    },
    rebind() {
      binder.evaluateAll();
      track();
      emit();
    },
    onChange(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    attach() {
      const offs = [
        binder.start(),
        binder.onChange(() => {
          track();
          emit();
        }),
      ];
      return () => {
        offs.forEach((off) => off());
        for (const t of timers.values()) t.cancel();
        timers.clear();
        registry.reachability = null;
        registry.networkAlerts.onAlert = null;
      };
    },
    added: (index) => binder.added(index),
  };
}

export { pinnedAddrs };

/** The warning (Health, log) for a flapping gateway link; the UI banner says the same. */
export function unstableText(name: string, u: LinkStability): string {
  const window = u.window_s === 60 ? 'minute' : `${u.window_s} s`;
  return `gateway of ${name} lost its link ${u.losses} time${u.losses === 1 ? '' : 's'} in the last ${window} — check the USB cable, hub and power (reconnects wait ${u.reconnect_min_s} s until it is stable)`;
}
