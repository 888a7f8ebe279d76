/**
 * The journal's unit of change: the difference between the durable image of the state and
 * the live model, per record. Devices, native presets and scenes are keyed collections (a
 * changed record is written alone, so renaming one device of 4 000 writes one line of a few
 * hundred bytes); every other top-level section is small and written whole. Pure code.
 */
import type { StateModel } from '../domain/model.ts';
import type { DirtyHint } from './dirty.ts';

type Json = unknown;
type Section = Record<string, Json>;

/** Collections written record by record, and the field that identifies a record. */
const KEYED: Record<string, string> = { devices: 'addr', native_presets: 'id', scenes: 'id' };

export type SectionOp =
  | { s: string; set: Json }
  | { s: string; del?: string[]; put?: Json[]; order?: string[] }
  | { s: string; drop: true };

/** Deep equality of JSON-like values; a key holding `undefined` counts as absent (as in JSON). */
export function jsonEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    return typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b);
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Section;
  const bo = b as Section;
  let na = 0;
  for (const k in ao) {
    if (ao[k] === undefined) continue;
    na++;
    if (!jsonEqual(ao[k], bo[k])) return false;
  }
  let nb = 0;
  for (const k in bo) if (bo[k] !== undefined) nb++;
  return na === nb;
}

/** A deep copy through JSON: what would be read back from disk. */
export const jsonCopy = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));

const keyOf = (rec: Json, field: string): string | null => {
  const k = (rec as Section | null)?.[field];
  return typeof k === 'string' || typeof k === 'number' ? String(k) : null;
};

/** Keys of a keyed collection, or null when a record lacks one or two share one. */
function keysOf(list: Json, field: string): string[] | null {
  if (!Array.isArray(list)) return null;
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const rec of list) {
    const k = keyOf(rec, field);
    if (k === null || seen.has(k)) return null;
    seen.add(k);
    keys.push(k);
  }
  return keys;
}

/** Key → position of each image array (image arrays are never mutated, so this stays valid). */
const INDEX = new WeakMap<readonly Json[], Map<string, number> | null>();

function indexOf(list: readonly Json[], field: string): Map<string, number> | null {
  let idx = INDEX.get(list);
  if (idx === undefined) {
    const keys = keysOf(list, field);
    idx = keys ? new Map(keys.map((k, i) => [k, i] as const)) : null;
    INDEX.set(list, idx);
  }
  return idx;
}

/**
 * Only the hinted records: changed ones are put, new ones must be the tail of `after`.
 * Returns undefined when the hint cannot describe the change (a record moved or vanished):
 * the caller then compares the whole collection.
 */
function diffHinted(
  name: string,
  field: string,
  before: Json[],
  after: Json[],
  hinted: ReadonlySet<object>,
): SectionOp | null | undefined {
  const idx = indexOf(before, field);
  if (!idx) return undefined;
  const put: Json[] = [];
  let fresh = 0;
  for (const rec of hinted) {
    const k = keyOf(rec, field);
    if (k === null) return undefined;
    const i = idx.get(k);
    if (i === undefined) fresh++;
    else if (after[i] !== rec) return undefined;
    else if (!jsonEqual(before[i], rec)) put.push(jsonCopy(rec));
  }
  if (after.length !== before.length + fresh) return undefined;
  for (let i = before.length; i < after.length; i++) {
    const rec = after[i];
    if (!hinted.has(rec as object) || idx.has(keyOf(rec, field) ?? '')) return undefined;
    put.push(jsonCopy(rec));
  }
  return put.length ? { s: name, put } : null;
}

function diffKeyed(name: string, field: string, before: Json[], after: Json[]): SectionOp | null {
  const bk = keysOf(before, field);
  const ak = keysOf(after, field);
  if (!bk || !ak) return { s: name, set: jsonCopy(after) };
  const old = new Map<string, Json>();
  before.forEach((rec, i) => old.set(bk[i] as string, rec));
  const put: Json[] = [];
  const fresh: string[] = [];
  after.forEach((rec, i) => {
    const k = ak[i] as string;
    const prev = old.get(k);
    if (prev === undefined) fresh.push(k);
    if (prev === undefined || !jsonEqual(prev, rec)) put.push(jsonCopy(rec));
  });
  const live = new Set(ak);
  const del = bk.filter((k) => !live.has(k));
  if (put.length === 0 && del.length === 0 && bk.length === ak.length && bk.every((k, i) => k === ak[i]))
    return null;
  const op: { s: string; del?: string[]; put?: Json[]; order?: string[] } = { s: name };
  if (del.length) op.del = del;
  if (put.length) op.put = put;
  // Replay keeps the old order and appends new records; say the order only when that differs.
  const deleted = new Set(del);
  const implied = [...bk.filter((k) => !deleted.has(k)), ...fresh];
  if (implied.length !== ak.length || implied.some((k, i) => k !== ak[i])) op.order = ak;
  return op;
}

