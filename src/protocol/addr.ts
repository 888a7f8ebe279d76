/**
 * LoRa addresses: the last three MAC bytes, spoken as 6 upper-case hex characters.
 */
import { BROADCAST, type Addr } from './types.ts';
import { toHex } from './bytes.ts';

/**
 * Lenient address input (decisions §1): every non-hex character is stripped, fewer than 6
 * hex digits is invalid, longer input (a full 12-hex MAC) is reduced to its last 6 digits.
 */
export function normalizeAddr(input: string): Addr | null {
  if (typeof input !== 'string') return null;
  // Separators (':', '-', spaces) are simply non-hex characters and vanish here.
  const hex = input.replace(/[^0-9a-fA-F]/g, '');
  if (hex.length < 6) return null;
  return hex.slice(-6).toUpperCase();
}

function assertAddr(a: Addr): void {
  if (!/^[0-9A-Fa-f]{6}$/.test(a))
    throw new RangeError(`address must be 6 hex characters (got ${JSON.stringify(a)})`);
}

/** 3 bytes, most significant first (wire order of last3). */
export function addrToBytes(a: Addr): Uint8Array {
  assertAddr(a);
  const out = new Uint8Array(3);
  for (let i = 0; i < 3; i++) out[i] = parseInt(a.slice(i * 2, i * 2 + 2), 16);
  return out;
}

export function bytesToAddr(b: Uint8Array, offset = 0): Addr {
  if (offset < 0 || offset + 3 > b.length) throw new RangeError('bytesToAddr: need 3 bytes');
  return toHex(b.subarray(offset, offset + 3));
}

/** 6-byte MAC → 12 upper-case hex characters. */
export function macToString(mac6: Uint8Array): string {
  return toHex(mac6.subarray(0, 6));
}

export function isBroadcast(a: Addr): boolean {
  return a.toUpperCase() === BROADCAST;
}
