/**
 * RaceLink native presets and scenes → Lightnet's (host-behaviour.md §12–§13, scenes.md).
 * A preset or scene is the same record when its key matches (keys are slugs of the label
 * in both hosts). RaceLink preset ids are kept when free here, so scenes and device options
 * still point at the right preset; when an id is taken, the preset gets a new one and every
 * imported reference to it is rewritten (and reported). Scene group references are RaceLink
 * list positions: they are renumbered to the Lightnet ids the groups got.
 */
import { ValidationError } from '../../errors.ts';
import { isRecord, type Json } from '../input.ts';
import type { StateModel } from '../model.ts';
import { slugify } from '../scenes/keys.ts';
import {
  fullPresetParams,
  parseEffectParams,
  parsePresetFlags,
  PRESET_KEY_PREFIX,
  type NativePreset,
} from '../scenes/native-preset.ts';
import {
  SCENE_LIMITS,
  type ActionTarget,
  type OffsetSpec,
  type Scene,
  type SceneAction,
} from '../scenes/types.ts';
import { validateAction } from '../scenes/validation.ts';
import { importName } from './map-fleet.ts';
import type { RaceLinkPresetsFile, RaceLinkScenesFile } from './read.ts';
import type { ReportBuilder } from './report.ts';

export const MAX_LABEL = 200;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const KEY = /^[a-z0-9_]{1,64}$/;
const KIND_NAMES: Record<string, string> = {
  rl_preset: 'native_preset',
  wled_preset: 'led_preset',
  rl_effect: 'native_effect',
  wled_control: 'native_preset',
};

/** RaceLink preset id → Lightnet id, and RaceLink key → Lightnet key. */
export interface PresetRefs {
  ids: Map<number, number>;
  keys: Map<string, string>;
}

const stamp = (v: unknown, dflt: string): string => (typeof v === 'string' && ISO.test(v) ? v : dflt);

function keyOf(raw: Json, label: string, fallback: string): string {
  const k = typeof raw.key === 'string' ? raw.key.trim() : '';
  return KEY.test(k) ? k : slugify(label, fallback);
}

/** The lowest id ≥ `wanted` that no record has and the counter has not handed out (ids are never reused). */
function freeId(wanted: number, items: readonly { id: number }[], counter: number): number {
  if (wanted >= counter && !items.some((x) => x.id === wanted)) return wanted;
  let id = Math.max(counter, ...items.map((x) => x.id + 1));
  while (items.some((x) => x.id === id)) id++;
  return id;
}

export function mapPresets(
  state: StateModel,
  file: RaceLinkPresetsFile,
  now: string,
  r: ReportBuilder,
): PresetRefs {
  const refs: PresetRefs = { ids: new Map(), keys: new Map() };
  const next = (state.next_ids ??= { native_presets: 0, scenes: 0 });
  const keysHere = new Set<string>();
  for (const { id: rlId, raw, index } of [...file.presets].sort((a, b) => a.id - b.id)) {
    const rawLabel = typeof raw.label === 'string' ? raw.label.trim() : '';
    if (!rawLabel) {
      r.item('native_preset', `(preset ${index})`, 'skip', 'no label');
      continue;
    }
    const label = importName(rawLabel, MAX_LABEL, 'native preset', r);
    const key = keyOf(raw, label, 'preset');
    if (keysHere.has(key)) {
      r.item('native_preset', label, 'skip', `duplicate key "${key}" in the RaceLink file`);
      continue;
    }
    keysHere.add(key);
    const dropped: string[] = [];
    let params = fullPresetParams({});
    try {
      params = fullPresetParams(parseEffectParams(raw.params, 'params', { lenient: true, notes: dropped }));
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      dropped.push(`params not readable (${e.message})`);
    }
    let flags = 0;
    try {
      flags = parsePresetFlags(raw.flags, 'flags', { lenient: true });
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      dropped.push(`flags not readable (${e.message})`);
    }
    for (const d of dropped) r.warn(`native preset "${label}": ${d}`);
    const created = stamp(raw.created, now);
    const updated = stamp(raw.updated, created);
    const existing = state.native_presets.find((p) => p.key === key);
    let id: number;
    if (existing) {
      id = existing.id;
      const same =
        existing.label === label &&
        existing.flags === flags &&
        JSON.stringify(existing.params) === JSON.stringify(params);
      if (same) r.item('native_preset', label, 'unchanged');
      else {
        Object.assign(existing, { label, params, flags, updated });
        r.item('native_preset', label, 'update');
      }
    } else {
      id = freeId(rlId, state.native_presets, next.native_presets);
      const p: NativePreset = { id, key, label, created, updated, params, flags };
      state.native_presets.push(p);
      r.item('native_preset', label, 'create', id === rlId ? `id ${id} kept` : `id ${rlId} → ${id}`);
    }
    next.native_presets = Math.max(next.native_presets, id + 1);
    if (id !== rlId) r.map('native preset id', `${rlId} "${label}"`, id);
    refs.ids.set(rlId, id);
    if (typeof raw.key === 'string') refs.keys.set(raw.key.trim(), key);
  }
  return refs;
}

