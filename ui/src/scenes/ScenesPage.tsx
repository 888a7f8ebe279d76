/** Scenes page: library, editor, live cost estimate, timeline, run with progress, stop. */
import { useEffect, useRef } from 'preact/hooks';
import { del, post, put } from '../api.ts';
import { confirmAction } from '../dialogs/confirm.tsx';
import { registerShortcut } from '../keys.ts';
import { timeline } from './scene-model.ts';
import { editorSchema, loadEditorSchema } from '../scene-schema.ts';
import { scenes } from '../store.ts';
import { toast, toastError } from '../toasts.ts';
import type { Scene, SceneAction } from '../types.ts';
import { Timeline } from './Timeline.tsx';
import { EMPTY_DRAFT, sceneDraft, sceneSaved } from './scene-draft.ts';
import { ConflictBanner, toDraft, useFollowStored, type Draft } from './SceneConflict.tsx';
import { SceneActionList } from './SceneActionList.tsx';
import { SceneHead } from './SceneHead.tsx';
import { SceneList } from './SceneList.tsx';
import { SceneRunBar } from './SceneRunBar.tsx';
import { useSceneEstimate } from './useSceneEstimate.ts';
import { loadSceneNetworks } from './scene-networks.ts';
import { useSceneRun } from './useSceneRun.ts';

const EMPTY = EMPTY_DRAFT;

export function ScenesPage() {
  const draft = sceneDraft.value;
  const saved = sceneSaved.value;
  const setDraft = (d: Draft) => (sceneDraft.value = d);
  const setSaved = (j: string) => (sceneSaved.value = j);
  /** A delete of ours in flight: its refresh is not news. */
  const deleting = useRef<string | null>(null);
  const dirty = JSON.stringify(draft) !== saved;
  const [conflict, setConflict] = useFollowStored(draft, saved, setDraft, setSaved, deleting);
  const es = editorSchema.value;

  useEffect(() => {
    if (!editorSchema.value)
      void loadEditorSchema().catch((err) => toastError('Loading the scene editor failed', err));
    // The scope selector and fan-out need the networks; without them the editor works as with one.
    void loadSceneNetworks().catch(() => undefined);
  }, []);
  // Open the first scene once the library is known.
  useEffect(() => {
    if (draft.key === null && !dirty && scenes.value[0]) {
      const d = toDraft(scenes.value[0]);
      setDraft(d);
      setSaved(JSON.stringify(d));
    }
  }, [scenes.value]);
  const { estimate, estError, pending: estPending } = useSceneEstimate(draft.actions, draft.networks);
  const { running, cards, lastRun, run, stop, reset } = useSceneRun(draft, dirty);

  const pick = async (d: Draft) => {
    if (
      dirty &&
      !(await confirmAction({
        title: 'Unsaved changes',
        body: `Discard the changes to '${draft.label}'?`,
        confirm: 'Discard',
        danger: true,
      }))
    )
      return;
    setDraft(d);
    setSaved(JSON.stringify(d));
    setConflict(null);
    reset();
  };
  const loadTheirs = () => {
    if (conflict?.kind !== 'changed') return;
    setDraft(conflict.theirs);
    setSaved(JSON.stringify(conflict.theirs));
    setConflict(null);
  };
  // Mine stays in the editor, now measured against their version: Save overwrites it knowingly.
  const keepMine = () => {
    if (conflict?.kind === 'changed') setSaved(JSON.stringify(conflict.theirs));
    else if (conflict?.kind === 'deleted') {
      setDraft({ ...draft, key: null });
      setSaved(JSON.stringify(EMPTY));
    }
    setConflict(null);
  };
  const setActions = (actions: SceneAction[]) => setDraft({ ...draft, actions });
  const save = async () => {
    if (conflict) {
      toast('This scene was changed elsewhere: load theirs or keep yours first', 'error');
      return;
    }
    const body = {
      label: draft.label,
      actions: draft.actions,
      stop_on_error: draft.stop_on_error,
      networks: draft.networks,
    };
    try {
      const r = draft.key
        ? await put<{ scene: Scene }>(`scenes/${encodeURIComponent(draft.key)}`, body)
        : await post<{ scene: Scene }>('scenes', body);
      const d = toDraft(r.scene);
      setDraft(d);
      setSaved(JSON.stringify(d));
      toast(`Saved scene '${r.scene.label}'`);
    } catch (err) {
      toastError('Saving scene failed', err);
    }
  };
  const remove = async () => {
    if (!draft.key) return;
    if (
      !(await confirmAction({
        title: 'Delete scene',
        body: `Delete scene '${draft.label}'? This cannot be undone.`,
        confirm: 'Delete',
        danger: true,
      }))
    )
      return;
    deleting.current = draft.key;
    try {
      await del(`scenes/${encodeURIComponent(draft.key)}`);
      toast(`Deleted scene '${draft.label}'`);
      setDraft(EMPTY);
      setSaved(JSON.stringify(EMPTY));
      setConflict(null);
    } catch (err) {
      toastError('Delete failed', err);
    } finally {
      deleting.current = null;
    }
  };
  const duplicate = async () => {
    if (!draft.key) return;
    try {
      const r = await post<{ scene: Scene }>(`scenes/${encodeURIComponent(draft.key)}/duplicate`, {});
      const d = toDraft(r.scene);
      setDraft(d);
      setSaved(JSON.stringify(d));
      toast(`Duplicated as '${r.scene.label}'`);
    } catch (err) {
      toastError('Duplicate failed', err);
    }
  };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key === 's') {
        e.preventDefault();
        void save();
      } else if ((e.ctrlKey || e.metaKey) && e.key === 'Enter') {
        e.preventDefault();
        void run();
      }
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  });
  useEffect(
    () => registerShortcut('Escape', () => running && void stop(), 'Stop the running scene'),
    [running],
  );

  const measured = lastRun ? draft.actions.map((_, i) => cards[i]?.ms) : [];
  const tl = timeline(
    draft.actions,
    estimate?.per_action ?? [],
    measured,
    draft.actions.map((a) => es?.kinds.find((k) => k.kind === a.kind)?.label ?? a.kind),
  );
  return (
    <div class="work">
      <SceneList draft={draft} dirty={dirty} onPick={pick} />
      <main class="main scene-main" id="main">
        <SceneHead draft={draft} onDraft={setDraft} lastRun={lastRun} />
        {conflict && (
          <ConflictBanner
            conflict={conflict}
            onTheirs={loadTheirs}
            onMine={keepMine}
            onDiscard={() => {
              setConflict(null);
              setDraft(EMPTY);
              setSaved(JSON.stringify(EMPTY));
            }}
          />
        )}
        <div class="scene-scroll">
          <SceneActionList
            sceneKey={draft.key}
            actions={draft.actions}
            estimates={estimate?.per_action}
            cards={cards}
            onActions={setActions}
          />
          <Timeline bars={tl.bars} total={tl.total} measured={measured.some((m) => m !== undefined)} />
        </div>
        <SceneRunBar
          draft={draft}
          dirty={dirty}
          estimate={estimate}
          estError={estError}
          estPending={estPending}
          running={running}
          hasConflict={conflict !== null}
          onRemove={remove}
          onDuplicate={duplicate}
          onSave={save}
          onRun={run}
          onStop={stop}
        />
      </main>
    </div>
  );
}
