/**
 * The operator's lever (task `restore_groups`): "the field was power-cycled, put these
 * gates back". The chosen known nodes (selection, a group, or all) become rejoining and go
 * through the same sweep as the automatic recovery, answered or not before; the task
 * follows them until each is restored or given up, with progress in its meta. Cancel
 * takes the nodes it added out of the recovery without calling them offline. With several
 * gateways the sweep runs per network (per-network.ts) and the meta gains
 * `networks: {id: {done, total}}`.
 */
import { networkLegs } from '../../../gateway/radio/radio.ts';
import type { GatewayDriver } from '../../../gateway/types.ts';
import type { Clock } from '../../../clock.ts';
import { ValidationError } from '../../../errors.ts';
import type { Addr } from '../../../protocol/types.ts';
import type { TaskManager, TaskSnapshot } from '../../../tasks/task-manager.ts';
import type { DeviceRegistry } from '../registry/registry.ts';
import type { GroupService } from '../groups.ts';
import type { RecoveryService } from './recovery.ts';

export interface RestoreRequest {
  selection?: Addr[];
  groupId?: number;
}

export interface RestoreResult {
  total: number;
  restored: number;
  failed: { addr: Addr; reason: string | null }[];
  /** Nodes left out: unknown addresses or nodes stored in group 0 (nothing to restore). */
  skipped: Addr[];
}

/** How often the task looks at its nodes (virtual ms); cheap, the sweep does the work. */
const FOLLOW_EVERY_MS = 250;

export class RestoreGroupsTask {
  constructor(
    private readonly deps: {
      recovery: RecoveryService;
      registry: DeviceRegistry;
      groups: GroupService;
      tasks: TaskManager;
      clock: Clock;
      driver: GatewayDriver;
    },
  ) {}

  start(req: RestoreRequest): TaskSnapshot {
    const { tasks, groups, registry, recovery, clock } = this.deps;
    tasks.assertIdle();
    if (req.selection !== undefined && req.groupId !== undefined)
      throw new ValidationError('selection and groupId are exclusive: give one of them');
    if (req.groupId !== undefined && req.groupId !== 255) {
      if (req.groupId === 0)
        throw new ValidationError('groupId: group 0 (Unconfigured) has no group to restore');
      groups.requireExisting(req.groupId);
    }
    const gid = req.groupId ?? 255;
    const scope = req.selection
      ? req.selection
      : registry
          .all()
          .filter((d) => gid === 255 || d.groupId === gid)
          .map((d) => d.addr);
    const targets = scope.filter((a) => (registry.find(a)?.groupId ?? 0) !== 0);
    const skipped = scope.filter((a) => !targets.includes(a));
    const meta = { groupId: req.selection ? null : gid, selectionCount: req.selection?.length ?? 0 };
    return tasks.start('restore_groups', meta, async (ctx): Promise<RestoreResult> => {
      // Nodes already rejoining are followed too; only those this task added are its own.
      const own = recovery.add(targets, 'manual', { settle: false });
      const failed: RestoreResult['failed'] = [];
      let restored = 0;
      const open = new Set(targets);
      // Several gateways: progress per network (each network's sweep runs on its own).
      let byNetwork: Map<number, Addr[]> | null = null;
      if (networkLegs(this.deps.driver)) {
        byNetwork = new Map();
        for (const a of targets) {
          const id = registry.find(a)?.network_id ?? 0;
          byNetwork.set(id, [...(byNetwork.get(id) ?? []), a]);
        }
      }
      const networks = (): Record<string, { done: number; total: number }> | undefined =>
        byNetwork
          ? Object.fromEntries(
              [...byNetwork].map(([id, list]) => [
                id,
                { done: list.filter((a) => !open.has(a)).length, total: list.length },
              ]),
            )
          : undefined;
      try {
        for (;;) {
          for (const a of [...open]) {
            if (recovery.isRejoining(a)) continue;
            open.delete(a);
            const d = registry.find(a);
            if (d && registry.linkState(d) === 'online') restored++;
            else failed.push({ addr: a, reason: registry.offlineReason(a) });
          }
          ctx.setMeta({
            ...meta,
            stage: 'RESTORE',
            index: targets.length - open.size,
            total: targets.length,
            restored,
            failed: failed.length,
            ...(byNetwork ? { networks: networks() } : {}),
          });
          if (open.size === 0) break;
          ctx.checkpoint();
          await clock.sleep(FOLLOW_EVERY_MS, ctx.signal).catch(() => undefined);
        }
      } finally {
        if (ctx.signal.aborted) recovery.drop(own.filter((a) => open.has(a)));
      }
      return { total: targets.length, restored, failed, skipped };
    });
  }
}
