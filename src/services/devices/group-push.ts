/**
 * Moving nodes into groups: SET_GROUP with ACK wait and retries, one device after the
 * other, with progress meta and cancellation between devices. A device's stored group
 * follows the outcome: confirmed on ACK; pending (pushed again when the node is next
 * heard) when it was offline or did not answer; unchanged when the task was cancelled
 * before reaching it. Used by bulk_set_group, force_groups, discovery and group delete.
 */
import type { GatewayDriver } from '../../gateway/types.ts';
import type { Addr } from '../../protocol/types.ts';
import type { TaskContext } from '../../tasks/task-manager.ts';
import type { DeviceRegistry } from './registry.ts';

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
}

export async function pushGroups(
  items: readonly PushItem[],
  deps: { driver: GatewayDriver; registry: DeviceRegistry },
  ctx: TaskContext,
  opts: {
    skipOffline: boolean;
    /** Record outcomes as the devices' stored groups (false for a temporary move). */
    record?: boolean;
    progress: (index: number, item: PushItem) => Record<string, unknown>;
  },
): Promise<PushResult> {
  const res: PushResult = { changed: 0, skipped_offline: 0, timed_out: 0, total: items.length, failed: [] };
  const record = (addr: Addr, groupId: number, pending: boolean): void => {
    if (opts.record ?? true) deps.registry.recordGroup(addr, groupId, pending);
  };
  for (const [i, item] of items.entries()) {
    ctx.checkpoint();
    ctx.setMeta(opts.progress(i + 1, item));
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
