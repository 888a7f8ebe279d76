/**
 * Discovery (task `discover`): DEVICES rounds through the driver until no new node
 * answers; the registry creates devices from the replies. Responders can be moved
 * into a target group (optionally a new one) right after.
 */
import { ValidationError } from '../errors.ts';
import type { GatewayDriver } from '../gateway/types.ts';
import type { Addr } from '../protocol/types.ts';
import type { TaskManager, TaskSnapshot } from '../tasks/task-manager.ts';
import type { DeviceRegistry } from './device-registry.ts';
import type { GroupService } from './groups.ts';
import { pushGroups } from './group-push.ts';

export interface DiscoverRequest {
  targetGroupId?: number;
  newGroupName?: string;
  /** Which nodes answer: 0 = unconfigured only (default), 1..254 one group, 255 all. */
  discoveryGroup?: number;
}

export interface DiscoverResult {
  found: number;
  createdGroupId: number | null;
  targetGroupId: number | null;
  discoveryGroup: number;
  assigned: number;
  assign_failed: number;
}

export class DiscoveryService {
  constructor(
    private readonly deps: {
      driver: GatewayDriver;
      registry: DeviceRegistry;
      groups: GroupService;
      tasks: TaskManager;
    },
  ) {}

  start(req: DiscoverRequest): TaskSnapshot {
    const { tasks, groups, registry, driver } = this.deps;
    tasks.assertIdle();
    if (req.targetGroupId !== undefined && req.targetGroupId !== 0)
      groups.requireExisting(req.targetGroupId, 'targetGroupId');
    if (req.newGroupName !== undefined && !req.newGroupName.trim()) {
      throw new ValidationError('newGroupName: must not be empty when given');
    }
    const createdGroupId = req.newGroupName !== undefined ? groups.create(req.newGroupName, 0) : null;
    const target = createdGroupId ?? req.targetGroupId ?? 0;
    const filter = req.discoveryGroup ?? 0;
    const meta = {
      stage: 'DISCOVER',
      createdGroupId,
      targetGroupId: target || null,
      discoveryGroup: filter,
      found: 0,
    };
    return tasks.start('discover', meta, async (ctx): Promise<DiscoverResult> => {
      const found = new Set<Addr>();
      registry.discoveryRunning = true;
      registry.counters = { onIdentify: () => ctx.bumpRx('rx_replies') };
      let replies;
      try {
        replies = await driver.discover({
          groupId: filter,
          priority: 'bulk',
          signal: ctx.signal,
          onReply: (r) => {
            if (found.has(r.addr)) return;
            found.add(r.addr);
            ctx.setMeta({ ...meta, found: found.size, addr: r.addr });
          },
        });
      } finally {
        registry.discoveryRunning = false;
        registry.counters = {};
      }
      for (const r of replies) found.add(r.addr);
      ctx.checkpoint();
      let assigned = 0;
      let failed = 0;
      if (target >= 1) {
        const items = [...found].map((addr) => ({ addr, groupId: target }));
        registry.assignGroups(items);
        const res = await pushGroups(items, { driver, registry }, ctx, {
          skipOffline: false,
          progress: (index, item) => ({
            stage: 'ASSIGN',
            index,
            total: items.length,
            addr: item.addr,
            groupId: target,
            message: `Adding ${item.addr} → group ${target}`,
          }),
        });
        assigned = res.changed;
        failed = res.timed_out;
      }
      return {
        found: found.size,
        createdGroupId,
        targetGroupId: target || null,
        discoveryGroup: filter,
        assigned,
        assign_failed: failed,
      };
    });
  }
}