/** The docs' spelling of an action (scenes.md §10) in the code's spelling, kinds counted for the report. */
function normalizeSpelling(a: unknown, r: ReportBuilder): unknown {
  if (!isRecord(a)) return a;
  const out: Json = { ...a };
  if (typeof out.kind === 'string' && KIND_NAMES[out.kind])
    r.map('scene action kind', out.kind, KIND_NAMES[out.kind] ?? '');
  const params: Json = isRecord(out.params) ? { ...out.params } : {};
  let touched = false;
  for (const k of ['preset_key', 'preset_id', 'preset_ref'] as const) {
    const v = out[k] ?? params[k];
    if (v === undefined) continue;
    delete out[k];
    delete params[k];
    params.presetId ??= v;
    touched = true;
  }
  // Brightness is a params field of every effect kind (the docs put it at the top level).
  if (out.brightness !== undefined) {
    params.brightness ??= out.brightness;
    delete out.brightness;
    touched = true;
  }
  if (touched || isRecord(out.params)) out.params = params;
  if (Array.isArray(out.children) && out.actions === undefined) {
    out.actions = out.children;
    delete out.children;
  }
  if (Array.isArray(out.actions)) out.actions = out.actions.map((c) => normalizeSpelling(c, r));
  return out;
}

interface SceneCtx {
  label: string;
  groups: Map<number, number>;
  presets: PresetRefs;
  r: ReportBuilder;
}

function mapGroupId(g: number, c: SceneCtx): number {
  const id = c.groups.get(g);
  if (id === undefined) {
    if (g !== 0)
      c.r.warn(
        `scene "${c.label}": RaceLink group ${g} does not exist; the reference now means Unconfigured (0)`,
      );
    return 0;
  }
  return id;
}

function mapTarget<T extends ActionTarget>(t: T, c: SceneCtx): T {
  if (t.kind !== 'groups') return t;
  return { ...t, value: [...new Set(t.value.map((g) => mapGroupId(g, c)))].sort((a, b) => a - b) };
}

function mapOffset(o: OffsetSpec, c: SceneCtx): OffsetSpec {
  if (o.mode === 'explicit') {
    const seen = new Set<number>();
    const values = o.values
      .map((e) => ({ id: mapGroupId(e.id, c), offset_ms: e.offset_ms }))
      .filter((e) => !seen.has(e.id) && seen.add(e.id));
    return { mode: 'explicit', values: values.sort((a, b) => a.id - b.id) };
  }
  if (o.mode !== 'none' && [...c.groups].some(([from, to]) => from !== to && to !== 0))
    c.r.warn(
      `scene "${c.label}": its ${o.mode} offsets are computed from group ids, which changed in the import; check the timing`,
    );
  if (o.mode === 'vshape') return { ...o, center: mapGroupId(o.center, c) };
  return o;
}

function mapPresetRef(ref: string | undefined, c: SceneCtx): string | undefined {
  if (ref === undefined) return ref;
  const s = ref.trim();
  if (/^\d+$/.test(s)) {
    const id = c.presets.ids.get(Number(s));
    if (id === undefined) {
      c.r.warn(`scene "${c.label}": refers to RaceLink native preset ${s}, which is not in rl_presets.json`);
      return s;
    }
    return String(id);
  }
  const key = s.startsWith(PRESET_KEY_PREFIX) ? s.slice(PRESET_KEY_PREFIX.length) : s;
  const mapped = c.presets.keys.get(key);
  if (mapped === undefined)
    c.r.warn(`scene "${c.label}": refers to native preset "${key}", which is not in rl_presets.json`);
  return `${PRESET_KEY_PREFIX}${mapped ?? key}`;
}

