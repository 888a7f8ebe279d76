/**
 * Discovery (task `discover`): validation, the created group and the task; the rounds
 * themselves are in rounds.ts. The registry creates devices from the replies. Every
 * responder gets a SET_GROUP — the target group, or its stored group (0 for new nodes) —
 * which also binds it to this gateway: until then a node ignores STATUS, CONTROL and the
 * rest (MAC filter). Discovering into a target group is the efficient path (one SET_GROUP
 * per node takes it out of the crowd); without one, big rounds park their responders in
 * group 254 and move them back to 0 at the end (two SET_GROUPs per node).
 */
import type { Clock } from '../../../clock.ts';
import { ValidationError } from '../../../errors.ts';
import type { GatewayDriver } from '../../../gateway/types.ts';
import type { Addr } from '../../../protocol/types.ts';
import type { TaskManager, TaskSnapshot } from '../../../tasks/task-manager.ts';
import type { DeviceRegistry } from '../registry/registry.ts';
import type { GroupService } from '../groups.ts';
import type { DiscoveryProgress } from './rounds.ts';
import { runDiscoveryLegs } from './per-network.ts';

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
  rounds: number;
}

export class DiscoveryService {
  constructor(
    private readonly deps: {
      driver: GatewayDriver;
      registry: DeviceRegistry;
      groups: GroupService;
      tasks: TaskManager;
      clock: Clock;
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
      bound: 0,
      round: 0,
    };
    return tasks.start('discover', meta, async (ctx): Promise<DiscoverResult> => {
      const { registry, driver, clock } = this.deps;
      const canPark = target === 0 && filter === 0 && !groups.exists(PARK_GROUP);
      registry.discoveryRunning = true;
      registry.counters = { onIdentify: () => ctx.bumpRx('rx_replies') };
      try {
        const out = await runDiscoveryLegs(
          { driver, registry, clock },
          ctx,
          { filter, target: target >= 1 ? target : null, parkGroup: canPark ? PARK_GROUP : null },
          (p) =>
            ctx.setMeta({
              ...meta,
              stage: p.phase,
              phase: p.phase,
              round: p.round,
              found: p.found,
              bound: p.bound,
              expected_remaining:
                p.expectedRemaining === null ? null : Math.round(p.expectedRemaining * 10) / 10,
              message: progressText(p),
              ...(p.networks ? { networks: p.networks } : {}),
            }),
        );
        // Found but never acknowledged: the stored group waits for the node (pending), and
        // the device shows offline until it is heard again.
        const failed = [...out.found].filter((a) => !out.placed.has(a));
        for (const a of failed) registry.recordGroup(a, target >= 1 ? target : this.storedGroup(a), true);
        registry.markOffline(failed);
        return {
          found: out.found.size,
          createdGroupId,
          targetGroupId: target || null,
          discoveryGroup: filter,
          assigned: out.placed.size,
          assign_failed: failed.length,
          rounds: out.rounds,
        };
      } finally {
        registry.discoveryRunning = false;
        registry.counters = {};
      }
    });
  }

  private storedGroup(addr: Addr): number {
    return this.deps.registry.find(addr)?.groupId ?? 0;
  }
}

function progressText(p: DiscoveryProgress): string {
  const counts = `${p.found} found, ${p.bound} bound`;
  switch (p.phase) {
    case 'DISCOVER':
      return `Round ${p.round}: listening for nodes (${counts})`;
    case 'BIND':
      return `Round ${p.round}: moving responders into their group (${counts})`;
    case 'PARK':
      return `Round ${p.round}: parking responders while the others are found (${counts})`;
    case 'UNPARK':
      return `Moving parked nodes back (${counts})`;
  }
}
