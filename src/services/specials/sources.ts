/**
 * Where the function pickers of the specials schema come from. The LED preset list
 * belongs to the preset-file service and the native presets to the native-preset
 * feature; the specials service reads both through these small interfaces, so it works
 * (with empty pickers) before those services exist and never depends on their internals.
 */
import * as z from 'zod';
import { userFlagsFromObject, USER_FLAG_MASK } from '../../protocol/flags.ts';
import type { ControlFields, Rgb } from '../../protocol/types.ts';
import type { Store } from '../../state/store.ts';

export interface PickerOption {
  value: string;
  label: string;
}

/** The LED preset dropdown: `{value:String(id), label}` of the active preset file, sorted by id. */
export interface LedPresetOptionsSource {
  options(): PickerOption[];
}

/** No preset-file service wired: the picker is empty (decisions §14: no active file → []). */
export const noLedPresetOptions: LedPresetOptionsSource = { options: () => [] };

export interface NativePresetRef {
  id: number;
  label: string;
  /** Only the fields the preset sets (null in the record = not sent). */
  fields: ControlFields;
  /** User flag bits of the flags byte. */
  userFlags: number;
}

export interface NativePresetSource {
  list(): NativePresetRef[];
}

const byte = z.number().int().min(0).max(255);
const rgb = z.tuple([byte, byte, byte]);
const boolFlags = z.object({
  arm_on_sync: z.boolean().optional(),
  force_tt0: z.boolean().optional(),
  force_reapply: z.boolean().optional(),
  offset_mode: z.boolean().optional(),
});
const storedPreset = z.object({
  id: z.number().int().min(0),
  label: z.string(),
  params: z
    .object({
      mode: byte.nullish(),
      speed: byte.nullish(),
      intensity: byte.nullish(),
      custom1: byte.nullish(),
      custom2: byte.nullish(),
      custom3: z.number().int().min(0).max(31).nullish(),
      check1: z.boolean().nullish(),
      check2: z.boolean().nullish(),
      check3: z.boolean().nullish(),
      palette: byte.nullish(),
      color1: rgb.nullish(),
      color2: rgb.nullish(),
      color3: rgb.nullish(),
      brightness: byte.nullish(),
    })
    .partial()
    .default({}),
  flags: z.union([byte, boolFlags]).default(0),
});

/**
 * Native presets as the store holds them (`state.native_presets`). Records that do not
 * have the expected shape are skipped rather than trusted: the array belongs to another
 * feature and may hold anything an older or newer file put there.
 */
export function storeNativePresets(store: Pick<Store, 'state'>): NativePresetSource {
  return nativePresetsFrom(() => store.state.native_presets);
}

/** Native presets from any list of records (the native-preset service's, or the store's). */
export function nativePresetsFrom(records: () => readonly unknown[]): NativePresetSource {
  return {
    list: () => {
      const out: NativePresetRef[] = [];
      for (const raw of records()) {
        const r = storedPreset.safeParse(raw);
        if (!r.success) continue;
        const fields: ControlFields = {};
        for (const [k, v] of Object.entries(r.data.params)) {
          if (v !== null && v !== undefined) (fields as Record<string, number | boolean | Rgb>)[k] = v;
        }
        const f = r.data.flags;
        out.push({
          id: r.data.id,
          label: r.data.label,
          fields,
          userFlags: typeof f === 'number' ? f & USER_FLAG_MASK : userFlagsFromObject(f),
        });
      }
      return out.sort((a, b) => a.id - b.id);
    },
  };
}
