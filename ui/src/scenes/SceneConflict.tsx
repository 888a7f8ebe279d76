/**
 * The open scene changed on the host while the editor holds unsaved edits (another tab,
 * another operator, a group deletion renumbering it): say what changed and let the
 * operator take theirs or keep the edits, instead of a Save silently overwriting.
 */
import { useEffect, useState, type Dispatch, type StateUpdater } from 'preact/hooks';
import type { MutableRef } from 'preact/hooks';
import { scenes } from '../store.ts';
import { toast } from '../toasts.ts';
import type { Scene, SceneAction } from '../types.ts';

export interface Draft {
  key: string | null;
  label: string;
  actions: SceneAction[];
  stop_on_error: boolean;
  /** The explicit network scope; null = automatic (always, with one network). */
  networks: number[] | null;
}

export const toDraft = (s: Scene): Draft => ({
  key: s.key,
  label: s.label,
  actions: s.actions,
  stop_on_error: s.stop_on_error,
  networks: s.networks ?? null,
});

export type Conflict = { kind: 'changed'; theirs: Draft; what: string } | { kind: 'deleted' };

/** "label, stop on error, action 2, 1 action added" — what differs between two versions. */
export function describeChange(a: Draft, b: Draft): string {
  const out: string[] = [];
  if (a.label !== b.label) out.push('label');
  if (a.stop_on_error !== b.stop_on_error) out.push('stop on error');
  if (JSON.stringify(a.networks) !== JSON.stringify(b.networks)) out.push('networks');
  const n = Math.min(a.actions.length, b.actions.length);
  for (let i = 0; i < n; i++)
    if (JSON.stringify(a.actions[i]) !== JSON.stringify(b.actions[i])) out.push(`action ${i + 1}`);
  const d = b.actions.length - a.actions.length;
  if (d) out.push(`${Math.abs(d)} action${Math.abs(d) === 1 ? '' : 's'} ${d > 0 ? 'added' : 'removed'}`);
  return out.join(', ') || 'details';
}

/**
 * Follows the stored version of the open scene through SSE `scenes` reloads: our own save
 * settles quietly, a change without local edits is simply loaded, a change under unsaved
 * edits (or a delete) becomes a conflict for the operator to decide.
 */
export function useFollowStored(
  draft: Draft,
  saved: string,
  setDraft: (d: Draft) => void,
  setSaved: (s: string) => void,
  deleting: MutableRef<string | null>,
): [Conflict | null, Dispatch<StateUpdater<Conflict | null>>] {
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const dirty = JSON.stringify(draft) !== saved;
  useEffect(() => {
    if (draft.key === null) return;
    const stored = scenes.value.find((x) => x.key === draft.key);
    if (!stored) {
      if (deleting.current !== draft.key) setConflict({ kind: 'deleted' });
      return;
    }
    const theirs = toDraft(stored);
    const t = JSON.stringify(theirs);
    if (t === saved) return;
    if (t === JSON.stringify(draft)) {
      // Our own save (or the very same edit made elsewhere).
      setSaved(t);
      setConflict(null);
    } else if (!dirty) {
      setDraft(theirs);
      setSaved(t);
      setConflict(null);
      toast(`'${stored.label}' was changed elsewhere: reloaded`);
    } else {
      setConflict({ kind: 'changed', theirs, what: describeChange(JSON.parse(saved) as Draft, theirs) });
    }
  }, [scenes.value]);
  return [conflict, setConflict];
}

export function ConflictBanner({
  conflict,
  onTheirs,
  onMine,
  onDiscard,
}: {
  conflict: Conflict;
  onTheirs: () => void;
  onMine: () => void;
  onDiscard: () => void;
}) {
  return (
    <div class="conflict" role="alert" data-testid="scene-conflict">
      {conflict.kind === 'changed' ? (
        <>
          <span>
            ⚠ <strong>Changed elsewhere</strong> ({conflict.what}) while you have unsaved edits here.
          </span>
          <span class="spacer" />
          <button type="button" onClick={onTheirs}>
            Reload theirs
          </button>
          <button type="button" class="primary" onClick={onMine}>
            Keep mine
          </button>
        </>
      ) : (
        <>
          <span>
            ⚠ <strong>Deleted elsewhere.</strong> What you see is no longer stored.
          </span>
          <span class="spacer" />
          <button type="button" onClick={onDiscard}>
            Discard
          </button>
          <button type="button" class="primary" onClick={onMine}>
            Keep as a new scene
          </button>
        </>
      )}
    </div>
  );
}
