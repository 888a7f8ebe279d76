/**
 * Small coercion helpers for hand-walked input (scene actions, preset params): every
 * failure is a ValidationError whose message starts with the field path, e.g.
 * `actions[2].params.speed: must be <= 255`. Integers may come as integral strings
 * (form values); anything fractional or out of range is refused, never masked.
 */
import { ValidationError } from '../errors.ts';

export type Json = Record<string, unknown>;

export const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export function fail(path: string, message: string): never {
  throw new ValidationError(path ? `${path}: ${message}` : message);
}

export const join = (path: string, key: string | number): string =>
  typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;

/** An integer (or an integral decimal string) in lo..hi. */
export function asInt(v: unknown, path: string, lo: number, hi: number): number {
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v)) n = Number(v);
  else return fail(path, v === undefined ? 'is required' : 'must be an integer');
  if (!Number.isInteger(n)) return fail(path, 'must be an integer');
  if (n < lo) return fail(path, `must be >= ${lo}`);
  if (n > hi) return fail(path, `must be <= ${hi}`);
  return n;
}

/** A boolean, also 0/1 and the strings true/false/1/0/yes/no/on/off. */
export function asBool(v: unknown, path: string): boolean {
  if (typeof v === 'boolean') return v;
  if (v === 0 || v === 1) return v === 1;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(s)) return true;
    if (['false', '0', 'no', 'off'].includes(s)) return false;
  }
  return fail(path, 'must be a boolean');
}

/** Keys of `o` outside `allowed`: refused (typos surface) unless lenient, where they are dropped. */
export function checkKeys(o: Json, allowed: readonly string[], path: string, lenient: boolean): void {
  if (lenient) return;
  const extra = Object.keys(o).find((k) => !allowed.includes(k));
  if (extra !== undefined) fail(join(path, extra), `unknown field (expected one of ${allowed.join(', ')})`);
}
