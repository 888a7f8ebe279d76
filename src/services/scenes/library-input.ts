/**
 * Body checks shared by the native-preset and scene routes: labels, keys and the set
 * of accepted top-level fields. A record read with GET may be sent back whole with PUT,
 * so its read-only fields are accepted (and ignored); anything else is a typo and refused.
 */
import { ValidationError } from '../../errors.ts';
import { isRecord } from '../../domain/input.ts';

export const MAX_LABEL = 200;
const READ_ONLY = ['id', 'key', 'created', 'updated'];

/** Create/duplicate: a string that is not blank. */
export function requiredLabel(v: unknown): string {
  if (typeof v !== 'string' || !v.trim()) throw new ValidationError('label: is required');
  return checkLength(v.trim());
}

/** Update: when given, a string that is not blank. */
export function nonEmptyLabel(v: unknown): string {
  if (typeof v !== 'string') throw new ValidationError('label: must be a string');
  if (!v.trim()) throw new ValidationError('label: must not be empty');
  return checkLength(v.trim());
}

function checkLength(label: string): string {
  if (label.length > MAX_LABEL) throw new ValidationError(`label: at most ${MAX_LABEL} characters`);
  return label;
}

/** Refuses top-level fields outside `fields` and the record's read-only ones. */
export function checkFields(body: unknown, fields: readonly string[]): void {
  if (!isRecord(body)) return;
  const extra = Object.keys(body).find((k) => !fields.includes(k) && !READ_ONLY.includes(k));
  if (extra !== undefined)
    throw new ValidationError(`${extra}: unknown field (expected ${fields.join(', ')})`);
}

/** The key given on create: a string (slugified later) or absent. */
export function optionalKey(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new ValidationError('key: must be a string');
  return v.trim() ? v : null;
}

/** On update the key may be repeated (a whole record sent back) but never changed. */
export function sameKey(v: unknown, key: string): void {
  if (v !== undefined && v !== key) throw new ValidationError(`key: cannot be changed (keys are permanent)`);
}
