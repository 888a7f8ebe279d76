/**
 * Native presets: host-stored 14-field effect snapshots applied with OPC_CONTROL.
 * The same 14 fields are the inline params of a scene's `native_effect` action.
 * Values are range-checked on save and refused with a 400 naming the field, never
 * masked (decisions §5); `flags` is the flags byte of the user-chosen bits.
 */
import { ValidationError } from '../../errors.ts';
import { FLAG, USER_FLAG_MASK } from '../../protocol/flags.ts';
import type { ControlFields, Rgb } from '../../protocol/types.ts';
import { asBool, asInt, checkKeys, fail, isRecord, join } from '../input.ts';
import { ledEffect, ledPalette } from '../led-effects.ts';

/** The 14 fields in editor order (also the order of the schema's `vars`). */
export const NATIVE_PARAM_FIELDS = [
  'mode',
  'speed',
  'intensity',
  'custom1',
  'custom2',
  'custom3',
  'check1',
  'check2',
  'check3',
  'palette',
  'color1',
  'color2',
  'color3',
  'brightness',
] as const;
export type NativeParamField = (typeof NATIVE_PARAM_FIELDS)[number];

export const INT_FIELD_MAX: Partial<Record<NativeParamField, number>> = {
  mode: 255,
  speed: 255,
  intensity: 255,
  custom1: 255,
  custom2: 255,
  custom3: 31,
  palette: 255,
  brightness: 255,
};
const CHECK_FIELDS = ['check1', 'check2', 'check3'] as const;
const COLOR_FIELDS = ['color1', 'color2', 'color3'] as const;

/**
 * Effect fields given a value; an absent field is not sent and the node keeps its value.
 * Exactly the CONTROL body's optional fields (brightness included), so one type serves both.
 */
export type NativeEffectParams = ControlFields;

/** A stored preset always holds all 14 keys; null = not sent. */
export type NativePresetParams = { [K in NativeParamField]: NonNullable<NativeEffectParams[K]> | null };

export interface NativePreset {
  /** Monotonic, never reused; scenes reference presets by id so a rename never breaks them. */
  id: number;
  key: string;
  label: string;
  /** UTC ISO-8601 with seconds, e.g. 2026-05-01T21:26:54Z. */
  created: string;
  updated: string;
  params: NativePresetParams;
  /** Flags byte; only the user bits arm_on_sync 0x02, force_tt0 0x08, force_reapply 0x10, offset_mode 0x20. */
  flags: number;
}

export const FLAG_KEYS = ['arm_on_sync', 'force_tt0', 'force_reapply', 'offset_mode'] as const;
export type FlagKey = (typeof FLAG_KEYS)[number];
export const FLAG_BITS: Record<FlagKey, number> = {
  arm_on_sync: FLAG.ARM_ON_SYNC,
  force_tt0: FLAG.FORCE_TT0,
  force_reapply: FLAG.FORCE_REAPPLY,
  offset_mode: FLAG.OFFSET_MODE,
};
export const FLAG_LABELS: Record<FlagKey, string> = {
  arm_on_sync: 'Arm on SYNC',
  force_tt0: 'Force TT=0',
  force_reapply: 'Force reapply',
  offset_mode: 'Offset mode',
};

export interface ParseOptions {
  /** Stored data: unknown keys, and effect fields with a bad value, are dropped instead of refused. */
  lenient?: boolean;
  /** Where lenient parsing reports what it dropped. */
  notes?: string[];
}

