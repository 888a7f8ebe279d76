/**
 * The operator's gateway steps (design §2.2, §2.7; issue 27 "a new or swapped gateway"):
 * assign an unassigned gateway (as the replacement of a missing network's gateway, or as a
 * new network), release a gateway from its network, and resolve an RF conflict by retuning
 * the gateway to the network (persisted on the gateway, answered once it is back) or by
 * adopting the gateway's settings into the record (confirmed: it strands the nodes that
 * are still on the recorded channel). Moving the nodes to the gateway's channel is the
 * `rf_migration` task (rf-moves), not here.
 */
import type { Clock } from '../../clock.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import type { Addr } from '../../protocol/types.ts';
import { normalizeGatewayMac, type Network } from '../../domain/networks.ts';
import { describeRf, sameRf } from '../../domain/rf-channels.ts';
import type { Store } from '../../state/store.ts';
import type { GatewayBinder, GatewaySlot } from './binding.ts';
import { checkName, checkRfSeparation, createNetworkRecord, requireNetwork } from './records.ts';

/** configByte bit 1: master persistence — the node ignores every other gateway, even after a reboot (W§8.3). */
export const MASTER_PERSIST_BIT = 0x02;
/** How long a retuned gateway may take to reboot and identify again. */
export const GATEWAY_BACK_MS = 20_000;

export type AssignInput = { network_id: number } | { new_network: { name: string } };

export interface ActionDeps {
  store: Store;
  binder: GatewayBinder;
  clock: Clock;
  log: Logger;
}

/** Devices of a network with master persistence on (they will ignore a replacement gateway). */
export function pinnedAddrs(store: Store, networkId: number): Addr[] {
  return store.state.devices
    .filter((d) => d.network_id === networkId && (d.configByte & MASTER_PERSIST_BIT) !== 0)
    .map((d) => d.addr);
}

function attachedSlot(
  binder: GatewayBinder,
  rawMac: string,
): { slot: GatewaySlot; index: number; mac: string } {
  const mac = normalizeGatewayMac(rawMac);
  if (!mac) throw new ValidationError(`mac: must be 12 hex characters, got ${JSON.stringify(rawMac)}`);
  const at = binder.slotOf(mac);
  if (!at) throw new NotFoundError(`no gateway ${mac} is attached`);
  return { ...at, mac };
}

export async function assignGateway(
  deps: ActionDeps,
  rawMac: string,
  input: AssignInput,
): Promise<{ network: Network; pinned: Addr[] }> {
  const { store, binder, log } = deps;
  const { slot, index, mac } = attachedSlot(binder, rawMac);
  if (slot.state === 'bound')
    throw new ConflictError(`gateway ${mac} already serves network ${slot.networkId}: release it first`);
  const rf = binder.rfOf(slot);
  let network: Network;
  if ('network_id' in input) {
    const target = requireNetwork(store, input.network_id);
    const serving = binder.slotOfNetwork(target.id);
    if (
      serving &&
      serving.index !== index &&
      serving.slot.state === 'bound' &&
      serving.slot.mac === target.gateway_mac
    )
      throw new ConflictError(
        `${target.name}'s gateway ${target.gateway_mac} is attached and serving it: release it first`,
      );
    if (target.rf === null && rf !== null)
      checkRfSeparation(store.state.networks, target.id, target.name, rf);
    const old = target.gateway_mac;
    network = await store.commit(['NETWORKS'], (state) => {
      // The MAC leaves any other network (a conflict elsewhere, a stale record).
      for (const n of state.networks) if (n.gateway_mac === mac && n.id !== target.id) n.gateway_mac = null;
      target.gateway_mac = mac;
      if (target.rf === null && rf !== null) target.rf = { ...rf };
      return target;
    });
    log.info({ network: target.id, name: target.name, gateway_mac: mac, replaced: old }, 'gateway assigned');
  } else {
    if (!rf) throw new ConflictError(`gateway ${mac} has not reported its radio settings yet: try again`);
    const name = checkName(store.state.networks, input.new_network.name, null, 'new_network.name');
    checkRfSeparation(store.state.networks, null, name, rf);
    network = await createNetworkRecord(store, name, mac, rf);
    log.info({ network: network.id, name, gateway_mac: mac }, 'gateway assigned to a new network');
  }
  binder.assigned(mac);
  binder.evaluateAll();
  return { network, pinned: pinnedAddrs(store, network.id) };
}

