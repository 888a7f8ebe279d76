/**
 * Per-capability device options ("specials"): which keys a device carries, their
 * option bytes, ranges and defaults. A device's specials map always holds every key
 * of every capability of its type (flat keys; pairs as `<key>_start`/`<key>_stop`).
 */
export type Capability = 'LED' | 'STARTBLOCK';

export interface ScalarOption {
  key: string;
  label: string;
  option: number;
  bytes: 1 | 2;
  min: number;
  max: number;
  default: number;
}

export interface PairOption {
  key: string;
  label: string;
  option: number;
  bytes: 4;
  shape: 'uint16-pair';
  fields: [{ name: 'start'; min: 0; max: 65535 }, { name: 'stop'; min: 0; max: 65535 }];
}

export type SpecialOption = ScalarOption | PairOption;

const pair = (key: string, label: string, option: number): PairOption => ({
  key,
  label,
  option,
  bytes: 4,
  shape: 'uint16-pair',
  fields: [
    { name: 'start', min: 0, max: 65535 },
    { name: 'stop', min: 0, max: 65535 },
  ],
});

export const SPECIAL_OPTIONS: Record<Capability, SpecialOption[]> = {
  STARTBLOCK: [
    { key: 'startblock_slots', label: 'Number Of Slots', option: 0x8c, bytes: 1, min: 1, max: 8, default: 1 },
    { key: 'startblock_first_slot', label: 'First Slot', option: 0x8d, bytes: 1, min: 1, max: 8, default: 1 },
  ],
  LED: [
    {
      key: 'led_fps',
      label: 'Target Refresh Rate (fps)',
      option: 0x05,
      bytes: 1,
      min: 0,
      max: 250,
      default: 75,
    },
    {
      key: 'led_abl_max_ma',
      label: 'ABL Max Current (mA, 0=off)',
      option: 0x08,
      bytes: 2,
      min: 0,
      max: 65535,
      default: 0,
    },
    {
      key: 'led_briS',
      label: 'Default Brightness (briS)',
      option: 0x09,
      bytes: 1,
      min: 0,
      max: 255,
      default: 128,
    },
    {
      key: 'led_transition_ms',
      label: 'Transition Duration (ms)',
      option: 0x0a,
      bytes: 2,
      min: 0,
      max: 65535,
      default: 700,
    },
    pair('led_seg0', 'Segment 0 Geometry (start/stop)', 0x06),
    pair('led_seg1', 'Segment 1 Geometry (start/stop)', 0x07),
  ],
};

export const isPair = (o: SpecialOption): o is PairOption => 'shape' in o;

/** The flat specials map of a device with the given capabilities: defaults overlaid by stored values. */
export function materializeSpecials(
  caps: readonly Capability[],
  stored: Record<string, unknown> = {},
): Record<string, number> {
  const out: Record<string, number> = {};
  const take = (k: string, dflt: number, min: number, max: number): void => {
    const v = stored[k];
    out[k] = typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : dflt;
  };
  for (const cap of [...caps].sort()) {
    for (const o of SPECIAL_OPTIONS[cap]) {
      if (isPair(o)) {
        take(`${o.key}_start`, 0, 0, 65535);
        take(`${o.key}_stop`, 0, 0, 65535);
      } else {
        take(o.key, o.default, o.min, o.max);
      }
    }
  }
  return out;
}

/** A value as the API speaks it: an integer, or `{start, stop}` for pair options. */
export type SpecialValue = number | { start: number; stop: number };

/** Display unit of each option (the form shows it next to the field). */
export const OPTION_UNITS: Record<string, string | null> = {
  startblock_slots: 'slots',
  startblock_first_slot: 'slot',
  led_fps: 'fps',
  led_abl_max_ma: 'mA',
  led_briS: null,
  led_transition_ms: 'ms',
  led_seg0: 'LED index',
  led_seg1: 'LED index',
};

/** Every option of a device with these capabilities, in schema order. */
export function optionsFor(caps: readonly Capability[]): SpecialOption[] {
  return [...caps].sort().flatMap((c) => SPECIAL_OPTIONS[c] ?? []);
}

export function findOption(caps: readonly Capability[], key: string): SpecialOption | undefined {
  return optionsFor(caps).find((o) => o.key === key);
}

/** The option of any capability with this key (to tell "unknown key" from "not on this device"). */
export function findAnyOption(key: string): SpecialOption | undefined {
  return optionsFor(['LED', 'STARTBLOCK']).find((o) => o.key === key);
}

