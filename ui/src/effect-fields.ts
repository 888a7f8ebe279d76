/**
 * The 14-field native effect schema (GET /api/native-presets/schema) and which fields
 * an effect uses: pure code, unit-tested. `mode` and `brightness` always show; other
 * fields iff the effect's slot says `used`; colour slot n also shows when the palette
 * p satisfies force_slot_min_palette[n] <= p <= max_palette_id.
 */

export interface SelectOption {
  value: string;
  label: string;
  deterministic?: boolean;
  slots?: Record<string, { used: boolean; label?: string }>;
}

export interface FieldUi {
  widget: 'select' | 'slider' | 'toggle' | 'color' | 'number' | string;
  min?: number;
  max?: number;
  caption?: string;
  options?: SelectOption[];
  placeholder?: string;
}

export interface NativeSchema {
  vars: string[];
  ui: Record<string, FieldUi>;
  flags: { key: string; label: string }[];
  palette_color_rules: { force_slot_min_palette: number[]; max_palette_id: number };
}

export type Rgb = [number, number, number];
export type Params = Record<string, number | boolean | Rgb | string | null | undefined>;

export const COLOR_FIELDS = ['color1', 'color2', 'color3'];

export interface VisibleField {
  name: string;
  caption: string;
  ui: FieldUi;
}

const GENERIC: Record<string, string> = {
  mode: 'Effect',
  speed: 'Speed',
  intensity: 'Intensity',
  custom1: 'Custom 1',
  custom2: 'Custom 2',
  custom3: 'Custom 3',
  check1: 'Option 1',
  check2: 'Option 2',
  check3: 'Option 3',
  palette: 'Palette',
  brightness: 'Brightness',
};

export function visibleFields(schema: NativeSchema, params: Params): VisibleField[] {
  const modeOpts = schema.ui.mode?.options ?? [];
  const effect = modeOpts.find((o) => Number(o.value) === Number(params.mode ?? 0));
  const palette = Number(params.palette ?? 0);
  const rules = schema.palette_color_rules;
  const out: VisibleField[] = [];
  for (const name of schema.vars) {
    const ui = schema.ui[name];
    if (!ui) continue;
    if (name === 'mode' || name === 'brightness') {
      out.push({ name, caption: GENERIC[name] ?? name, ui });
      continue;
    }
    const slot = effect?.slots?.[name];
    const colorIdx = COLOR_FIELDS.indexOf(name);
    if (slot?.used) {
      out.push({ name, caption: slot.label ?? ui.caption ?? GENERIC[name] ?? name, ui });
    } else if (
      colorIdx >= 0 &&
      palette <= rules.max_palette_id &&
      palette >= (rules.force_slot_min_palette[colorIdx] ?? Infinity)
    ) {
      out.push({ name, caption: String(colorIdx + 1), ui });
    } else if (!effect && name !== 'mode') {
      // Unknown effect id: show everything rather than hide what it might use.
      out.push({ name, caption: ui.caption ?? GENERIC[name] ?? name, ui });
    }
  }
  return out;
}

/** Effects with the deterministic ones first (they look the same on every node). */
export function sortedEffects(schema: NativeSchema): SelectOption[] {
  const opts = schema.ui.mode?.options ?? [];
  return [...opts.filter((o) => o.deterministic), ...opts.filter((o) => !o.deterministic)];
}

export function rgbToHex(c: unknown): string {
  if (Array.isArray(c) && c.length === 3) {
    return (
      '#' +
      c
        .map((v) =>
          Math.max(0, Math.min(255, Number(v) || 0))
            .toString(16)
            .padStart(2, '0'),
        )
        .join('')
    );
  }
  if (typeof c === 'string' && /^#?[0-9a-f]{6}$/i.test(c)) return '#' + c.replace('#', '').toLowerCase();
  return '#000000';
}

export function hexToRgb(hex: string): Rgb {
  const h = hex.replace('#', '');
  return [
    parseInt(h.slice(0, 2), 16) || 0,
    parseInt(h.slice(2, 4), 16) || 0,
    parseInt(h.slice(4, 6), 16) || 0,
  ];
}

/** A field's value for the editor: unset sliders show their minimum, as the original did. */
export function fieldValue(p: Params, name: string, ui: FieldUi): number | boolean | string {
  const v = p[name];
  if (ui.widget === 'toggle') return v === true;
  if (ui.widget === 'color') return rgbToHex(v);
  if (v === null || v === undefined) return ui.min ?? 0;
  return Number(v);
}

/** Every field set (hidden ones too), so a preset saved here is a full control body. */
export function completeParams(schema: NativeSchema, p: Params): Params {
  const out: Params = {};
  for (const name of schema.vars) {
    const ui = schema.ui[name];
    if (!ui) continue;
    const v = p[name];
    if (ui.widget === 'toggle') out[name] = v === true;
    else if (ui.widget === 'color') out[name] = hexToRgb(rgbToHex(v));
    else out[name] = v === null || v === undefined ? (ui.min ?? 0) : Number(v);
  }
  return out;
}
