/**
 * The form schema served by `GET /api/specials` (§10.1, extended): per capability the
 * value options (type, range, unit, default, pair shape, readable), the methods (toggles
 * and one-shot CONFIG actions, with confirmation texts) and the functions with their
 * variables and widget hints, pickers filled from the current preset lists. `NODE` holds
 * what every node supports whatever its capabilities. Rebuilt on every call.
 */
import { SPECIAL_FUNCTIONS, type SpecialFunction } from '../../domain/specials/functions.ts';
import { SPECIAL_METHODS, type SpecialMethod } from '../../domain/specials/methods.ts';
import {
  OPTION_UNITS,
  SPECIAL_OPTIONS,
  flatKeys,
  isPair,
  type Capability,
  type SpecialOption,
} from '../../domain/specials/options.ts';
import type { LedPresetOptionsSource, NativePresetSource, PickerOption } from './sources.ts';

const CAPABILITY_LABELS: Record<Capability, string> = { STARTBLOCK: 'Startblock', LED: 'LED' };
export const NO_NATIVE_PRESETS: PickerOption = { value: '0', label: '— no native presets —' };

function optionSchema(o: SpecialOption): Record<string, unknown> {
  const common = {
    key: o.key,
    label: o.label,
    option: o.option,
    bytes: o.bytes,
    unit: OPTION_UNITS[o.key] ?? null,
    readable: true,
    writable: true,
    stored_keys: flatKeys(o),
  };
  if (isPair(o)) {
    return {
      ...common,
      type: 'uint16-pair',
      shape: 'uint16-pair',
      fields: o.fields.map((f) => ({ ...f, default: 0 })),
      default: { start: 0, stop: 0 },
    };
  }
  return { ...common, type: 'integer', min: o.min, max: o.max, default: o.default };
}

function methodSchema(m: SpecialMethod): Record<string, unknown> {
  return {
    key: m.key,
    label: m.label,
    option: m.option,
    kind: m.kind,
    readable: false,
    value: m.kind === 'toggle' ? { type: 'toggle', values: [0, 1] } : null,
    ...(m.configByteBit !== undefined ? { configByte_bit: m.configByteBit } : {}),
    description: m.description,
    ...(m.destructive ? { destructive: m.destructive } : {}),
  };
}

export class SpecialsSchema {
  constructor(
    private readonly led: LedPresetOptionsSource,
    private readonly native: NativePresetSource,
  ) {}

  /** The options a picker offers right now (also used to explain a bad presetId). */
  pickerOptions(fn: string): PickerOption[] {
    if (fn === 'led_preset') return this.led.options();
    if (fn === 'native_preset') {
      const list = this.native.list().map((p) => ({ value: String(p.id), label: p.label }));
      return list.length > 0 ? list : [NO_NATIVE_PRESETS];
    }
    return [];
  }

  private functionSchema(f: SpecialFunction): Record<string, unknown> {
    const ui: Record<string, Record<string, unknown>> = {};
    for (const v of f.vars) {
      ui[v.name] = {
        widget: v.widget,
        label: v.label,
        ...(v.widget === 'select' ? { options: this.pickerOptions(f.key) } : {}),
        ...(v.widget !== 'select' && v.min !== undefined ? { min: v.min } : {}),
        ...(v.widget !== 'select' && v.max !== undefined ? { max: v.max } : {}),
        ...(v.hint ? { hint: v.hint } : {}),
      };
    }
    return {
      key: f.key,
      label: f.label,
      vars: f.vars.map((v) => v.name),
      ui,
      type: f.type,
      unicast: f.unicast,
      broadcast: f.broadcast,
      description: f.description,
      ...(f.destructive ? { destructive: f.destructive } : {}),
      ...(f.refresh ? { refresh: f.refresh } : {}),
    };
  }

  build(): Record<string, unknown> {
    const out: Record<string, unknown> = {
      NODE: {
        label: 'Node (every device)',
        options: [],
        methods: SPECIAL_METHODS.filter((m) => m.capability === null).map(methodSchema),
        functions: [],
      },
    };
    for (const cap of ['STARTBLOCK', 'LED'] as const) {
      out[cap] = {
        label: CAPABILITY_LABELS[cap],
        options: SPECIAL_OPTIONS[cap].map(optionSchema),
        methods: SPECIAL_METHODS.filter((m) => m.capability === cap).map(methodSchema),
        functions: SPECIAL_FUNCTIONS.filter((f) => f.capability === cap).map((f) => this.functionSchema(f)),
      };
    }
    return out;
  }
}