export function defaultValue(o: SpecialOption): SpecialValue {
  return isPair(o) ? { start: 0, stop: 0 } : o.default;
}

/** Flat stored keys of an option: `<key>`, or `<key>_start` and `<key>_stop`. */
export function flatKeys(o: SpecialOption): string[] {
  return isPair(o) ? [`${o.key}_start`, `${o.key}_stop`] : [o.key];
}

export function flatten(o: SpecialOption, v: SpecialValue): Record<string, number> {
  if (isPair(o)) {
    const p = v as { start: number; stop: number };
    return { [`${o.key}_start`]: p.start, [`${o.key}_stop`]: p.stop };
  }
  return { [o.key]: v as number };
}

/** The stored value of an option in a (materialised) flat map. */
export function storedValue(o: SpecialOption, flat: Record<string, number>): SpecialValue {
  const d = defaultValue(o);
  if (isPair(o)) {
    const pd = d as { start: number; stop: number };
    return { start: flat[`${o.key}_start`] ?? pd.start, stop: flat[`${o.key}_stop`] ?? pd.stop };
  }
  return flat[o.key] ?? (d as number);
}

export const sameValue = (a: SpecialValue, b: SpecialValue): boolean =>
  typeof a === 'number' || typeof b === 'number' ? a === b : a.start === b.start && a.stop === b.stop;

/** An integer, also written as a decimal string (form fields); otherwise null. */
function asInt(v: unknown): number | null {
  if (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v)) return Number(v);
  return typeof v === 'number' && Number.isInteger(v) ? v : null;
}

/**
 * Checks a value for an option (write and import alike). Returns the normalised value or
 * an error message naming the field (`value`, `value.start`, …); nothing is masked.
 */
export function checkSpecialValue(
  o: SpecialOption,
  value: unknown,
): { ok: true; value: SpecialValue } | { ok: false; error: string } {
  const bad = (error: string) => ({ ok: false as const, error });
  if (value === undefined || value === null) return bad('value: is required');
  if (isPair(o)) {
    if (typeof value !== 'object' || Array.isArray(value))
      return bad(`value: must be an object {start, stop} for ${o.key}`);
    const rec = value as Record<string, unknown>;
    const out: Record<'start' | 'stop', number> = { start: 0, stop: 0 };
    for (const f of o.fields) {
      const raw = rec[f.name];
      if (raw === undefined || raw === null) return bad(`value.${f.name}: is required`);
      const n = asInt(raw);
      if (n === null) return bad(`value.${f.name}: must be an integer`);
      if (n < f.min) return bad(`value.${f.name}: must be >= ${f.min}`);
      if (n > f.max) return bad(`value.${f.name}: must be <= ${f.max}`);
      out[f.name] = n;
    }
    const extra = Object.keys(rec).filter((k) => k !== 'start' && k !== 'stop');
    if (extra.length > 0) return bad(`value.${extra[0]}: unknown field (expected start and stop)`);
    if (out.start > out.stop) return bad('value: start must be <= stop');
    return { ok: true, value: { start: out.start, stop: out.stop } };
  }
  if (typeof value === 'object') return bad(`value: must be an integer for ${o.key}, not an object`);
  const n = asInt(value);
  if (n === null) return bad('value: must be an integer');
  if (n < o.min) return bad(`value: must be >= ${o.min}`);
  if (n > o.max) return bad(`value: must be <= ${o.max}`);
  return { ok: true, value: n };
}

type Data4 = [number, number, number, number];

/** CONFIG data bytes, little endian (§10.2): 1 byte, 2 bytes, or start/stop u16 pair. */
export function packSpecial(o: SpecialOption, v: SpecialValue): Data4 {
  if (isPair(o)) {
    const p = v as { start: number; stop: number };
    return [p.start & 0xff, (p.start >>> 8) & 0xff, p.stop & 0xff, (p.stop >>> 8) & 0xff];
  }
  const n = v as number;
  return o.bytes === 2 ? [n & 0xff, (n >>> 8) & 0xff, 0, 0] : [n & 0xff, 0, 0, 0];
}

/** Inverse of packSpecial for a GET_CONFIG reply (unused bytes ignored). */
export function unpackSpecial(o: SpecialOption, data: readonly number[]): SpecialValue {
  const d = (i: number): number => data[i] ?? 0;
  if (isPair(o)) return { start: d(0) | (d(1) << 8), stop: d(2) | (d(3) << 8) };
  return o.bytes === 2 ? d(0) | (d(1) << 8) : d(0);
}
