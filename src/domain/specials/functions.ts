/**
 * Device functions (§10, served by `GET /api/specials`, run by `POST /api/specials/action`):
 * one-shot commands with declared variables and widget hints, and the coercion of the
 * request's `params` to those variables (§10.4). Pure: the pickers' option lists are
 * filled in by the schema service.
 */
import type { Capability } from './options.ts';

export type Widget = 'select' | 'slider' | 'number' | 'color' | 'toggle';

export interface FunctionVar {
  name: string;
  label: string;
  widget: Widget;
  min?: number;
  max?: number;
  /** What an absent variable means (for the form). */
  hint?: string;
}

export interface SpecialFunction {
  key: string;
  label: string;
  capability: Capability;
  vars: readonly FunctionVar[];
  type: 'control' | 'action';
  unicast: boolean;
  broadcast: boolean;
  description: string;
  destructive?: { message: string };
  /** The UI re-reads every option of the device after the action. */
  refresh?: 'active-tab';
}

const BRIGHTNESS: FunctionVar = {
  name: 'brightness',
  label: 'Brightness',
  widget: 'slider',
  min: 0,
  max: 255,
  hint: 'empty keeps the node’s current brightness',
};

export const SPECIAL_FUNCTIONS: readonly SpecialFunction[] = [
  {
    key: 'startblock_control',
    label: 'Startblock Control',
    capability: 'STARTBLOCK',
    vars: [],
    type: 'control',
    unicast: true,
    broadcast: true,
    description:
      'Sends the slot records (channel and pilot name) of the node’s slots. Standalone there is no heat, so the slots are cleared.',
  },
  {
    key: 'led_preset',
    label: 'LED Preset',
    capability: 'LED',
    vars: [{ name: 'presetId', label: 'Preset', widget: 'select', min: 1, max: 255 }, BRIGHTNESS],
    type: 'control',
    unicast: true,
    broadcast: true,
    description: 'Applies one of the LED firmware’s presets (from the active preset file).',
  },
  {
    key: 'native_preset',
    label: 'Native Preset',
    capability: 'LED',
    vars: [{ name: 'presetId', label: 'Native preset', widget: 'select', min: 0, max: 65535 }, BRIGHTNESS],
    type: 'control',
    unicast: true,
    broadcast: true,
    description: 'Applies a stored native preset (effect parameters) in one control frame.',
  },
  {
    key: 'led_reset_overrides',
    label: 'Reset to native defaults',
    capability: 'LED',
    vars: [],
    type: 'action',
    unicast: true,
    broadcast: false,
    description:
      'Puts the node’s LED options back to the firmware defaults (the node confirms it); the host’s stored LED options follow.',
    destructive: {
      message:
        'Refresh rate (75 fps) and current limit (off) revert to firmware defaults; segment 0 becomes 0..200, segment 1 is removed, default brightness 128, transition 700 ms.\nThe host’s stored LED options are reset to their schema defaults: read them back and import where they differ.',
    },
    refresh: 'active-tab',
  },
];

export function functionsFor(caps: readonly Capability[]): SpecialFunction[] {
  return SPECIAL_FUNCTIONS.filter((f) => caps.includes(f.capability));
}

export type Rgb = [number, number, number];
export type ParamValue = number | boolean | Rgb;
type Coerced = { ok: true; value: ParamValue } | { ok: false; error: string };

const HEX = /^#?([0-9a-fA-F]{6})$/;

function coerceColor(name: string, v: unknown): Coerced {
  const byte = (x: unknown): number | null =>
    typeof x === 'number' && Number.isInteger(x) && x >= 0 && x <= 255 ? x : null;
  if (typeof v === 'string') {
    const m = HEX.exec(v.trim());
    if (!m) return { ok: false, error: `params.${name}: invalid hex color ${JSON.stringify(v)} (#RRGGBB)` };
    const n = parseInt(m[1] as string, 16);
    return { ok: true, value: [(n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff] };
  }
  if (Array.isArray(v)) {
    const rgb = v.map(byte);
    if (v.length !== 3 || rgb.some((x) => x === null))
      return { ok: false, error: `params.${name}: invalid color array (3 integers 0..255)` };
    return { ok: true, value: rgb as Rgb };
  }
  if (typeof v === 'object' && v !== null) {
    const o = v as Record<string, unknown>;
    const rgb = [byte(o.r), byte(o.g), byte(o.b)];
    if (rgb.some((x) => x === null))
      return { ok: false, error: `params.${name}: invalid color object ({r, g, b} integers 0..255)` };
    return { ok: true, value: rgb as Rgb };
  }
  return { ok: false, error: `params.${name}: unsupported color value` };
}

function coerceToggle(name: string, v: unknown): Coerced {
  if (typeof v === 'boolean') return { ok: true, value: v };
  if (typeof v === 'number' && Number.isFinite(v)) return { ok: true, value: v !== 0 };
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(s)) return { ok: true, value: true };
    if (['0', 'false', 'no', 'off', ''].includes(s)) return { ok: true, value: false };
  }
  return { ok: false, error: `params.${name}: must be a boolean` };
}

function coerceInt(def: FunctionVar, v: unknown): Coerced {
  const n =
    typeof v === 'number' ? v : typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : Number.NaN;
  if (!Number.isInteger(n)) return { ok: false, error: `params.${def.name}: must be an integer` };
  if (def.min !== undefined && n < def.min)
    return { ok: false, error: `params.${def.name}: must be >= ${def.min}` };
  if (def.max !== undefined && n > def.max)
    return { ok: false, error: `params.${def.name}: must be <= ${def.max}` };
  return { ok: true, value: n };
}

/**
 * Reads the function's declared variables from `params` (§10.4): absent (or null/empty)
 * variables are left out for the handler's own default, unknown keys are ignored.
 */
export function coerceParams(
  fn: SpecialFunction,
  params: Record<string, unknown>,
): { ok: true; params: Record<string, ParamValue> } | { ok: false; error: string } {
  const out: Record<string, ParamValue> = {};
  for (const def of fn.vars) {
    const raw = params[def.name];
    if (raw === undefined || raw === null || raw === '') continue;
    const r =
      def.widget === 'color'
        ? coerceColor(def.name, raw)
        : def.widget === 'toggle'
          ? coerceToggle(def.name, raw)
          : coerceInt(def, raw);
    if (!r.ok) return r;
    out[def.name] = r.value;
  }
  return { ok: true, params: out };
}
