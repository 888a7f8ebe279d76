/**
 * Device names and group membership: synchronous rename, the asynchronous
 * `bulk_set_group` task, and `force_groups` (re-send every stored group).
 */
import { ValidationError } from '../../errors.ts';
import type { GatewayDriver } from '../../gateway/types.ts';
import type { Addr } from '../../protocol/types.ts';
import type { Store } from '../../state/store.ts';
import type { TaskManager, TaskSnapshot } from '../../tasks/task-manager.ts';
import type { DeviceRegistry } from './registry/registry.ts';
import { checkName } from '../../domain/text.ts';
import type { GroupService } from './groups.ts';
import { pushGroups, type PushResult } from './group-push.ts';

export const MAX_DEVICE_NAME = 64;

const plural = (n: number): string => `${n} device${n === 1 ? '' : 's'}`;
const publicResult = ({ failed: _f, ...r }: PushResult): Omit<PushResult, 'failed'> => r;

export class DeviceMetaService {
  constructor(
    private readonly deps: {
      store: Store;
      driver: GatewayDriver;
      registry: DeviceRegistry;
      groups: GroupService;
      tasks: TaskManager;
    },
  ) {}

  rename(
    addr: Addr,
    name: string,
  ): { changed: number; skipped_offline: number; timed_out: number; total: number } {
    const clean = checkDeviceName(name);
    const dev = this.deps.registry.require(addr);
    const changed = dev.name === clean ? 0 : 1;
    this.deps.store.mutate(
      ['DEVICES'],
      () => {
        dev.name = clean;
      },
      'soon',
      [dev],
    );
    return { changed, skipped_offline: 0, timed_out: 0, total: 1 };
  }

  startGroupChange(macs: Addr[], groupId: number, name: string | undefined): TaskSnapshot {
    const { tasks, groups, registry, driver, store } = this.deps;
    tasks.assertIdle();
    groups.requireExisting(groupId);
    if (name !== undefined && macs.length !== 1)
      throw new ValidationError('name: can only be set for exactly one device');
    const clean = name !== undefined ? checkDeviceName(name) : undefined;
    const total = macs.length;
    const meta = {
      stage: 'INIT',
      index: 0,
      total,
      addr: null,
      groupId,
      message: `Moving ${plural(total)} → group ${groupId}…`,
    };
    return tasks.start('bulk_set_group', meta, async (ctx) => {
      const known = macs.filter((a) => registry.find(a));
      if (clean !== undefined && known[0]) {
        const dev = registry.find(known[0]);
        store.mutate(['DEVICES'], () => {
          if (dev) dev.name = clean;
        });
      }
      const res = await pushGroups(
        macs.map((addr) => ({ addr, groupId })),
        { driver, registry },
        ctx,
        {
          skipOffline: true,
          progress: (index, it) => ({
            stage: 'MOVING',
            index,
            total,
            addr: it.addr,
            groupId,
            message: `Moving ${it.addr} → group ${groupId}`,
          }),
        },
      );
      return { ...publicResult(res), unknown: total - known.length };
    });
  }

  startForce(skipOffline: boolean): TaskSnapshot {
    const { tasks, registry, driver } = this.deps;
    tasks.assertIdle();
    const items = registry.all().map((d) => ({ addr: d.addr, groupId: d.groupId }));
    const meta = {
      stage: 'INIT',
      index: 0,
      total: items.length,
      addr: null,
      skipOffline,
      message: `Re-syncing ${plural(items.length)}${skipOffline ? ' (skipping offline)' : ''}…`,
    };
    return tasks.start('force_groups', meta, async (ctx) => {
      const res = await pushGroups(items, { driver, registry }, ctx, {
        skipOffline,
        progress: (index, it) => ({
          stage: 'RESYNC',
          index,
          total: items.length,
          addr: it.addr,
          skipOffline,
          message: `Re-sync ${it.addr} → group ${it.groupId}`,
        }),
      });
      return publicResult(res);
    });
  }

  /** After a group delete: push the renumbered groups of online devices to the nodes. */
  startRenumberPush(changed: { addr: string; groupId: number }[]): TaskSnapshot | null {
    const { tasks, registry, driver } = this.deps;
    const items = changed.filter((c) => registry.find(c.addr)?.online);
    if (items.length === 0 || tasks.isRunning()) return null;
    const meta = {
      stage: 'INIT',
      index: 0,
      total: items.length,
      addr: null,
      groupId: null,
      message: 'Renumbering groups…',
    };
    return tasks.start('bulk_set_group', meta, async (ctx) =>
      publicResult(
        await pushGroups(items, { driver, registry }, ctx, {
          skipOffline: true,
          progress: (index, it) => ({
            stage: 'MOVING',
            index,
            total: items.length,
            addr: it.addr,
            groupId: it.groupId,
            message: `Moving ${it.addr} → group ${it.groupId}`,
          }),
        }),
      ),
    );
  }
}

const checkDeviceName = (name: string): string => checkName(name, 'name', MAX_DEVICE_NAME);