/** `[r,g,b]` (0..255 each) or a hex string `FF8800` / `#ff8800`. */
export function parseColor(v: unknown, path: string): Rgb {
  if (typeof v === 'string') {
    const m = /^#?([0-9a-f]{6})$/i.exec(v.trim());
    if (!m?.[1]) return fail(path, 'must be [r,g,b] or a 6-digit hex colour');
    const n = parseInt(m[1], 16);
    return [(n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
  }
  if (!Array.isArray(v) || v.length !== 3) return fail(path, 'must be [r,g,b] or a 6-digit hex colour');
  return [
    asInt(v[0], join(path, 0), 0, 255),
    asInt(v[1], join(path, 1), 0, 255),
    asInt(v[2], join(path, 2), 0, 255),
  ];
}

function parseField<K extends NativeParamField>(
  k: K,
  v: unknown,
  path: string,
): NonNullable<NativeEffectParams[K]> {
  type Out = NonNullable<NativeEffectParams[K]>;
  if ((CHECK_FIELDS as readonly string[]).includes(k)) return asBool(v, path) as Out;
  if ((COLOR_FIELDS as readonly string[]).includes(k)) return parseColor(v, path) as Out;
  const n = asInt(v, path, 0, INT_FIELD_MAX[k] ?? 255);
  if (k === 'mode' && !ledEffect(n)) fail(path, `unknown effect id ${n}`);
  if (k === 'palette' && !ledPalette(n)) fail(path, `unknown palette id ${n}`);
  return n as Out;
}

/**
 * Validates effect params; returns only the fields with a value (null/absent omitted).
 * Paths in messages are `<path>.<field>`.
 */
export function parseEffectParams(input: unknown, path: string, opts: ParseOptions = {}): NativeEffectParams {
  if (input === undefined || input === null) return {};
  if (!isRecord(input)) return fail(path, 'must be an object');
  checkKeys(input, NATIVE_PARAM_FIELDS, path, opts.lenient ?? false);
  const out: NativeEffectParams = {};
  for (const k of NATIVE_PARAM_FIELDS) {
    const v = input[k];
    if (v === undefined || v === null) continue;
    try {
      (out as Record<string, unknown>)[k] = parseField(k, v, join(path, k));
    } catch (e) {
      // A stored value out of range (an older host masked instead of refusing) costs that field only.
      if (!opts.lenient || !(e instanceof ValidationError)) throw e;
      opts.notes?.push(`${e.message} (field dropped)`);
    }
  }
  return out;
}

/** All 14 keys, null where not given (a preset's stored shape). */
export function fullPresetParams(p: NativeEffectParams): NativePresetParams {
  const out = {} as Record<NativeParamField, unknown>;
  for (const k of NATIVE_PARAM_FIELDS) out[k] = p[k] ?? null;
  return out as NativePresetParams;
}

/** The fields of a stored preset that are sent (non-null). */
export function presetEffectParams(p: NativePresetParams): NativeEffectParams {
  const out: NativeEffectParams = {};
  for (const k of NATIVE_PARAM_FIELDS) {
    const v = p[k];
    if (v !== null) (out as Record<string, unknown>)[k] = v;
  }
  return out;
}

/**
 * Flags as the API takes them (decisions §5): the flags byte, or an object of the four
 * booleans. Bits the host derives itself (power_on 0x01, has_bri 0x04) and reserved bits
 * are refused rather than silently dropped.
 */
export function parsePresetFlags(v: unknown, path: string, opts: ParseOptions = {}): number {
  if (v === undefined || v === null) return 0;
  if (isRecord(v)) {
    checkKeys(v, FLAG_KEYS, path, opts.lenient ?? false);
    let out = 0;
    for (const k of FLAG_KEYS) if (v[k] !== undefined && asBool(v[k], join(path, k))) out |= FLAG_BITS[k];
    return out;
  }
  const n = asInt(v, path, 0, 255);
  if (n & ~USER_FLAG_MASK) {
    if (opts.lenient) return n & USER_FLAG_MASK;
    fail(
      path,
      `bits 0x${(n & ~USER_FLAG_MASK).toString(16).padStart(2, '0')} are not user flags ` +
        '(allowed: 0x02 arm_on_sync, 0x08 force_tt0, 0x10 force_reapply, 0x20 offset_mode)',
    );
  }
  return n;
}

/** The flags byte as the four named booleans. */
export function flagsObject(flags: number): Record<FlagKey, boolean> {
  return {
    arm_on_sync: (flags & FLAG.ARM_ON_SYNC) !== 0,
    force_tt0: (flags & FLAG.FORCE_TT0) !== 0,
    force_reapply: (flags & FLAG.FORCE_REAPPLY) !== 0,
    offset_mode: (flags & FLAG.OFFSET_MODE) !== 0,
  };
}

/** Prefix of a scene reference to a preset by key (`RL:<key>` in the original). */
export const PRESET_KEY_PREFIX = 'RL:';

/**
 * Resolves a scene's `presetId` reference: `RL:<key>` → by key; an integer or a numeric
 * string → by id; any other string → by key.
 */
export function resolvePresetRef(
  ref: string | number,
  presets: readonly NativePreset[],
): NativePreset | undefined {
  if (typeof ref === 'number') return presets.find((p) => p.id === ref);
  const s = ref.trim();
  if (s.startsWith(PRESET_KEY_PREFIX))
    return presets.find((p) => p.key === s.slice(PRESET_KEY_PREFIX.length));
  if (/^\d+$/.test(s)) return presets.find((p) => p.id === Number(s));
  return presets.find((p) => p.key === s);
}
