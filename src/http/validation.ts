/**
 * Request validation at the edge: zod schemas for the shapes routes accept, and one
 * function that turns the first zod issue into a ValidationError naming the field.
 */
import * as z from 'zod';
import { ValidationError } from '../errors.ts';
import { DeviceRegistry } from '../services/devices/index.ts';
import type { Addr } from '../protocol/types.ts';

/** An integer, also given as a decimal string (older clients send form values). */
export const zInt = (min: number, max: number) =>
  z.preprocess(
    (v) => (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v),
    z
      .number({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be an integer') })
      .int('must be an integer')
      .min(min, `must be >= ${min}`)
      .max(max, `must be <= ${max}`),
  );

/** A boolean, also given as "true"/"false"/"1"/"0" or 0/1. */
export const zBool = z.union(
  [
    z.boolean(),
    z.literal(0).transform(() => false),
    z.literal(1).transform(() => true),
    z
      .string()
      .trim()
      .toLowerCase()
      .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off']))
      .transform((s) => ['true', '1', 'yes', 'on'].includes(s)),
  ],
  { error: 'must be a boolean' },
);

export const zAddrString = z.string({ error: 'must be a string of 6 or 12 hex characters' });
export const zMacList = z.array(zAddrString, { error: 'must be a list of addresses' });

export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const res = schema.safeParse(body ?? {}, { reportInput: true });
  if (res.success) return res.data;
  const issue = res.error.issues[0];
  if (!issue) throw new ValidationError('invalid request');
  // A strict object names the fields it does not know (`colour: unknown field`).
  if (issue.code === 'unrecognized_keys') {
    const names = issue.keys.map((k) => fieldName([...issue.path, k]));
    throw new ValidationError(`${names.join(', ')}: unknown field${names.length > 1 ? 's' : ''}`);
  }
  throw new ValidationError(
    `${fieldName(issue.path)}: ${issue.input === undefined ? 'is required' : issue.message}`,
  );
}

/** `macs[0]`, `wifi.ssid`: array indices in brackets, like the messages of the address parser. */
export function fieldName(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'body';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i > 0 ? '.' : ''}${String(p)}`)).join('');
}

/** Parses a list of user addresses; names the offending entry. */
export function parseAddrList(list: readonly string[], field: string): Addr[] {
  return list.map((a, i) => DeviceRegistry.parseAddr(a, `${field}[${i}]`));
}

/** The JSON body as an object; anything else (absent, array, scalar) counts as {} (convention 1). */
export function bodyObject(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : {};
}
