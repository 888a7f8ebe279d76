/**
 * Group-delete renumbering of scene actions (pure). Group ids are positions, so when
 * group g is deleted: references to g become 0 (Unconfigured, where its devices go),
 * ids above g move down by one, ids below stay. Applies to top-level, container and
 * child `groups` targets and to explicit offset table ids; lists are de-duplicated
 * (first occurrence wins) and an explicit entry whose new id already exists is dropped.
 * Broadcast and device targets are untouched (a device target follows its device).
 */
import type { ActionTarget, OffsetSpec, SceneAction } from './types.ts';

export const shiftGroupId = (v: number, deleted: number): number =>
  v === deleted ? 0 : v > deleted ? v - 1 : v;

function shiftTarget<T extends ActionTarget>(t: T, g: number): T {
  if (t.kind !== 'groups') return t;
  const value = [...new Set(t.value.map((v) => shiftGroupId(v, g)))];
  return { ...t, value };
}

function shiftOffset(o: OffsetSpec, g: number): OffsetSpec {
  if (o.mode !== 'explicit') return o;
  const seen = new Set<number>();
  const values: { id: number; offset_ms: number }[] = [];
  for (const e of o.values) {
    const id = shiftGroupId(e.id, g);
    if (seen.has(id)) continue;
    seen.add(id);
    values.push({ id, offset_ms: e.offset_ms });
  }
  return { mode: 'explicit', values };
}

function shiftAction(a: SceneAction, g: number): SceneAction {
  switch (a.kind) {
    case 'sync':
    case 'delay':
      return a;
    case 'offset_group':
      return {
        ...a,
        target: shiftTarget(a.target, g),
        offset: shiftOffset(a.offset, g),
        actions: a.actions.map((c) => ({ ...c, target: shiftTarget(c.target, g) })),
      };
    default:
      return { ...a, target: shiftTarget(a.target, g) };
  }
}

/** The renumbered actions (not yet re-sorted), or null when no reference changes. */
export function renumberActions(actions: readonly SceneAction[], deleted: number): SceneAction[] | null {
  const out = actions.map((a) => shiftAction(a, deleted));
  return JSON.stringify(out) === JSON.stringify(actions) ? null : out;
}