function mapAction(a: SceneAction, c: SceneCtx): SceneAction {
  switch (a.kind) {
    case 'sync':
    case 'delay':
      return a;
    case 'offset_group':
      return {
        ...a,
        target: mapTarget(a.target, c),
        offset: mapOffset(a.offset, c),
        actions: a.actions.map((x) => mapAction(x, c) as typeof x),
      };
    case 'native_preset': {
      const params = { ...a.params };
      const ref = mapPresetRef(params.presetId, c);
      if (ref !== undefined) params.presetId = ref;
      return { ...a, target: mapTarget(a.target, c), params };
    }
    default:
      return { ...a, target: mapTarget(a.target, c) };
  }
}

export function mapScenes(
  state: StateModel,
  file: RaceLinkScenesFile,
  groups: Map<number, number>,
  presets: PresetRefs,
  now: string,
  r: ReportBuilder,
): void {
  const next = (state.next_ids ??= { native_presets: 0, scenes: 0 });
  const keysHere = new Set<string>();
  for (const { raw, index } of file.scenes) {
    const rawLabel =
      typeof raw.label === 'string' ? raw.label.trim() : typeof raw.name === 'string' ? raw.name.trim() : '';
    if (!rawLabel) {
      r.item('scene', `(scene ${index})`, 'skip', 'no label');
      continue;
    }
    const label = importName(rawLabel, MAX_LABEL, 'scene', r);
    const key = keyOf(raw, label, 'scene');
    if (keysHere.has(key)) {
      r.item('scene', label, 'skip', `duplicate key "${key}" in the RaceLink file`);
      continue;
    }
    keysHere.add(key);
    const c: SceneCtx = { label, groups, presets, r };
    const actions: SceneAction[] = [];
    const rawActions = Array.isArray(raw.actions) ? raw.actions : [];
    rawActions.forEach((a, i) => {
      if (actions.length >= SCENE_LIMITS.maxActions) {
        r.warn(
          `scene "${label}": action ${i + 1} dropped (Lightnet runs at most ${SCENE_LIMITS.maxActions} actions)`,
        );
        return;
      }
      try {
        const notes: string[] = [];
        const v = validateAction(normalizeSpelling(a, r), `actions[${i}]`, { lenient: true, notes });
        for (const n of notes) r.warn(`scene "${label}": ${n}`);
        actions.push(mapAction(v, c));
      } catch (e) {
        if (!(e instanceof ValidationError)) throw e;
        r.warn(`scene "${label}": action ${i + 1} dropped (${e.message})`);
      }
    });
    if (isRecord(raw.network_scope) && raw.network_scope.mode === 'explicit')
      r.warn(
        `scene "${label}": its network scope (explicit networks) is dropped: networks are not imported ` +
          '(it runs on every network with members; set a scope in the scene editor)',
      );
    const s = raw.stop_on_error;
    const stop = !(
      s === false ||
      s === 0 ||
      (typeof s === 'string' && ['false', '0', 'no', 'off'].includes(s.trim().toLowerCase()))
    );
    const created = stamp(raw.created, now);
    const updated = stamp(raw.updated, created);
    const existing = state.scenes.find((x) => x.key === key);
    if (existing) {
      const same =
        existing.label === label &&
        existing.stop_on_error === stop &&
        JSON.stringify(existing.actions) === JSON.stringify(actions);
      if (same) r.item('scene', label, 'unchanged');
      else {
        Object.assign(existing, { label, actions, stop_on_error: stop, updated });
        r.item('scene', label, 'update');
      }
      continue;
    }
    const rlId = typeof raw.id === 'number' && Number.isInteger(raw.id) && raw.id >= 0 ? raw.id : index;
    const id = freeId(rlId, state.scenes, next.scenes);
    const scene: Scene = { id, key, label, created, updated, actions, stop_on_error: stop };
    state.scenes.push(scene);
    next.scenes = Math.max(next.scenes, id + 1);
    r.item('scene', label, 'create', `${actions.length} action${actions.length === 1 ? '' : 's'}`);
  }
}
