/**
 * Native presets: CRUD and duplicate of the host-stored 14-field effect snapshots,
 * plus the editor schema. Every change goes through the Store with NATIVE_PRESETS
 * (→ SSE refresh `native_presets`); a refused request changes nothing.
 */
import type { Clock } from '../../clock.ts';
import { NotFoundError } from '../../errors.ts';
import { allocateId } from '../../domain/model.ts';
import { isoSeconds, slugify, uniqueKey } from '../../domain/scenes/keys.ts';
import { effectOptions, paletteColorRules, paletteOptions } from '../../domain/led-effects.ts';
import {
  FLAG_KEYS,
  FLAG_LABELS,
  fullPresetParams,
  INT_FIELD_MAX,
  NATIVE_PARAM_FIELDS,
  parseEffectParams,
  parsePresetFlags,
  resolvePresetRef,
  type NativeParamField,
  type NativePreset,
} from '../../domain/scenes/native-preset.ts';
import type { SceneAction } from '../../domain/scenes/types.ts';
import type { Logger } from '../../logger.ts';
import type { Store } from '../../state/store.ts';
import { checkFields, nonEmptyLabel, optionalKey, requiredLabel, sameKey } from './library-input.ts';

export interface PresetInput {
  label?: unknown;
  key?: unknown;
  params?: unknown;
  flags?: unknown;
}

const COLOR_CAPTIONS: Partial<Record<NativeParamField, string>> = {
  color1: 'Fx',
  color2: 'Bg',
  color3: 'Cs',
};

/** Per-field widget hints of the 14-field editor (shared with the scene editor's native_effect). */
export function nativeEffectUi(): Record<NativeParamField, Record<string, unknown>> {
  const ui = {} as Record<NativeParamField, Record<string, unknown>>;
  for (const f of NATIVE_PARAM_FIELDS) {
    if (f === 'mode') ui[f] = { widget: 'select', options: effectOptions() };
    else if (f === 'palette') ui[f] = { widget: 'select', options: paletteOptions() };
    else if (f.startsWith('check')) ui[f] = { widget: 'toggle' };
    else if (f.startsWith('color')) ui[f] = { widget: 'color', caption: COLOR_CAPTIONS[f] };
    else ui[f] = { widget: 'slider', min: 0, max: INT_FIELD_MAX[f] ?? 255 };
  }
  return ui;
}

export const flagList = (): { key: string; label: string }[] =>
  FLAG_KEYS.map((key) => ({ key, label: FLAG_LABELS[key] }));

const PRESET_FIELDS = ['label', 'key', 'params', 'flags'];

export class NativePresetService {
  constructor(private readonly deps: { store: Store; clock: Clock; log: Logger }) {}

  list(): NativePreset[] {
    return this.deps.store.state.native_presets.map(copy);
  }

  get(key: string): NativePreset {
    return copy(this.find(key));
  }

  /** Looks up a scene's `presetId` reference (id, `RL:<key>` or key). */
  resolve(ref: string | number): NativePreset | undefined {
    const p = resolvePresetRef(ref, this.deps.store.state.native_presets);
    return p && copy(p);
  }

  create(body: PresetInput): NativePreset {
    checkFields(body, PRESET_FIELDS);
    const label = requiredLabel(body.label);
    const params = fullPresetParams(parseEffectParams(body.params, 'params'));
    const flags = parsePresetFlags(body.flags, 'flags');
    return this.insert(label, slugify(optionalKey(body.key) ?? label, 'preset'), params, flags);
  }

  update(key: string, body: PresetInput): NativePreset {
    const p = this.find(key);
    // Everything is checked before anything changes: no half-applied update.
    checkFields(body, PRESET_FIELDS);
    sameKey(body.key, key);
    const label = body.label === undefined ? p.label : nonEmptyLabel(body.label);
    const params =
      body.params === undefined ? p.params : fullPresetParams(parseEffectParams(body.params, 'params'));
    const flags = body.flags === undefined ? p.flags : parsePresetFlags(body.flags, 'flags');
    const now = isoSeconds(this.deps.clock.now());
    this.deps.store.mutate(['NATIVE_PRESETS'], () => {
      Object.assign(p, { label, params, flags, updated: now });
    });
    this.deps.log.info({ key, id: p.id }, 'native preset updated');
    return copy(p);
  }

  /**
   * Deletes the preset; returns the keys of scenes that still reference it (their
   * actions will fail at run time with preset_not_found until edited).
   */
  remove(key: string): { referenced_by: string[] } {
    const p = this.find(key);
    const { store } = this.deps;
    const refs = (a: SceneAction): boolean =>
      (a.kind === 'native_preset' &&
        a.params.presetId !== undefined &&
        resolvePresetRef(a.params.presetId, store.state.native_presets) === p) ||
      (a.kind === 'offset_group' && a.actions.some(refs));
    const referenced_by = store.state.scenes.filter((s) => s.actions.some(refs)).map((s) => s.key);
    store.mutate(['NATIVE_PRESETS'], (s) => {
      s.native_presets = s.native_presets.filter((x) => x !== p);
    });
    this.deps.log.info({ key, id: p.id, referenced_by }, 'native preset deleted');
    return { referenced_by };
  }

  duplicate(key: string, body: { label?: unknown }): NativePreset {
    const src = this.find(key);
    checkFields(body, ['label']);
    const labelIn = body.label;
    const label =
      labelIn === undefined || labelIn === null || labelIn === ''
        ? `${src.label} copy`
        : requiredLabel(labelIn);
    return this.insert(label, slugify(label, 'preset'), { ...src.params }, src.flags);
  }

  schema(): Record<string, unknown> {
    return {
      vars: [...NATIVE_PARAM_FIELDS],
      ui: nativeEffectUi(),
      flags: flagList(),
      palette_color_rules: {
        force_slot_min_palette: [...paletteColorRules().force_slot_min_palette],
        max_palette_id: paletteColorRules().max_palette_id,
      },
    };
  }

  private insert(label: string, slug: string, params: NativePreset['params'], flags: number): NativePreset {
    const { store, clock } = this.deps;
    const key = uniqueKey(slug, (k) => store.state.native_presets.some((p) => p.key === k));
    const now = isoSeconds(clock.now());
    const preset = store.mutate(['NATIVE_PRESETS'], (s) => {
      const id = allocateId(s, 'native_presets');
      const rec: NativePreset = { id, key, label, created: now, updated: now, params, flags };
      s.native_presets.push(rec);
      return rec;
    });
    this.deps.log.info({ key, id: preset.id }, 'native preset created');
    return copy(preset);
  }

  private find(key: string): NativePreset {
    const p = this.deps.store.state.native_presets.find((x) => x.key === key);
    if (!p) throw new NotFoundError('preset not found');
    return p;
  }
}

function copy(p: NativePreset): NativePreset {
  return structuredClone(p);
}
