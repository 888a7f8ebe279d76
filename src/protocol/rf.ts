/** P_RfConfig (§7.6): 12 bytes, shared by gateway commands, events and node opcodes. */
import type { RfConfig } from './types.ts';
import { checkInt, i8, rd8, rdI8, rdU16, rdU32, u16le, u8 } from './bytes.ts';

export const RF_CONFIG_LEN = 12;
export const VALID_BW_KHZ_X10: readonly number[] = [78, 104, 156, 208, 313, 417, 625, 1250, 2500, 5000];

export function encodeRfConfig(rf: RfConfig): Uint8Array {
  checkInt('freqHz', rf.freqHz, 0, 0xffffffff);
  const f = rf.freqHz;
  return Uint8Array.from([
    f & 0xff,
    (f >>> 8) & 0xff,
    (f >>> 16) & 0xff,
    (f >>> 24) & 0xff,
    ...u16le('bwKhzX10', rf.bwKhzX10),
    u8('sf', rf.sf),
    u8('crDen', rf.crDen),
    u8('syncWord', rf.syncWord),
    i8('txPowerDbm', rf.txPowerDbm),
    ...u16le('preamble', rf.preamble),
  ]);
}

export function decodeRfConfig(b: Uint8Array, offset = 0): RfConfig {
  if (offset < 0 || offset + RF_CONFIG_LEN > b.length) throw new RangeError('P_RfConfig needs 12 bytes');
  return {
    freqHz: rdU32(b, offset),
    bwKhzX10: rdU16(b, offset + 4),
    sf: rd8(b, offset + 6),
    crDen: rd8(b, offset + 7),
    syncWord: rd8(b, offset + 8),
    txPowerDbm: rdI8(b, offset + 9),
    preamble: rdU16(b, offset + 10),
  };
}

const inRange = (v: number, lo: number, hi: number): boolean => Number.isInteger(v) && v >= lo && v <= hi;

/** Firmware validation (rf_config_nvs.h); returns the first failing field or null. */
export function validateRfConfig(rf: RfConfig): string | null {
  if (!inRange(rf.freqHz, 863_000_000, 928_000_000)) return 'freqHz';
  if (!VALID_BW_KHZ_X10.includes(rf.bwKhzX10)) return 'bwKhzX10';
  if (!inRange(rf.sf, 5, 12)) return 'sf';
  if (!inRange(rf.crDen, 5, 8)) return 'crDen';
  // Unchecked by the firmware, but it must still fit its byte.
  if (!inRange(rf.syncWord, 0, 255)) return 'syncWord';
  if (!inRange(rf.txPowerDbm, -9, 22)) return 'txPowerDbm';
  if (!inRange(rf.preamble, 6, 0xffff)) return 'preamble';
  return null;
}
