/**
 * The networks' wiring to the rest of the host: the Radio every service talks to and the
 * per-network router of scenes, Blackout and the race start; the gateway an RF task takes;
 * their bind and readiness news become the `networks` SSE event (coalesced to at most 4 a
 * second, wall time like the SSE hub's other coalescing), and a reload or restore (scope
 * FULL: new records) re-runs the binding.
 */
import { isLeasable, type LeasableDriver } from '../gateway/lease.ts';
import { networkRouter, type NetworkRouter } from '../gateway/network-parts.ts';
import { Radio, type RadioGateway } from '../gateway/radio/radio.ts';
import type { DeviceRegistry } from '../services/devices/index.ts';
import type { AppServices } from '../services/index.ts';
import type { Store } from '../state/store.ts';

/**
 * Services get the Radio. With one gateway serving its network it passes every call
 * straight through (today's behaviour); it exists so that a swapped or conflicting gateway
 * carries no traffic and a gateway found while running can be added.
 */
export function buildRadio(
  gateways: readonly RadioGateway[],
  store: Store,
  registry: () => DeviceRegistry | null,
): { radio: Radio; router: NetworkRouter } {
  const radio = new Radio(gateways, {
    networks: () => store.state.networks,
    hasDevices: (id) => store.state.devices.some((d) => d.network_id === id),
    networkOf: (addr) => registry()?.find(addr)?.network_id ?? null,
    networksOfGroup: (g) => [
      ...new Set(store.state.devices.filter((d) => d.groupId === g).map((d) => d.network_id)),
    ],
  });
  // Scenes, Blackout and the race start send per network (several gateways). A network
  // counts once it has a gateway or devices: an empty new one is not "missing".
  const router = networkRouter(radio, () =>
    store.state.networks.filter(
      (n) => n.gateway_mac !== null || store.state.devices.some((dv) => dv.network_id === n.id),
    ),
  );
  return { radio, router };
}

/**
 * The gateway an RF task (scan, rescue, migration) takes for a network: the one bound to it,
 * or attached but held for it (a conflict being resolved by moving the nodes to the
 * gateway's channel); with one gateway and one network, that gateway even before it
 * identified itself (a migration resuming at start).
 */
export function rfTaskGateway(radio: Radio, store: Store): (networkId: number) => LeasableDriver | null {
  return (id) => {
    const live = radio.live();
    const d =
      radio.gatewayFor(id) ??
      (live.length === 1 && store.state.networks.length === 1 ? live[0]!.driver : null);
    return d && isLeasable(d) ? d : null;
  };
}

/** ≤ 4 events a second however fast gateways flap or unknown nodes announce. */
export const NETWORKS_EVENT_MS = 250;

export function wireNetworksEvents(svc: AppServices): () => void {
  let timer: NodeJS.Timeout | null = null;
  const flush = (): void => {
    timer = null;
    const { networks, unassigned, alerts } = svc.networks.list();
    svc.bus.emit('networks', { networks, unassigned, alerts });
  };
  const offs = [
    svc.networks.onChange(() => {
      timer ??= setTimeout(flush, NETWORKS_EVENT_MS);
    }),
    svc.bus.on('scopes', (scopes) => {
      if (scopes.includes('FULL')) svc.networks.rebind();
    }),
  ];
  return () => {
    offs.forEach((off) => off());
    if (timer) clearTimeout(timer);
  };
}
