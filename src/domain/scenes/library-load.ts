/**
 * Loading stored native presets and scenes tolerantly: a bad record (hand-edited file,
 * older or newer host) must never stop the host from starting. Records without a
 * usable key or label are skipped, broken parts are repaired to safe values, legacy
 * shapes are migrated, and every repair is reported as a note for the log.
 */
import { ValidationError } from '../../errors.ts';
import { isRecord } from '../input.ts';
import { nextId } from './keys.ts';
import { fullPresetParams, parseEffectParams, parsePresetFlags, type NativePreset } from './native-preset.ts';
import { validateAction } from './validation.ts';
import { SCENE_LIMITS, type Scene, type SceneAction } from './types.ts';

const EPOCH = '1970-01-01T00:00:00Z';
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

interface Common {
  id: number;
  key: string;
  label: string;
  created: string;
  updated: string;
}

export interface Loaded<T> {
  items: T[];
  next: number;
  notes: string[];
}

/** Key, label, id and timestamps shared by both record types; null when unusable. */
function loadCommon(
  raw: Record<string, unknown>,
  where: string,
  keys: Set<string>,
  notes: string[],
): (Omit<Common, 'id'> & { id: number | null }) | null {
  const key = typeof raw.key === 'string' ? raw.key.trim() : '';
  const label = typeof raw.label === 'string' ? raw.label.trim() : '';
  if (!key || !label) {
    notes.push(`${where}: skipped (no key or label)`);
    return null;
  }
  if (keys.has(key)) {
    notes.push(`${where}: skipped (duplicate key "${key}")`);
    return null;
  }
  keys.add(key);
  const id = typeof raw.id === 'number' && Number.isInteger(raw.id) && raw.id >= 0 ? raw.id : null;
  const ts = (v: unknown): string | null => (typeof v === 'string' && ISO.test(v) ? v : null);
  const created = ts(raw.created) ?? ts(raw.updated) ?? EPOCH;
  return { id, key, label, created, updated: ts(raw.updated) ?? created };
}

/** Missing or duplicate ids get fresh ones above every id in use. */
function assignIds<T extends { id: number | null }>(
  items: T[],
  persistedNext: number | undefined,
  where: string,
  notes: string[],
): number {
  const used = new Set<number>();
  let next = nextId(
    persistedNext,
    items.map((i) => i.id ?? -1).filter((i) => i >= 0),
  );
  for (const it of items) {
    if (it.id === null || used.has(it.id)) {
      notes.push(`${where} "${(it as unknown as Common).key}": id ${it.id ?? 'missing'} replaced by ${next}`);
      it.id = next++;
    }
    used.add(it.id);
  }
  return next;
}

export function loadNativePresets(raw: readonly unknown[], persistedNext?: number): Loaded<NativePreset> {
  const notes: string[] = [];
  const keys = new Set<string>();
  const items: (Omit<NativePreset, 'id'> & { id: number | null })[] = [];
  raw.forEach((r, i) => {
    const where = `native_presets[${i}]`;
    if (!isRecord(r)) return void notes.push(`${where}: skipped (not an object)`);
    const c = loadCommon(r, where, keys, notes);
    if (!c) return;
    let params = fullPresetParams({});
    try {
      const dropped: string[] = [];
      params = fullPresetParams(parseEffectParams(r.params, 'params', { lenient: true, notes: dropped }));
      for (const d of dropped) notes.push(`${where} "${c.key}": ${d}`);
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      notes.push(`${where} "${c.key}": params reset (${e.message})`);
    }
    let flags = 0;
    try {
      flags = parsePresetFlags(r.flags, 'flags', { lenient: true });
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      notes.push(`${where} "${c.key}": flags reset (${e.message})`);
    }
    items.push({ ...c, params, flags });
  });
  const next = assignIds(items, persistedNext, 'native preset', notes);
  return { items: items as NativePreset[], next, notes };
}

export function loadScenes(raw: readonly unknown[], persistedNext?: number): Loaded<Scene> {
  const notes: string[] = [];
  const keys = new Set<string>();
  const items: (Omit<Scene, 'id'> & { id: number | null })[] = [];
  raw.forEach((r, i) => {
    const where = `scenes[${i}]`;
    if (!isRecord(r)) return void notes.push(`${where}: skipped (not an object)`);
    const c = loadCommon(r, where, keys, notes);
    if (!c) return;
    const actions = loadActions(r.actions, `${where} "${c.key}"`, notes);
    const stop = typeof r.stop_on_error === 'boolean' ? r.stop_on_error : true;
    const networks = loadScope(r.networks, `${where} "${c.key}"`, notes);
    items.push({ ...c, actions, stop_on_error: stop, ...(networks ? { networks } : {}) });
  });
  const next = assignIds(items, persistedNext, 'scene', notes);
  return { items: items as Scene[], next, notes };
}

/** An explicit network scope: valid ids kept (sorted, unique); anything else means automatic. */
function loadScope(v: unknown, where: string, notes: string[]): number[] | null {
  if (v === undefined || v === null) return null;
  const ids = Array.isArray(v) ? v.filter((x): x is number => Number.isInteger(x) && (x as number) >= 1) : [];
  if (!Array.isArray(v) || ids.length !== v.length)
    notes.push(`${where}: networks ids dropped (not network ids)`);
  return ids.length > 0 ? [...new Set(ids)].sort((a, b) => a - b) : null;
}

/** Valid actions are kept one by one; only a broken action is dropped (and noted). */
function loadActions(raw: unknown, where: string, notes: string[]): SceneAction[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    notes.push(`${where}: actions dropped (not a list)`);
    return [];
  }
  const out: SceneAction[] = [];
  raw.forEach((a, i) => {
    if (out.length >= SCENE_LIMITS.maxActions) {
      notes.push(`${where}: actions[${i}] dropped (more than ${SCENE_LIMITS.maxActions} actions)`);
      return;
    }
    try {
      const dropped: string[] = [];
      out.push(validateAction(a, `actions[${i}]`, { lenient: true, notes: dropped }));
      for (const d of dropped) notes.push(`${where}: ${d}`);
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      notes.push(`${where}: action dropped (${e.message})`);
    }
  });
  return out;
}
