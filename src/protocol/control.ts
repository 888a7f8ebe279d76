/**
 * OPC_CONTROL body (§6.8): groupId | flags | fieldMask | main fields | [extMask | ext fields].
 * Fields appear in mask-bit order and only when present.
 */
import type { ControlFields, Rgb } from './types.ts';
import { rd8, u8 } from './bytes.ts';

export const FIELD = {
  BRIGHTNESS: 0x01,
  MODE: 0x02,
  SPEED: 0x04,
  INTENSITY: 0x08,
  CUSTOM1: 0x10,
  CUSTOM2: 0x20,
  C3CHECKS: 0x40,
  EXT: 0x80,
} as const;

export const EXT = { PALETTE: 0x01, COLOR1: 0x02, COLOR2: 0x04, COLOR3: 0x08 } as const;

const MAIN_U8: readonly (readonly [keyof ControlFields, number])[] = [
  ['brightness', FIELD.BRIGHTNESS],
  ['mode', FIELD.MODE],
  ['speed', FIELD.SPEED],
  ['intensity', FIELD.INTENSITY],
  ['custom1', FIELD.CUSTOM1],
  ['custom2', FIELD.CUSTOM2],
];

const COLORS: readonly (readonly ['color1' | 'color2' | 'color3', number])[] = [
  ['color1', EXT.COLOR1],
  ['color2', EXT.COLOR2],
  ['color3', EXT.COLOR3],
];

function hasC3(f: ControlFields): boolean {
  return (
    f.custom3 !== undefined || f.check1 !== undefined || f.check2 !== undefined || f.check3 !== undefined
  );
}

function hasExt(f: ControlFields): boolean {
  return (
    f.palette !== undefined || f.color1 !== undefined || f.color2 !== undefined || f.color3 !== undefined
  );
}

/** Body length for these fields (3..21). */
export function controlBodyLength(fields: ControlFields): number {
  let n = 3;
  for (const [k] of MAIN_U8) if (fields[k] !== undefined) n++;
  if (hasC3(fields)) n++;
  if (hasExt(fields)) {
    n++;
    if (fields.palette !== undefined) n++;
    for (const [k] of COLORS) if (fields[k] !== undefined) n += 3;
  }
  return n;
}

export function encodeControl(groupId: number, flags: number, f: ControlFields): Uint8Array {
  const out: number[] = [u8('groupId', groupId), u8('flags', flags), 0];
  let mask = 0;
  for (const [k, bit] of MAIN_U8) {
    const v = f[k];
    if (v === undefined) continue;
    mask |= bit;
    out.push(u8(k, v as number));
  }
  if (hasC3(f)) {
    mask |= FIELD.C3CHECKS;
    const c3 = f.custom3 ?? 0;
    if (!Number.isInteger(c3) || c3 < 0 || c3 > 31)
      throw new RangeError(`custom3 must be an integer in 0..31 (got ${c3})`);
    out.push(c3 | (f.check1 ? 0x20 : 0) | (f.check2 ? 0x40 : 0) | (f.check3 ? 0x80 : 0));
  }
  if (hasExt(f)) {
    mask |= FIELD.EXT;
    let ext = 0;
    const extBytes: number[] = [];
    if (f.palette !== undefined) {
      ext |= EXT.PALETTE;
      extBytes.push(u8('palette', f.palette));
    }
    for (const [k, bit] of COLORS) {
      const c = f[k];
      if (c === undefined) continue;
      if (c.length !== 3) throw new RangeError(`${k} must have 3 components`);
      ext |= bit;
      extBytes.push(u8(`${k}.r`, c[0]), u8(`${k}.g`, c[1]), u8(`${k}.b`, c[2]));
    }
    out.push(ext, ...extBytes);
  }
  out[2] = mask;
  return Uint8Array.from(out);
}

/** Node-side strict parse: null when bytes run out early or remain afterwards. */
export function decodeControl(
  body: Uint8Array,
): { groupId: number; flags: number; fields: ControlFields } | null {
  if (body.length < 3 || body.length > 21) return null;
  const mask = rd8(body, 2);
  let p = 3;
  const need = (n: number): boolean => p + n <= body.length;
  const fields: ControlFields = {};
  for (const [k, bit] of MAIN_U8) {
    if (!(mask & bit)) continue;
    if (!need(1)) return null;
    (fields as Record<string, number>)[k] = rd8(body, p++);
  }
  if (mask & FIELD.C3CHECKS) {
    if (!need(1)) return null;
    const b = rd8(body, p++);
    fields.custom3 = b & 0x1f;
    fields.check1 = (b & 0x20) !== 0;
    fields.check2 = (b & 0x40) !== 0;
    fields.check3 = (b & 0x80) !== 0;
  }
  if (mask & FIELD.EXT) {
    if (!need(1)) return null;
    const ext = rd8(body, p++);
    if (ext & EXT.PALETTE) {
      if (!need(1)) return null;
      fields.palette = rd8(body, p++);
    }
    for (const [k, bit] of COLORS) {
      if (!(ext & bit)) continue;
      if (!need(3)) return null;
      const c: Rgb = [rd8(body, p), rd8(body, p + 1), rd8(body, p + 2)];
      fields[k] = c;
      p += 3;
    }
  }
  if (p !== body.length) return null;
  return { groupId: rd8(body, 0), flags: rd8(body, 1), fields };
}