/**
 * The operations that turn `durable` into `model`; [] when nothing changed. With a hint,
 * keyed collections not named in it are skipped and devices are compared by the hint.
 */
export function diffState(
  durable: StateModel,
  model: StateModel,
  hint: DirtyHint | null = null,
): SectionOp[] {
  const d = durable as unknown as Section;
  const m = model as unknown as Section;
  const ops: SectionOp[] = [];
  for (const name of new Set([...Object.keys(d), ...Object.keys(m)])) {
    const before = d[name];
    const after = m[name];
    if (after === undefined) {
      if (before !== undefined) ops.push({ s: name, drop: true });
      continue;
    }
    const field = KEYED[name];
    if (field && Array.isArray(before) && Array.isArray(after)) {
      if (hint?.sections && !hint.sections.has(name)) continue;
      const narrow =
        name === 'devices' && hint?.devices
          ? diffHinted(name, field, before, after, hint.devices)
          : undefined;
      const op = narrow === undefined ? diffKeyed(name, field, before, after) : narrow;
      if (op) ops.push(op);
    } else if (!jsonEqual(before, after)) {
      ops.push({ s: name, set: jsonCopy(after) });
    }
  }
  return ops;
}

/** Puts of existing records only: a copy with them replaced, the index shared; else null. */
function replaceInPlace(list: Json[], field: string, put: readonly Json[]): Json[] | null {
  const idx = indexOf(list, field);
  if (!idx) return null;
  const at: number[] = [];
  for (const rec of put) {
    const i = idx.get(keyOf(rec, field) ?? '');
    if (i === undefined) return null;
    at.push(i);
  }
  const next = list.slice();
  put.forEach((rec, j) => (next[at[j] as number] = rec));
  INDEX.set(next, idx);
  return next;
}

/**
 * Applies journal operations to an image, copy-on-write: sections touched get new arrays
 * or values, untouched ones are shared, records are never mutated in place. Throws on an
 * operation it cannot apply (a damaged journal line).
 */
export function applyOps(image: StateModel, ops: readonly SectionOp[]): StateModel {
  const out = { ...(image as unknown as Section) };
  for (const op of ops) {
    if ('drop' in op) {
      delete out[op.s];
    } else if ('set' in op) {
      out[op.s] = op.set;
    } else {
      const field = KEYED[op.s];
      const list = out[op.s];
      if (!field || !Array.isArray(list)) throw new Error(`journal: cannot patch section ${op.s}`);
      const replaced = op.del || op.order ? null : replaceInPlace(list, field, op.put ?? []);
      if (replaced) {
        out[op.s] = replaced;
        continue;
      }
      const deleted = new Set(op.del ?? []);
      const next = list.filter((rec) => !deleted.has(keyOf(rec, field) ?? ''));
      const at = new Map<string, number>();
      next.forEach((rec, i) => at.set(keyOf(rec, field) ?? '', i));
      for (const rec of op.put ?? []) {
        const k = keyOf(rec, field);
        if (k === null) throw new Error(`journal: record without ${field} in ${op.s}`);
        const i = at.get(k);
        if (i === undefined) {
          at.set(k, next.length);
          next.push(rec);
        } else next[i] = rec;
      }
      if (op.order) {
        const byKey = new Map(next.map((rec) => [keyOf(rec, field) ?? '', rec] as const));
        if (op.order.length !== next.length || op.order.some((k) => !byKey.has(k)))
          throw new Error(`journal: order of ${op.s} does not match its records`);
        out[op.s] = op.order.map((k) => byKey.get(k));
      } else out[op.s] = next;
    }
  }
  return out as unknown as StateModel;
}
