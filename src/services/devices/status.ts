/**
 * Status poll (task `status`): unicast per selected device, or one broadcast with
 * a group filter (255 = every group). Devices in scope that stay silent go offline.
 */
import { ValidationError } from '../../errors.ts';
import type { GatewayDriver } from '../../gateway/types.ts';
import type { Addr } from '../../protocol/types.ts';
import type { TaskManager, TaskSnapshot } from '../../tasks/task-manager.ts';
import type { DeviceRegistry } from './registry.ts';
import type { GroupService } from './groups.ts';

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
      let inScope: Addr[];
      try {
        if (selection) {
          inScope = selection.filter((a) => registry.find(a));
          for (const [i, addr] of inScope.entries()) {
            ctx.checkpoint();
            ctx.setMeta({ ...meta, stage: 'POLL', index: i + 1, total: inScope.length, addr });
            const dev = registry.find(addr);
            if (!dev) continue;
            const r = await driver.statusUnicast(addr, dev.groupId, { priority: 'bulk', signal: ctx.signal });
            if (r.ok) answered.add(addr);
          }
        } else {
          const gid = groupId ?? 255;
          inScope = registry
            .all()
            .filter((d) => gid === 255 || d.groupId === gid)
            .map((d) => d.addr);
          ctx.setMeta({ ...meta, stage: 'POLL', expected: inScope.length });
          const replies = await driver.statusBroadcast({
            groupId: gid,
            expected: inScope.length,
            // Known devices whose replies collided get asked directly before being called
            // offline, each with its stored group (a unicast STATUS must carry it, never 255).
            targets: inScope.flatMap((addr) => {
              const stored = registry.find(addr)?.groupId;
              return stored === undefined ? [] : [{ addr, groupId: stored }];
            }),
            priority: 'bulk',
            signal: ctx.signal,
          });
          for (const r of replies) answered.add(r.addr);
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
