/**
 * Target overlap: `all` covers every group and device; a group covers its devices; a device
 * is covered by its own group (the group it is in when the command is decided). Two
 * devices overlap only when they are the same address; two groups only when the same id.
 */
import type { Target } from './types.ts';

export function overlaps(a: Target, b: Target): boolean {
  if (a.kind === 'all' || b.kind === 'all') return true;
  if (a.kind === 'group' && b.kind === 'group') return a.id === b.id;
  if (a.kind === 'device' && b.kind === 'device') return a.addr === b.addr;
  const g = a.kind === 'group' ? a : (b as Extract<Target, { kind: 'group' }>);
  const d = a.kind === 'device' ? a : (b as Extract<Target, { kind: 'device' }>);
  return d.group !== null && d.group === g.id;
}

/** Same target (a device's group is not part of its identity: it may move). */
export function sameTarget(a: Target, b: Target): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'group') return a.id === (b as typeof a).id;
  if (a.kind === 'device') return a.addr === (b as typeof a).addr;
  return true;
}

/** `all`, `group 3`, `device AABBCC` — the words the API and the log use. */
export function targetLabel(t: Target): string {
  if (t.kind === 'all') return 'all';
  if (t.kind === 'group') return `group ${t.id}`;
  return `device ${t.addr}`;
}

/** The API's spelling of a target (`{kind:'group', id:3}` → JSON as is, minus a device's group). */
export type TargetJson = { kind: 'all' } | { kind: 'group'; id: number } | { kind: 'device'; addr: string };

export function targetJson(t: Target): TargetJson {
  if (t.kind === 'device') return { kind: 'device', addr: t.addr };
  return t.kind === 'group' ? { kind: 'group', id: t.id } : { kind: 'all' };
}
