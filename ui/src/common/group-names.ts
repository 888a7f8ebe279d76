/** Duplicate group names: the contract allows them, so the UI warns and shows ids. */
import { groups, statsOf } from '../store.ts';
import type { Group } from '../types.ts';

const norm = (s: string): string => s.trim().toLowerCase();

/** Existing groups with this name (case and surrounding spaces ignored), except `exceptId`. */
export function sameNamed(name: string, exceptId?: number): Group[] {
  const n = norm(name);
  if (!n) return [];
  return groups.value.filter((g) => g.id !== exceptId && norm(g.name) === n);
}

/** The warning under a name field, or null. */
export function duplicateWarning(name: string, exceptId?: number): string | null {
  const same = sameNamed(name, exceptId);
  if (!same.length) return null;
  const ids = same.map((g) => `#${g.id}`).join(', ');
  return `A group named '${same[0]!.name}' already exists (${ids}). Pickers would tell them apart only by id — choose another name, or use the existing group.`;
}

/** An existing group of this name with no devices (a discovery can reuse it instead of adding another). */
export function emptySameNamed(name: string): Group | undefined {
  return sameNamed(name).find((g) => g.id !== 0 && statsOf(g.id).total === 0);
}
