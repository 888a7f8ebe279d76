/**
 * Groups: listing with counts, create/rename/delete. Ids are positions (1..254),
 * so deleting a group renumbers every higher group — devices and (through the
 * renumber hook) scenes follow. Group 0 "Unconfigured" is the static system group.
 */
import type { Group } from '../../domain/model.ts';
import { MAX_GROUP_ID, RESERVED_GROUP_NAMES, UNCONFIGURED_GROUP_NAME } from '../../domain/model.ts';
import { NotFoundError, ValidationError } from '../../errors.ts';
import { deviceTypeInfo } from '../../protocol/device-types.ts';
import type { Store } from '../../state/store.ts';

export interface GroupRow {
  id: number;
  name: string;
  static: boolean;
  dev_type: number;
  device_count: number;
  caps_in_group: Record<string, number>;
}

/** Rewrites group references elsewhere (scenes) after a delete; returns how many records changed. */
export type GroupRenumberHook = (deletedId: number) => number;

export const MAX_GROUP_NAME = 64;

export class GroupService {
  private readonly renumberHooks: GroupRenumberHook[] = [];

  constructor(private readonly store: Store) {}

  onRenumber(hook: GroupRenumberHook): void {
    this.renumberHooks.push(hook);
  }

  exists(id: number): boolean {
    return id === 0 || this.store.state.groups.some((g) => g.id === id);
  }

  /** 404 unless `id` is 0 or an existing group. */
  requireExisting(id: number, field = 'groupId'): void {
    if (!this.exists(id)) throw new NotFoundError(`${field}: group ${id} not found`);
  }

  rows(): GroupRow[] {
    const { devices, groups } = this.store.state;
    const row = (id: number, name: string, isStatic: boolean, devType: number): GroupRow => {
      const members = devices.filter((d) => d.groupId === id);
      const caps: Record<string, number> = {};
      for (const d of members) for (const c of deviceTypeInfo(d.dev_type).caps) caps[c] = (caps[c] ?? 0) + 1;
      return {
        id,
        name,
        static: isStatic,
        dev_type: devType,
        device_count: members.length,
        caps_in_group: caps,
      };
    };
    return [
      row(0, UNCONFIGURED_GROUP_NAME, true, 0),
      ...groups.map((g) => row(g.id, g.name, false, g.dev_type)),
    ];
  }

  create(name: string, devType: number): number {
    const clean = this.checkName(name);
    if (this.store.state.groups.length >= MAX_GROUP_ID) {
      throw new ValidationError(`group limit reached: at most ${MAX_GROUP_ID} groups`);
    }
    return this.store.mutate(['GROUPS'], (s) => {
      const id = s.groups.length + 1;
      s.groups.push({ id, name: clean, dev_type: devType });
      return id;
    });
  }

  rename(id: number, name: string): void {
    const g = this.requireUserGroup(id);
    const clean = this.checkName(name);
    this.store.mutate(['GROUPS'], () => {
      g.name = clean;
    });
  }

  /** Removes the group; returns the counters and the devices whose stored group changed. */
  delete(id: number): {
    moved_devices: number;
    renumbered_devices: number;
    renumbered_scenes: number;
    changed: { addr: string; groupId: number }[];
  } {
    this.requireUserGroup(id);
    let moved = 0;
    let renumbered = 0;
    const changed: { addr: string; groupId: number }[] = [];
    const scenesChanged = this.renumberHooks.reduce((n, hook) => n + hook(id), 0);
    this.store.mutate(
      scenesChanged > 0 ? ['GROUPS', 'DEVICE_MEMBERSHIP', 'SCENES'] : ['GROUPS', 'DEVICE_MEMBERSHIP'],
      (s) => {
        for (const d of s.devices) {
          if (d.groupId === id) {
            // The node still carries the old id: pending until it confirms the new one.
            d.groupId = 0;
            d.group_pending = true;
            moved++;
            changed.push({ addr: d.addr, groupId: 0 });
          } else if (d.groupId > id) {
            d.groupId--;
            d.group_pending = true;
            renumbered++;
            changed.push({ addr: d.addr, groupId: d.groupId });
          }
        }
        s.groups = s.groups.filter((g) => g.id !== id).map((g, i): Group => ({ ...g, id: i + 1 }));
      },
    );
    return {
      moved_devices: moved,
      renumbered_devices: renumbered,
      renumbered_scenes: scenesChanged,
      changed,
    };
  }

  private requireUserGroup(id: number): Group {
    if (id === 0) throw new ValidationError('id: group 0 is a static group');
    const g = this.store.state.groups.find((x) => x.id === id);
    if (!g) throw new NotFoundError(`id: group ${id} not found`);
    return g;
  }

  private checkName(name: string): string {
    const clean = name.trim();
    if (!clean) throw new ValidationError('name: must not be empty');
    if (clean.length > MAX_GROUP_NAME)
      throw new ValidationError(`name: at most ${MAX_GROUP_NAME} characters`);
    if (RESERVED_GROUP_NAMES.includes(clean.toLowerCase())) {
      throw new ValidationError(`name: "${clean}" is reserved`);
    }
    return clean;
  }
}
