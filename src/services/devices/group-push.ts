/**
 * Moving nodes into groups: SET_GROUP with ACK wait and retries, one device after the
 * other, with progress meta and cancellation between devices. A device's stored group
 * follows the outcome: confirmed on ACK; pending (pushed again when the node is next
 * heard) when it was offline or did not answer; unchanged when the task was cancelled
 * before reaching it. Used by bulk_set_group, force_groups, discovery and group delete.
 *
 * With several gateways the devices are pushed per network, the networks in parallel
 * (each gateway's air is its own; one after the other within a network, as with one
 * gateway), and the task's meta gains `networks: {id: {done, total, error?}}`. A network
 * whose gateway is not connected fails its part at once with the error naming it (its
 * devices' groups wait as pending); the others go on.
 */
import { networkLegs } from '../../gateway/radio/radio.ts';
import type { GatewayDriver } from '../../gateway/types.ts';
import type { Addr } from '../../protocol/types.ts';
import type { TaskContext } from '../../tasks/task-manager.ts';
import type { DeviceRegistry } from './registry/registry.ts';

export interface PushItem {
  addr: Addr;
  groupId: number;
}

export interface PushResult {
  changed: number;
  skipped_offline: number;
  timed_out: number;
  total: number;
  failed: Addr[];
  /** Several gateways only: each network's part (id → counts, and why it failed). */
  networks?: Record<string, NetworkPart>;
}

export interface NetworkPart {
  total: number;
  changed: number;
  failed: number;
  error?: string;
}

interface PushOpts {
  skipOffline: boolean;
  /** Record outcomes as the devices' stored groups (false for a temporary move). */
  record?: boolean;
  progress: (index: number, item: PushItem) => Record<string, unknown>;
}

export async function pushGroups(
  items: readonly PushItem[],
  deps: { driver: GatewayDriver; registry: DeviceRegistry },
  ctx: TaskContext,
  opts: PushOpts,
): Promise<PushResult> {
  const legs = networkLegs(deps.driver);
  if (!legs)
    return pushSequence(items, deps, ctx, opts, newResult(items.length), (i, it) => opts.progress(i, it));
  const byNetwork = new Map<number, PushItem[]>();
  for (const it of items) {
    const id = deps.registry.find(it.addr)?.network_id;
    if (id === undefined) continue;
    byNetwork.set(id, [...(byNetwork.get(id) ?? []), it]);
  }
  const res = newResult(items.length);
  const parts: Record<string, NetworkPart & { done: number }> = {};
  for (const [id, list] of byNetwork) parts[id] = { total: list.length, done: 0, changed: 0, failed: 0 };
  let done = 0;
  const meta = (item: PushItem): Record<string, unknown> => ({
    ...opts.progress(done, item),
    networks: Object.fromEntries(
      Object.entries(parts).map(([id, p]) => [
        id,
        { done: p.done, total: p.total, ...(p.error ? { error: p.error } : {}) },
      ]),
    ),
  });
  const settled = await Promise.allSettled(
    [...byNetwork].map(async ([id, list]) => {
      const part = parts[id] as NetworkPart & { done: number };
      const leg = legs.find((l) => l.networkId === id);
      const mine = newResult(list.length);
      if (!leg && (await failNetwork(list, deps, ctx, opts, res, part))) {
        done += list.length;
        ctx.setMeta(meta(list[0] as PushItem));
        return;
      }
      // (A gateway that came back in the meantime: its part goes through the Radio.)
      await pushSequence(list, { ...deps, driver: leg?.driver ?? deps.driver }, ctx, opts, mine, (_i, it) => {
        part.done++;
        done++;
        return meta(it);
      });
      res.changed += mine.changed;
      res.skipped_offline += mine.skipped_offline;
      res.timed_out += mine.timed_out;
      res.failed.push(...mine.failed);
      part.changed = mine.changed;
      part.failed = mine.timed_out;
    }),
  );
  const err = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (err) throw err.reason;
  res.networks = Object.fromEntries(Object.entries(parts).map(([id, { done: _d, ...p }]) => [id, p]));
  return res;
}

const newResult = (total: number): PushResult => ({
  changed: 0,
  skipped_offline: 0,
  timed_out: 0,
  total,
  failed: [],
});

/**
 * A network without a connected gateway: one SET_GROUP through the Radio tells why at once
 * (it names the network and never waits out a timeout); every device of it stays pending.
 * Returns false when that SET_GROUP went through after all (the gateway is back).
 */
async function failNetwork(
  list: readonly PushItem[],
  deps: { driver: GatewayDriver; registry: DeviceRegistry },
  ctx: TaskContext,
  opts: PushOpts,
  res: PushResult,
  part: NetworkPart & { done: number },
): Promise<boolean> {
  const first = list[0];
  if (!first) return true;
  ctx.checkpoint();
  const out = await deps.driver.setGroup(first.addr, first.groupId, { priority: 'bulk', attempts: 1 });
  if (out.ok) return false;
  part.error = out.detail;
  for (const it of list) {
    if (opts.record ?? true) deps.registry.recordGroup(it.addr, it.groupId, true);
    res.timed_out++;
    res.failed.push(it.addr);
  }
  part.failed = list.length;
  part.done = list.length;
  return true;
}

/** One device after the other on one driver (the one gateway's, or one network's). */
async function pushSequence(
  items: readonly PushItem[],
  deps: { driver: GatewayDriver; registry: DeviceRegistry },
  ctx: TaskContext,
  opts: PushOpts,
  res: PushResult,
  progress: (index: number, item: PushItem) => Record<string, unknown>,
): Promise<PushResult> {
  const record = (addr: Addr, groupId: number, pending: boolean): void => {
    if (opts.record ?? true) deps.registry.recordGroup(addr, groupId, pending);
  };
  for (const [i, item] of items.entries()) {
    ctx.checkpoint();
    ctx.setMeta(progress(i + 1, item));
    const dev = deps.registry.find(item.addr);
    if (!dev) continue;
    if (opts.skipOffline && !dev.online) {
      record(item.addr, item.groupId, true);
      res.skipped_offline++;
      continue;
    }
    // No abort signal: a cancel takes effect between devices (the safe point), so the
    // device in flight ends with a known outcome and its stored group stays true.
    const out = await deps.driver.setGroup(item.addr, item.groupId, { priority: 'bulk' });
    if (out.ok && out.value.ok) {
      record(item.addr, item.groupId, false);
      res.changed++;
    } else {
      record(item.addr, item.groupId, true);
      res.timed_out++;
      res.failed.push(item.addr);
      deps.registry.markOffline([item.addr]);
    }
  }
  return res;
}
