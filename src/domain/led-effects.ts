/**
 * LED effect and palette catalogues (the `mode` and `palette` selects of the native
 * effect editor), carried as data in ./catalog and checked once, on first use. The
 * product ships its own copy: nothing here reads files at run time.
 */
import * as z from 'zod';
import effectsJson from './catalog/led-effects.json' with { type: 'json' };
import palettesJson from './catalog/led-palettes.json' with { type: 'json' };

/** Effect fields whose use depends on the effect (mode and brightness always apply). */
export const SLOT_FIELDS = [
  'speed',
  'intensity',
  'custom1',
  'custom2',
  'custom3',
  'check1',
  'check2',
  'check3',
  'color1',
  'color2',
  'color3',
  'palette',
] as const;
export type SlotField = (typeof SLOT_FIELDS)[number];

export interface SlotInfo {
  used: boolean;
  /** The effect's own caption; absent = the generic caption. */
  label?: string;
}

export interface LedEffect {
  id: number;
  name: string;
  deterministic: boolean;
  slots: Record<SlotField, SlotInfo>;
}

export interface LedPalette {
  id: number;
  name: string;
}

export interface PaletteColorRules {
  /** Colour slot n is forced visible when palette p satisfies p >= force_slot_min_palette[n] (and p <= max). */
  force_slot_min_palette: [number, number, number];
  max_palette_id: number;
}

interface Catalog {
  effects: readonly LedEffect[];
  palettes: readonly LedPalette[];
  rules: PaletteColorRules;
  effectById: ReadonlyMap<number, LedEffect>;
  paletteById: ReadonlyMap<number, LedPalette>;
}

let built: Catalog | null = null;

/**
 * The catalogues, checked on first use rather than at import: building the schemas and
 * parsing ~190 effects cost ~7 ms of CPU, which a start (and most requests) never need.
 */
function catalog(): Catalog {
  if (built) return built;
  const slotSchema = z.object({ used: z.boolean(), label: z.string().optional() });
  const effectsFile = z
    .object({
      display_order: z.array(z.number().int()),
      effects: z.array(
        z.object({
          id: z.number().int().min(0).max(255),
          name: z.string(),
          deterministic: z.boolean(),
          slots: z.object(
            Object.fromEntries(SLOT_FIELDS.map((f) => [f, slotSchema])) as Record<
              SlotField,
              typeof slotSchema
            >,
          ),
        }),
      ),
    })
    .parse(effectsJson);
  const palettesFile = z
    .object({
      palette_color_rules: z.object({
        force_slot_min_palette: z.tuple([z.number().int(), z.number().int(), z.number().int()]),
        max_palette_id: z.number().int(),
      }),
      palettes: z.array(z.object({ id: z.number().int().min(0).max(255), name: z.string() })),
    })
    .parse(palettesJson);
  const effectById = new Map<number, LedEffect>(effectsFile.effects.map((e) => [e.id, e]));
  const paletteById = new Map<number, LedPalette>(
    palettesFile.palettes.map((p) => [p.id, { id: p.id, name: p.name }]),
  );
  built = {
    // Editor order: deterministic ones first, then the rest (ids unchanged).
    effects: effectsFile.display_order
      .map((id) => effectById.get(id))
      .filter((e): e is LedEffect => e !== undefined),
    palettes: [...paletteById.values()],
    rules: {
      force_slot_min_palette: palettesFile.palette_color_rules.force_slot_min_palette,
      max_palette_id: palettesFile.palette_color_rules.max_palette_id,
    },
    effectById,
    paletteById,
  };
  return built;
}

/** Effects in editor order: deterministic ones first, then the rest (ids unchanged). */
export function ledEffects(): readonly LedEffect[] {
  return catalog().effects;
}

export function ledPalettes(): readonly LedPalette[] {
  return catalog().palettes;
}

export function paletteColorRules(): PaletteColorRules {
  return catalog().rules;
}

export function ledEffect(id: number): LedEffect | undefined {
  return catalog().effectById.get(id);
}

export function ledPalette(id: number): LedPalette | undefined {
  return catalog().paletteById.get(id);
}

/**
 * Whether a colour slot (0-based: color1..color3) is forced visible by the palette,
 * even when the effect does not use it (palettes "* Color 1" … "* Colors Only").
 */
export function paletteForcesColor(paletteId: number, slot: 0 | 1 | 2): boolean {
  const rules = catalog().rules;
  return paletteId <= rules.max_palette_id && paletteId >= rules.force_slot_min_palette[slot];
}

/** Select options for the `mode` picker, as sent to editors. */
export function effectOptions(): {
  value: string;
  label: string;
  deterministic: boolean;
  slots: Record<SlotField, SlotInfo>;
}[] {
  return ledEffects().map((e) => ({
    value: String(e.id),
    label: e.name,
    deterministic: e.deterministic,
    slots: e.slots,
  }));
}

export function paletteOptions(): { value: string; label: string }[] {
  return ledPalettes().map((p) => ({ value: String(p.id), label: p.name }));
}
