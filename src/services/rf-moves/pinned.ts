/**
 * Pinned nodes: master persistence on (configByte bit 1). Such a node restores its master
 * (the gateway's address) from flash at every boot and then ignores every other gateway
 * (W§8.3): after a gateway swap it would never rejoin. Listed before a swap, and unpinned
 * through the gateway that still reaches them — CONFIG 0x03 = 0 (persistence off), then
 * CONFIG 0x02 (forget the master now), so the next gateway's SET_GROUP binds it.
 *
 * The list is as fresh as the last STATUS of each node (`stale` when never heard in this
 * process); the new gateway binds an unpinned node through the recovery sweep.
 */
import type { Device } from '../../domain/model.ts';
import { CONFIG_BYTE } from '../../protocol/flags.ts';
import type { Addr } from '../../protocol/types.ts';
import { ValidationError } from '../../errors.ts';
import { networkOf, type RfMovesDeps } from './common.ts';

export interface PinnedRow {
  addr: Addr;
  name: string;
  online: boolean;
  /** Not heard since the host started: its persistence bit may be out of date. */
  stale: boolean;
}

export interface UnpinResult {
  network_id: number;
  unpinned: Addr[];
  failed: { addr: Addr; error: string }[];
  pinned_left: PinnedRow[];
}

const isPinned = (d: Device): boolean => (d.configByte & CONFIG_BYTE.MASTER_PERSIST) !== 0;

export function pinned(deps: RfMovesDeps, networkId: number): PinnedRow[] {
  networkOf(deps.store, networkId);
  return deps.store.state.devices
    .filter((d) => d.network_id === networkId && isPinned(d))
    .map((d) => ({ addr: d.addr, name: d.name, online: d.online, stale: d.last_seen_ts === 0 }));
}

export async function unpin(deps: RfMovesDeps, networkId: number, addrs?: Addr[]): Promise<UnpinResult> {
  const net = networkOf(deps.store, networkId);
  const list = addrs ?? pinned(deps, networkId).map((p) => p.addr);
  for (const a of list) {
    const d = deps.registry.find(a);
    if (!d) throw new ValidationError(`addrs: no device ${a}`);
    if (d.network_id !== net.id)
      throw new ValidationError(`addrs: device ${a} is not on network ${net.name}`);
  }
  const unpinned: Addr[] = [];
  const failed: UnpinResult['failed'] = [];
  // One node at a time: each is two acknowledged CONFIG exchanges (≈ 0.5 s).
  for (const a of list) {
    const off = await deps.driver.config(a, 0x03, [0, 0, 0, 0], { priority: 'interactive' });
    if (!off.ok || (off.value && !off.value.ok)) {
      failed.push({ addr: a, error: off.ok ? 'refused (CONFIG 0x03)' : off.detail });
      continue;
    }
    const forget = await deps.driver.config(a, 0x02, [1, 0, 0, 0], { priority: 'interactive' });
    if (!forget.ok || (forget.value && !forget.value.ok)) {
      failed.push({ addr: a, error: forget.ok ? 'refused (CONFIG 0x02)' : forget.detail });
    }
    // Persistence is off either way (acknowledged): the next reboot comes up unbound.
    const d = deps.registry.find(a);
    if (d) {
      d.configByte &= ~CONFIG_BYTE.MASTER_PERSIST;
      await deps.store.commit(['DEVICES'], () => undefined, [d]);
    }
    unpinned.push(a);
  }
  deps.log.info({ network: net.id, unpinned: unpinned.length, failed: failed.length }, 'nodes unpinned');
  return { network_id: net.id, unpinned, failed, pinned_left: pinned(deps, networkId) };
}
