/**
 * Status poll (task `status`): unicast per selected device, or broadcast rounds with a
 * group filter (255 = every group) followed by pipelined unicast follow-ups for every
 * straggler (poll.ts). Devices in scope that stay silent through it go offline.
 */
import type { Clock } from '../../../clock.ts';
import { ValidationError } from '../../../errors.ts';
import type { GatewayDriver, StatusTarget } from '../../../gateway/types.ts';
import type { Addr } from '../../../protocol/types.ts';
import type { TaskManager, TaskSnapshot } from '../../../tasks/task-manager.ts';
import type { DeviceRegistry } from '../registry/registry.ts';
import type { GroupService } from '../groups.ts';
import { pollFleetLegs } from './per-network.ts';
import { FOLLOW_UP_ATTEMPTS, RECENTLY_HEARD_S, SECOND_CHANCE_ATTEMPTS, unicastStatus } from './poll.ts';

export interface StatusRequest {
  selection?: Addr[];
  groupId?: number;
}

export interface StatusResult {
  updated: number;
  groupId: number | null;
  selectionCount: number;
  offline: number;
}

export class StatusService {
  constructor(
    private readonly deps: {
      driver: GatewayDriver;
      registry: DeviceRegistry;
      groups: GroupService;
      tasks: TaskManager;
      clock: Clock;
    },
  ) {}

  start(req: StatusRequest): TaskSnapshot {
    const { tasks, groups, registry, driver } = this.deps;
    tasks.assertIdle();
    if (req.selection !== undefined && req.groupId !== undefined) {
      throw new ValidationError('selection and groupId are exclusive: give one of them');
    }
    if (req.groupId !== undefined && req.groupId !== 255) groups.requireExisting(req.groupId);
    const selection = req.selection;
    const groupId = selection ? null : (req.groupId ?? 255);
    const meta = { groupId, selectionCount: selection?.length ?? 0 };
    return tasks.start('status', meta, async (ctx): Promise<StatusResult> => {
      const answered = new Set<Addr>();
      registry.counters = { onStatus: () => ctx.bumpRx('rx_replies') };
      const heardSince = this.deps.clock.now() / 1000 - RECENTLY_HEARD_S;
      const recentlyHeard = new Set(
        registry
          .all()
          .filter((d) => d.online && (d.last_seen_ts ?? 0) >= heardSince)
          .map((d) => d.addr),
      );
      let inScope: Addr[];
      try {
        if (selection) {
          inScope = selection.filter((a) => registry.find(a));
          // Each selected device: unicast STATUS with its stored group, pipelined, with retries.
          ctx.setMeta({ ...meta, stage: 'POLL', answered: 0, total: inScope.length });
          const targets = inScope.map((addr) => ({ addr, groupId: registry.find(addr)?.groupId ?? 0 }));
          const unicast = (list: readonly StatusTarget[], attempts: number): Promise<void> =>
            unicastStatus(driver, this.deps.clock, list, {
              attempts,
              signal: ctx.signal,
              settled: (k) => answered.has(k),
              onOutcome: (o) => {
                if (o.ok) answered.add(o.key);
                ctx.setMeta({
                  ...meta,
                  stage: 'POLL',
                  answered: answered.size,
                  total: inScope.length,
                  addr: o.key,
                });
              },
            });
          await unicast(targets, FOLLOW_UP_ATTEMPTS);
          // The same second chance as the fleet poll's (poll.ts).
          const second = targets.filter((t) => !answered.has(t.addr) && recentlyHeard.has(t.addr));
          if (second.length > 0) await unicast(second, SECOND_CHANCE_ATTEMPTS);
        } else {
          const gid = groupId ?? 255;
          const targets = registry
            .all()
            .filter((d) => gid === 255 || d.groupId === gid)
            .map((d) => ({ addr: d.addr, groupId: d.groupId }));
          inScope = targets.map((t) => t.addr);
          ctx.setMeta({ ...meta, stage: 'POLL', answered: 0, total: inScope.length });
          const heard = await pollFleetLegs(
            driver,
            this.deps.clock,
            ctx,
            gid,
            targets,
            (p) =>
              ctx.setMeta({
                ...meta,
                stage: p.stage,
                answered: p.answered,
                total: p.expected,
                ...(p.group !== undefined ? { group: p.group } : {}),
                ...(p.stragglers !== undefined ? { stragglers: p.stragglers } : {}),
                ...(p.networks ? { networks: p.networks } : {}),
                message:
                  p.stage === 'POLL'
                    ? `Polling${p.group !== undefined && p.group !== 255 ? ` group ${p.group}` : ''}: ${p.answered} of ${p.expected} answered`
                    : `Asking ${p.stragglers ?? 0} silent devices one by one: ${p.answered} of ${p.expected} answered`,
              }),
            recentlyHeard,
            (a) => registry.find(a)?.network_id ?? null,
          );
          for (const a of heard) answered.add(a);
        }
      } finally {
        registry.counters = {};
      }
      ctx.checkpoint();
      const silent = inScope.filter((a) => !answered.has(a));
      registry.markOffline(silent);
      return {
        updated: answered.size,
        groupId,
        selectionCount: selection?.length ?? 0,
        offline: silent.length,
      };
    });
  }
}
