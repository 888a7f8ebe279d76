/**
 * Small helpers for building and reading little-endian wire fields. Range checks throw a
 * RangeError that names the field, so a caller can report exactly which value did not fit.
 */

export function checkInt(field: string, v: number, min: number, max: number): number {
  if (!Number.isInteger(v) || v < min || v > max) {
    throw new RangeError(`${field} must be an integer in ${min}..${max} (got ${String(v)})`);
  }
  return v;
}

export const u8 = (field: string, v: number): number => checkInt(field, v, 0, 0xff);

export function u16le(field: string, v: number): [number, number] {
  checkInt(field, v, 0, 0xffff);
  return [v & 0xff, (v >>> 8) & 0xff];
}

export function i16le(field: string, v: number): [number, number] {
  checkInt(field, v, -32768, 32767);
  const w = v & 0xffff;
  return [w & 0xff, (w >>> 8) & 0xff];
}

export function i8(field: string, v: number): number {
  checkInt(field, v, -128, 127);
  return v & 0xff;
}

/** Reads never throw: out-of-range indexes read as 0 (callers check lengths first). */
export function rd8(b: Uint8Array, off: number): number {
  return b[off] ?? 0;
}

export function rdU16(b: Uint8Array, off: number): number {
  return rd8(b, off) | (rd8(b, off + 1) << 8);
}

export function rdI16(b: Uint8Array, off: number): number {
  const v = rdU16(b, off);
  return v >= 0x8000 ? v - 0x10000 : v;
}

export function rdI8(b: Uint8Array, off: number): number {
  const v = rd8(b, off);
  return v >= 0x80 ? v - 0x100 : v;
}

export function rdU32(b: Uint8Array, off: number): number {
  return (rd8(b, off) | (rd8(b, off + 1) << 8) | (rd8(b, off + 2) << 16) | (rd8(b, off + 3) << 24)) >>> 0;
}

export function toHex(b: Uint8Array): string {
  let s = '';
  for (const x of b) s += x.toString(16).padStart(2, '0').toUpperCase();
  return s;
}

export function concatBytes(...parts: (Uint8Array | readonly number[])[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