export async function releaseGateway(deps: ActionDeps, rawMac: string): Promise<Network | null> {
  const { store, binder, log } = deps;
  const mac = normalizeGatewayMac(rawMac);
  if (!mac) throw new ValidationError(`mac: must be 12 hex characters, got ${JSON.stringify(rawMac)}`);
  const net = store.state.networks.find((n) => n.gateway_mac === mac) ?? null;
  if (!net && !binder.slotOf(mac)) throw new NotFoundError(`no gateway ${mac} is attached or assigned`);
  if (net) {
    await store.commit(['NETWORKS'], () => {
      net.gateway_mac = null;
    });
    log.info({ network: net.id, name: net.name, gateway_mac: mac }, 'gateway released from its network');
  }
  binder.release(mac);
  binder.evaluateAll();
  return net;
}

function conflictOf(deps: ActionDeps, networkId: number): { net: Network; slot: GatewaySlot; index: number } {
  const net = requireNetwork(deps.store, networkId);
  const at = deps.binder.slotOfNetwork(networkId);
  if (!at || at.slot.mac !== net.gateway_mac)
    throw new ConflictError(`${net.name}'s gateway is not attached`);
  return { net, ...at };
}

/** Resolves when `ok()` holds after a binder change, or rejects after `ms` (never a fixed sleep). */
function waitFor(deps: ActionDeps, ok: () => boolean, ms: number, what: string): Promise<void> {
  if (ok()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = deps.clock.setTimeout(() => {
      off();
      reject(new ConflictError(`${what} within ${ms / 1000} s`));
    }, ms);
    const off = deps.binder.onChange(() => {
      if (!ok()) return;
      timer.cancel();
      off();
      resolve();
    });
  });
}

export async function retuneGateway(deps: ActionDeps, networkId: number): Promise<Network> {
  const { net, slot } = conflictOf(deps, networkId);
  const target = net.rf;
  if (!target)
    throw new ConflictError(`${net.name} has no radio settings on record to retune its gateway to`);
  const actual = deps.binder.rfOf(slot);
  if (slot.state === 'bound' && actual && sameRf(actual, target)) return net;
  const mac = slot.mac;
  const r = await slot.driver.setGatewayRf(target, true);
  if (!r.ok) throw new ConflictError(`gateway ${mac ?? '?'} refused the retune: ${r.detail}`);
  deps.log.info(
    { network: net.id, gateway_mac: mac, rf: describeRf(target) },
    'gateway retuned to its network',
  );
  // The gateway stores the settings and reboots; the answer waits until it is back, bound.
  await waitFor(
    deps,
    () => {
      const at = deps.binder.slotOfNetwork(net.id);
      const rf = at ? deps.binder.rfOf(at.slot) : null;
      return (
        !!at && at.slot.state === 'bound' && at.slot.driver.readiness().ready && !!rf && sameRf(rf, target)
      );
    },
    GATEWAY_BACK_MS,
    `gateway ${mac ?? '?'} was retuned but did not come back on ${describeRf(target)}`,
  );
  return net;
}

export async function adoptGatewayRf(
  deps: ActionDeps,
  networkId: number,
): Promise<{ network: Network; stranded: number }> {
  const { store, binder, log } = deps;
  const { net, slot } = conflictOf(deps, networkId);
  const rf = binder.rfOf(slot);
  if (!rf) throw new ConflictError(`${net.name}'s gateway has not reported its radio settings`);
  if (slot.state !== 'conflict') throw new ConflictError(`${net.name} has no radio conflict to resolve`);
  checkRfSeparation(store.state.networks, net.id, net.name, rf);
  const stranded = store.state.devices.filter((d) => d.network_id === net.id).length;
  await store.commit(['NETWORKS'], () => {
    net.rf = { ...rf };
    net.migration = null;
  });
  log.warn(
    { network: net.id, rf: describeRf(rf), devices: stranded },
    `${net.name} adopted its gateway's radio settings: its nodes still on the old channel are stranded`,
  );
  binder.evaluateAll();
  return { network: net, stranded };
}
