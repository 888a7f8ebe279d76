/**
 * Discovery (task `discover`): DEVICES rounds through the driver until no new node
 * answers; the registry creates devices from the replies. Every responder then gets a
 * SET_GROUP — the target group, or its stored group (0 for new nodes) — which also binds
 * it to this gateway: until then a node ignores STATUS, CONTROL and the rest (MAC filter).
 *
 * Big fleets: every unconfigured node answers every round and the strongest ones win
 * the collisions, so some nodes are never heard while the crowd keeps answering. The
 * cure is to take responders out of the crowd between passes: into the target group,
 * or — when the nodes are to stay unconfigured — into a parking group that is moved
 * back to 0 at the end.
 */
import { ValidationError } from '../../errors.ts';
import type { GatewayDriver } from '../../gateway/types.ts';
import type { Addr } from '../../protocol/types.ts';
import type { TaskContext, TaskManager, TaskSnapshot } from '../../tasks/task-manager.ts';
import type { DeviceRegistry } from './registry.ts';
import type { GroupService } from './groups.ts';
import { pushGroups } from './group-push.ts';

/** Discovery passes while responders leave the crowd (each pass: several DEVICES rounds). */
const MAX_PASSES = 6;
/** Above this many responders in the first pass, unconfigured nodes are parked between passes. */
const PARK_ABOVE = 16;
/** Wire group used for parking; only when no user group has this id. */
const PARK_GROUP = 254;

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
    const { tasks, groups } = this.deps;
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
      const placed = new Set<Addr>();
      const parked = new Set<Addr>();
      const canPark = target === 0 && filter === 0 && !groups.exists(PARK_GROUP);
      for (let pass = 1; pass <= MAX_PASSES; pass++) {
        const before = found.size;
        await this.discoverPass(filter, found, ctx, { ...meta, pass });
        ctx.checkpoint();
        const fresh = [...found].filter((a) => !placed.has(a) && !parked.has(a));
        const park = canPark && (pass > 1 || found.size > PARK_ABOVE);
        if (park) {
          const res = await this.push(
            fresh.map((addr) => ({ addr, groupId: PARK_GROUP })),
            ctx,
            pass,
            'PARK',
            false,
          );
          for (const a of fresh) if (!res.has(a)) parked.add(a);
        } else {
          const res = await this.push(
            fresh.map((addr) => ({ addr, groupId: target >= 1 ? target : this.storedGroup(addr) })),
            ctx,
            pass,
            'ASSIGN',
            true,
          );
          for (const a of fresh) if (!res.has(a)) placed.add(a);
        }
        // Another pass only helps while responders leave group 0 (target group or parking).
        const leaving = filter === 0 && (target >= 1 || park);
        if (!leaving || found.size === before) break;
      }
      if (parked.size > 0) {
        const items = [...parked].map((addr) => ({ addr, groupId: this.storedGroup(addr) }));
        const res = await this.push(items, ctx, 0, 'UNPARK', true);
        for (const it of items) if (!res.has(it.addr)) placed.add(it.addr);
      }
      return {
        found: found.size,
        createdGroupId,
        targetGroupId: target || null,
        discoveryGroup: filter,
        assigned: placed.size,
        assign_failed: found.size - placed.size,
      };
    });
  }

  private storedGroup(addr: Addr): number {
    return this.deps.registry.find(addr)?.groupId ?? 0;
  }

  /** SET_GROUP to each item; returns the addresses that failed. */
  private async push(
    items: { addr: Addr; groupId: number }[],
    ctx: TaskContext,
    pass: number,
    stage: 'ASSIGN' | 'PARK' | 'UNPARK',
    record: boolean,
  ): Promise<Set<Addr>> {
    const { driver, registry } = this.deps;
    const res = await pushGroups(items, { driver, registry }, ctx, {
      skipOffline: false,
      record,
      progress: (index, item) => ({
        stage,
        pass,
        index,
        total: items.length,
        addr: item.addr,
        groupId: item.groupId,
        message:
          stage === 'PARK'
            ? `Parking ${item.addr} while the others are found`
            : `Adding ${item.addr} → group ${item.groupId}`,
      }),
    });
    return new Set(res.failed);
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
