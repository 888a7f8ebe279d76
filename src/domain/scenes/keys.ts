/**
 * URL keys of native presets and scenes: a slug of the client's key or label, made
 * unique with `_2`, `_3`, … suffixes; and the UTC timestamps of their records.
 */
import { ValidationError } from '../../errors.ts';

export const MAX_KEY_SUFFIX = 999;

/** Lower-case; every run of characters outside [a-z0-9] becomes one `_`; trimmed of `_`. */
export function slugify(input: string, fallback: string): string {
  const slug = input
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    // Keys appear in URLs and logs: keep them readable.
    .slice(0, 64)
    .replace(/_+$/, '');
  return slug || fallback;
}

/** `slug`, else `slug_2` … `slug_999`; beyond that a 400 (the original answered 500). */
export function uniqueKey(slug: string, taken: (key: string) => boolean): string {
  if (!taken(slug)) return slug;
  for (let n = 2; n <= MAX_KEY_SUFFIX; n++) {
    const k = `${slug}_${n}`;
    if (!taken(k)) return k;
  }
  throw new ValidationError(`key: too many records named "${slug}"; choose another key or label`);
}

/** UTC ISO-8601 with seconds and a Z suffix: 2026-05-01T21:26:54Z. */
export function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** Next id: above every id in use and never below the persisted counter (ids are never reused). */
export function nextId(persisted: number | undefined, ids: readonly number[]): number {
  const above = ids.length ? Math.max(...ids) + 1 : 0;
  return Math.max(above, persisted ?? 0);
}
