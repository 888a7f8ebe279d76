/** The shapes the device registry shares with its callers (rows, recovery hooks, heard notes). */
import type { Device } from '../../../domain/model.ts';
import type { Addr } from '../../../protocol/types.ts';

export type DeviceRow = Omit<Device, 'specials'> & {
  dev_type_name: string;
  dev_type_caps: string[];
  caps: number;
  specials: Record<string, number>;
  [flatSpecial: string]: unknown;
};

/** The device's link state on rows: `rejoining` = known, believed rebooted, restore under way. */
export type DeviceLinkState = 'online' | 'rejoining' | 'offline';

/**
 * The recovery service's view into the registry (it lives above it): which devices are
 * rejoining, what to do with devices a caller wants to mark offline, and who restores a
 * known node that announces itself unbound.
 */
export interface RejoinHooks {
  isRejoining(addr: Addr): boolean;
  /** Given the devices about to be marked offline, returns those that really go offline. */
  filterOffline(addrs: readonly Addr[]): readonly Addr[];
  /** A known node announced itself (or answered discovery) outside its stored group. */
  restore(addr: Addr, groupId: number): void;
}

/** A reply from a known device, after it was applied (recovery listens). */
export interface HeardNote {
  addr: Addr;
  kind: 'IDENTIFY_REPLY' | 'STATUS_REPLY' | 'ACK' | 'OTHER';
  /** IDENTIFY: the group the node reported; ACK: the opcode acknowledged. */
  groupId?: number;
  ackOf?: number;
  ok?: boolean;
  announcement?: boolean;
}

export interface ReplyCounters {
  onIdentify?: (addr: Addr) => void;
  onStatus?: (addr: Addr) => void;
}
