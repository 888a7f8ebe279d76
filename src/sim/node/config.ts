/**
 * CONFIG / GET_CONFIG options of a node (§6.5, §6.10, §8.12): the persisted overrides and
 * how each option reads and writes them. Method options (reboot, clear master, …) are
 * executed by the node itself; this module only answers "what does this option do".
 */

export interface SegmentRange {
  start: number;
  stop: number;
}

export interface Overrides {
  fps: number;
  ablMa: number;
  seg0: SegmentRange;
  seg1: SegmentRange | null;
  briS: number;
  transitionMs: number;
}

export function defaultOverrides(): Overrides {
  return { fps: 75, ablMa: 0, seg0: { start: 0, stop: 200 }, seg1: null, briS: 128, transitionMs: 700 };
}

export function cloneOverrides(o: Overrides): Overrides {
  return { ...o, seg0: { ...o.seg0 }, seg1: o.seg1 ? { ...o.seg1 } : null };
}

export interface StartblockConfig {
  slots: number;
  firstSlot: number;
}

export type Data4 = [number, number, number, number];

const u16 = (d: readonly number[], i: number): number => (d[i] ?? 0) | ((d[i + 1] ?? 0) << 8);
const pack16 = (v: number): [number, number] => [v & 0xff, (v >>> 8) & 0xff];
const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));

/** Live value of a readable option, packed like the write; null = not readable (no reply). */
export function readOption(option: number, o: Overrides, startblock: StartblockConfig | null): Data4 | null {
  switch (option) {
    case 0x05:
      return [o.fps, 0, 0, 0];
    case 0x06:
      return [...pack16(o.seg0.start), ...pack16(o.seg0.stop)];
    case 0x07:
      return o.seg1 ? [...pack16(o.seg1.start), ...pack16(o.seg1.stop)] : [0, 0, 0, 0];
    case 0x08:
      return [...pack16(o.ablMa), 0, 0];
    case 0x09:
      return [o.briS, 0, 0, 0];
    case 0x0a:
      return [...pack16(o.transitionMs), 0, 0];
    case 0x8c:
      return startblock ? [startblock.slots, 0, 0, 0] : null;
    case 0x8d:
      return startblock ? [startblock.firstSlot, 0, 0, 0] : null;
    default:
      return null;
  }
}

/**
 * Applies a persisted-value option (0x05–0x0A, 0x8C, 0x8D) to `o` / `startblock`.
 * Returns true if the option is one of those (and was applied), false otherwise.
 */
export function writeValueOption(
  option: number,
  d: readonly number[],
  o: Overrides,
  startblock: StartblockConfig | null,
): boolean {
  switch (option) {
    case 0x05:
      o.fps = Math.min(250, d[0] ?? 0);
      return true;
    case 0x06:
      o.seg0 = { start: u16(d, 0), stop: u16(d, 2) };
      return true;
    case 0x07:
      o.seg1 = { start: u16(d, 0), stop: u16(d, 2) };
      return true;
    case 0x08:
      o.ablMa = u16(d, 0);
      return true;
    case 0x09:
      o.briS = d[0] ?? 0;
      return true;
    case 0x0a:
      o.transitionMs = u16(d, 0);
      return true;
    case 0x8c:
      if (startblock) startblock.slots = clamp(d[0] ?? 0, 1, 8);
      return startblock !== null;
    case 0x8d:
      if (startblock) startblock.firstSlot = clamp(d[0] ?? 0, 1, 8);
      return startblock !== null;
    default:
      return false;
  }
}

/** Startblock record v1 (§6.7): ver=0x01 | slot | channel 2 chars | nameLen | name. */
export interface StartblockRecord {
  slot: number;
  channel: string;
  name: string;
}

export function parseStartblockRecord(buf: Uint8Array): StartblockRecord | null {
  if (buf.length < 5 || buf[0] !== 0x01) return null;
  const nameLen = buf[4] ?? 0;
  const ascii = (b: Uint8Array): string => String.fromCharCode(...b);
  return {
    slot: buf[1] ?? 0,
    channel: ascii(buf.subarray(2, 4)),
    name: ascii(buf.subarray(5, Math.min(buf.length, 5 + nameLen))),
  };
}
