/**
 * Discovery (task `discover`): DEVICES rounds through the driver until no new node
 * answers; the registry creates devices from the replies. Responders can be moved
 * into a target group (optionally a new one) right after.
 */
import { ValidationError } from '../errors.ts';
import type { GatewayDriver } from '../gateway/types.ts';
import type { Addr } from '../protocol/types.ts';
import type { TaskContext, TaskManager, TaskSnapshot } from '../tasks/task-manager.ts';
import type { DeviceRegistry } from './device-registry.ts';
import type { GroupService } from './groups.ts';
import { pushGroups } from './group-push.ts';

/** Discovery passes when moving responders into a target group (each pass: several rounds). */
const MAX_PASSES = 6;

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
      const moved = new Set<Addr>();
      // Every responder gets a SET_GROUP: the target group, or without one its stored group
      // (0 for new nodes). That also binds it to this gateway: until then a node ignores
      // STATUS, CONTROL and the rest (MAC filter). With a target group, responders leave the
      // unconfigured group between passes, so weak nodes that lost every collision get the
      // air in the next pass. A node whose move failed is tried again in the next pass.
      const passes = target >= 1 && filter === 0 ? MAX_PASSES : 1;
      for (let pass = 1; pass <= passes; pass++) {
        const before = found.size;
        await this.discoverPass(filter, found, ctx, { ...meta, pass });
        ctx.checkpoint();
        const items = [...found]
          .filter((a) => !moved.has(a))
          .map((addr) => ({ addr, groupId: target >= 1 ? target : (registry.find(addr)?.groupId ?? 0) }));
        const res = await pushGroups(items, { driver, registry }, ctx, {
          skipOffline: false,
          progress: (index, item) => ({
            stage: 'ASSIGN',
            pass,
            index,
            total: items.length,
            addr: item.addr,
            groupId: item.groupId,
            found: found.size,
            message: `Adding ${item.addr} → group ${item.groupId}`,
          }),
        });
        const failedNow = new Set(res.failed);
        for (const it of items) if (!failedNow.has(it.addr)) moved.add(it.addr);
        if (found.size === before) break;
      }
      const assigned = moved.size;
      const failed = found.size - moved.size;
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

  /** One driver discovery (several DEVICES rounds); responders are added to `found`. */
  private async discoverPass(
    filter: number,
    found: Set<Addr>,
    ctx: TaskContext,
    meta: Record<string, unknown>,
  ): Promise<void> {
    const { registry, driver } = this.deps;
    ctx.setMeta({ ...meta, stage: 'DISCOVER', found: found.size });
    registry.discoveryRunning = true;
    registry.counters = { onIdentify: () => ctx.bumpRx('rx_replies') };
    try {
      const replies = await driver.discover({
        groupId: filter,
        priority: 'bulk',
        signal: ctx.signal,
        onReply: (r) => {
          if (found.has(r.addr)) return;
          found.add(r.addr);
          ctx.setMeta({ ...meta, stage: 'DISCOVER', found: found.size, addr: r.addr });
        },
      });
      for (const r of replies) found.add(r.addr);
    } finally {
      registry.discoveryRunning = false;
      registry.counters = {};
    }
  }
}
