/** Flags byte (§7.1), configByte (§7.2) and the SYNC flags byte (§6.6). */

export const FLAG = {
  POWER_ON: 0x01,
  ARM_ON_SYNC: 0x02,
  HAS_BRI: 0x04,
  FORCE_TT0: 0x08,
  FORCE_REAPPLY: 0x10,
  OFFSET_MODE: 0x20,
} as const;

export const CONFIG_BYTE = { MAC_FILTER: 1, MASTER_PERSIST: 2, AP_ACTIVE: 4 } as const;

export const SYNC_FLAG_TRIGGER_ARMED = 0x01;

/** The flag bits an operator chooses; POWER_ON and HAS_BRI are derived by the host. */
export const USER_FLAG_MASK = FLAG.ARM_ON_SYNC | FLAG.FORCE_TT0 | FLAG.FORCE_REAPPLY | FLAG.OFFSET_MODE;

export interface UserFlags {
  arm_on_sync?: boolean;
  force_tt0?: boolean;
  force_reapply?: boolean;
  offset_mode?: boolean;
}

export function userFlagsFromObject(o: UserFlags): number {
  return (
    (o.arm_on_sync ? FLAG.ARM_ON_SYNC : 0) |
    (o.force_tt0 ? FLAG.FORCE_TT0 : 0) |
    (o.force_reapply ? FLAG.FORCE_REAPPLY : 0) |
    (o.offset_mode ? FLAG.OFFSET_MODE : 0)
  );
}

export function userFlagsToObject(flags: number): Required<UserFlags> {
  return {
    arm_on_sync: (flags & FLAG.ARM_ON_SYNC) !== 0,
    force_tt0: (flags & FLAG.FORCE_TT0) !== 0,
    force_reapply: (flags & FLAG.FORCE_REAPPLY) !== 0,
    offset_mode: (flags & FLAG.OFFSET_MODE) !== 0,
  };
}

/**
 * Wire flags for CONTROL/PRESET as the host builds them: HAS_BRI always, POWER_ON iff
 * brightness > 0. Without a brightness POWER_ON stays set, so that omitting brightness never
 * switches a node off (decisions §12). Reserved bits 6-7 are sent as 0.
 */
export function buildControlFlags(userFlags: number, brightness: number | undefined): number {
  const power = brightness === undefined || brightness > 0 ? FLAG.POWER_ON : 0;
  return (userFlags & USER_FLAG_MASK) | FLAG.HAS_BRI | power;
}
