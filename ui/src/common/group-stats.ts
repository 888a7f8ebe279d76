/** A group's member counts for the sidebar and pickers, from the device list alone. */
import { deviceKind } from '../format.ts';
import type { Device } from '../types.ts';

export interface GroupStats {
  total: number;
  online: number;
  /** Members having each capability (a start block counts under LED and STARTBLOCK). */
  caps: Record<string, number>;
  /** Members per kind (`deviceKind`): each counted once, so the counts add up to `total`. */
  kinds: Record<string, number>;
  /** Members per network id (the sidebar's chips with several networks). */
  networks: Record<number, number>;
}

export const EMPTY_STATS: GroupStats = { total: 0, online: 0, caps: {}, kinds: {}, networks: {} };

type Member = Pick<Device, 'groupId' | 'online' | 'network_id' | 'dev_type_caps'>;

export function groupStatsOf(devices: readonly Member[]): Map<number, GroupStats> {
  const m = new Map<number, GroupStats>();
  for (const d of devices) {
    let s = m.get(d.groupId);
    if (!s) m.set(d.groupId, (s = { total: 0, online: 0, caps: {}, kinds: {}, networks: {} }));
    s.total++;
    if (d.network_id !== undefined) s.networks[d.network_id] = (s.networks[d.network_id] ?? 0) + 1;
    if (d.online) s.online++;
    for (const c of d.dev_type_caps) s.caps[c] = (s.caps[c] ?? 0) + 1;
    const kind = deviceKind(d.dev_type_caps);
    if (kind) s.kinds[kind] = (s.kinds[kind] ?? 0) + 1;
  }
  return m;
}
