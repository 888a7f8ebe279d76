/** Scenes page: library, editor, live cost estimate, timeline, run with progress, stop. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, del, post, put } from '../api.ts';
import { confirmAction } from '../dialogs/confirm.tsx';
import { formatDuration } from '../format.ts';
import { onSceneProgress } from '../live.ts';
import { registerShortcut } from '../keys.ts';
import { delayTotalMs, formatTotal, stickyOffsetWarnings, timeline, type Estimate } from '../scene-model.ts';
import { editorSchema, loadEditorSchema, newAction } from '../scene-schema.ts';
import { scenes } from '../store.ts';
import { toast, toastError } from '../toasts.ts';
import type { Scene, SceneAction } from '../types.ts';
import { ActionCard, type CardState } from './ActionCard.tsx';
import { Timeline } from './Timeline.tsx';
import { EMPTY_DRAFT, sceneDraft, sceneSaved } from '../scene-draft.ts';
import { ConflictBanner, toDraft, useFollowStored, type Draft } from './SceneConflict.tsx';

const EMPTY = EMPTY_DRAFT;
const MAX_ACTIONS = 20;

interface RunResult {
  ok: boolean;
  error: string | null;
  cancelled?: boolean;
  actions: { index: number; ok: boolean; state?: string; error?: string | null; duration_ms?: number }[];
  total_duration_ms?: number;
}

export function ScenesPage() {
  const draft = sceneDraft.value;
  const saved = sceneSaved.value;
  const setDraft = (d: Draft) => (sceneDraft.value = d);
  const setSaved = (j: string) => (sceneSaved.value = j);
  /** `wait`: the delays of the actions this estimate was made for (the total's waiting time). */
  const [estimate, setEstimate] = useState<{ total: Estimate; per_action: Estimate[]; wait: number } | null>(
    null,
  );
  const [estError, setEstError] = useState('');
  const [running, setRunning] = useState(false);
  const [cards, setCards] = useState<Record<number, CardState>>({});
  const [lastRun, setLastRun] = useState<RunResult | null>(null);
  const [addKind, setAddKind] = useState('native_effect');
  const runKey = useRef<string | null>(null);
  /** A delete of ours in flight: its refresh is not news. */
  const deleting = useRef<string | null>(null);
  const dirty = JSON.stringify(draft) !== saved;
  const [conflict, setConflict] = useFollowStored(draft, saved, setDraft, setSaved, deleting);
  const es = editorSchema.value;

  useEffect(() => {
    if (!editorSchema.value)
      void loadEditorSchema().catch((err) => toastError('Loading the scene editor failed', err));
  }, []);
  // Open the first scene once the library is known.
  useEffect(() => {
    if (draft.key === null && !dirty && scenes.value[0]) {
      const d = toDraft(scenes.value[0]);
      setDraft(d);
      setSaved(JSON.stringify(d));
    }
  }, [scenes.value]);
  // Live cost estimate of the draft, debounced; it also validates.
  useEffect(() => {
    const timer = setTimeout(async () => {
      if (!draft.actions.length) {
        setEstimate(null);
        setEstError('');
        return;
      }
      try {
        const r = await post<{ total: Estimate; per_action: Estimate[] }>('scenes/estimate', {
          actions: draft.actions,
        });
        setEstimate({ ...r, wait: delayTotalMs(draft.actions) });
        setEstError('');
      } catch (err) {
        setEstError(err instanceof ApiError ? err.message : String(err));
      }
    }, 300);
    return () => clearTimeout(timer);
  }, [JSON.stringify(draft.actions)]);
  useEffect(
    () =>
      onSceneProgress((p) => {
        if (p.key !== runKey.current) return;
        setCards((c) => ({
          ...c,
          [p.index]:
            p.phase === 'start'
              ? { state: 'running' }
              : { state: p.ok ? 'ok' : 'error', message: p.error ?? undefined, ms: c[p.index]?.ms },
        }));
      }),
    [],
  );

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
    setCards({});
    setLastRun(null);
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
    const body = { label: draft.label, actions: draft.actions, stop_on_error: draft.stop_on_error };
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
  const run = async () => {
    if (running) return;
    const key = draft.key ?? 'draft';
    runKey.current = key;
    setRunning(true);
    setCards({});
    setLastRun(null);
    try {
      // Unsaved edits run as given; the stored scene stays as it is.
      const body =
        dirty || !draft.key
          ? { label: draft.label, actions: draft.actions, stop_on_error: draft.stop_on_error }
          : {};
      const r = await post<{ result: RunResult }>(`scenes/${encodeURIComponent(key)}/run`, body);
      const res = r.result;
      setLastRun(res);
      setCards(() => {
        const next: Record<number, CardState> = {};
        draft.actions.forEach((_, i) => {
          const a = res.actions.find((x) => x.index === i);
          if (!a) next[i] = { state: 'skipped', message: 'skipped' };
          else
            next[i] = {
              state: a.ok
                ? a.state === 'degraded'
                  ? 'degraded'
                  : 'ok'
                : a.state === 'skipped'
                  ? 'skipped'
                  : 'error',
              message: a.error ?? undefined,
              ms: a.duration_ms,
            };
        });
        return next;
      });
      if (res.ok) toast(`Ran '${draft.label}' in ${formatDuration(res.total_duration_ms ?? 0)}`);
      else
        toast(
          `'${draft.label}' ${res.cancelled ? 'stopped' : 'failed'}: ${res.error ?? 'see the actions'}`,
          'error',
        );
    } catch (err) {
      toastError('Run failed', err);
    } finally {
      setRunning(false);
    }
  };
  const stop = async () => {
    try {
      await post('scenes/cancel');
      toast('Stopping the scene…');
    } catch (err) {
      toastError('Stop failed', err);
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

  const warnings = new Set(stickyOffsetWarnings(draft.actions));
  const measured = lastRun ? draft.actions.map((_, i) => cards[i]?.ms) : [];
  const tl = timeline(
    draft.actions,
    estimate?.per_action ?? [],
    measured,
    draft.actions.map((a) => es?.kinds.find((k) => k.kind === a.kind)?.label ?? a.kind),
  );
  const move = (i: number, d: number) => {
    const list = [...draft.actions];
    const [a] = list.splice(i, 1);
    list.splice(i + d, 0, a!);
    setActions(list);
  };
  return (
    <div class="work">
      <nav class="sidebar" aria-label="Scenes">
        <div class="side-head">
          <h2>Scenes</h2>
          <button
            type="button"
            class="ghost icon"
            title="New scene"
            aria-label="New scene"
            onClick={() => pick(EMPTY)}
          >
            +
          </button>
        </div>
        <ul class="pick-list">
          {scenes.value.map((s) => (
            <li key={s.key}>
              <button
                type="button"
                class={s.key === draft.key ? 'active' : ''}
                onClick={() => pick(toDraft(s))}
              >
                {s.label}
                {s.key === draft.key && dirty ? ' • unsaved' : ''}
              </button>
            </li>
          ))}
          {draft.key === null && (
            <li>
              <button type="button" class="active">
                {draft.label} • new
              </button>
            </li>
          )}
        </ul>
      </nav>
      <main class="main scene-main" id="main">
        <div class="scene-head">
          <input
            class="scene-label"
            aria-label="Scene label"
            value={draft.label}
            maxLength={200}
            onInput={(e) => setDraft({ ...draft, label: e.currentTarget.value })}
          />
          <label class="check">
            <input
              type="checkbox"
              checked={draft.stop_on_error}
              onChange={(e) => setDraft({ ...draft, stop_on_error: e.currentTarget.checked })}
            />
            Stop on first error
          </label>
          {lastRun && (
            <span class={lastRun.ok ? 'lvl-good' : 'error-text'} data-testid="last-run">
              Last run:{' '}
              {lastRun.ok ? 'OK' : lastRun.cancelled ? 'Stopped' : `Failed (${lastRun.error ?? 'error'})`} ·{' '}
              {lastRun.actions.length} actions · {formatDuration(lastRun.total_duration_ms ?? 0)}
            </span>
          )}
        </div>
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
          <h3>
            Actions ({draft.actions.length}/{MAX_ACTIONS})
          </h3>
          {draft.actions.map((a, i) => (
            <ActionCard
              key={`${draft.key}-${i}-${a.kind}`}
              action={a}
              index={i}
              path={String(i)}
              estimate={estimate?.per_action[i]}
              run={cards[i]}
              warn={
                warnings.has(i)
                  ? 'Follows an offset group: nodes still in offset mode ignore this action. Add an offset group with mode none first.'
                  : undefined
              }
              onChange={(next) => setActions(draft.actions.map((x, j) => (j === i ? next : x)))}
              tools={
                <>
                  <button
                    type="button"
                    class="ghost icon"
                    title="Move up"
                    aria-label="Move up"
                    disabled={i === 0}
                    onClick={() => move(i, -1)}
                  >
                    ▲
                  </button>
                  <button
                    type="button"
                    class="ghost icon"
                    title="Move down"
                    aria-label="Move down"
                    disabled={i === draft.actions.length - 1}
                    onClick={() => move(i, 1)}
                  >
                    ▼
                  </button>
                  <button
                    type="button"
                    class="ghost icon"
                    title="Duplicate"
                    aria-label="Duplicate action"
                    disabled={draft.actions.length >= MAX_ACTIONS}
                    onClick={() =>
                      setActions([
                        ...draft.actions.slice(0, i + 1),
                        JSON.parse(JSON.stringify(a)) as SceneAction,
                        ...draft.actions.slice(i + 1),
                      ])
                    }
                  >
                    Copy
                  </button>
                  <button
                    type="button"
                    class="ghost icon"
                    title="Remove"
                    aria-label="Remove action"
                    onClick={() => setActions(draft.actions.filter((_, j) => j !== i))}
                  >
                    ✕
                  </button>
                </>
              }
            />
          ))}
          <div class="row add-row">
            <label class="inline">
              Add action
              <select
                aria-label="New action kind"
                value={addKind}
                onChange={(e) => setAddKind(e.currentTarget.value)}
              >
                {es?.kinds.map((k) => (
                  <option key={k.kind} value={k.kind}>
                    {k.label}
                  </option>
                ))}
              </select>
            </label>
            <button
              type="button"
              class="small primary"
              disabled={!es || draft.actions.length >= MAX_ACTIONS}
              onClick={() => setActions([...draft.actions, newAction(addKind)])}
            >
              + Add
            </button>
          </div>
          <Timeline bars={tl.bars} total={tl.total} measured={measured.some((m) => m !== undefined)} />
        </div>
        <footer class="scene-foot">
          <span class="total" data-testid="total-cost">
            {estError ? (
              <span class="error-text">⚠ {estError}</span>
            ) : draft.actions.length === 0 ? (
              <span class="muted">No actions yet: add one below the list.</span>
            ) : (
              <>Total: {formatTotal(estimate?.total, estimate?.wait ?? 0)}</>
            )}
          </span>
          <span class="spacer" />
          {draft.key && (
            <>
              <button type="button" class="danger" onClick={remove} disabled={running}>
                Delete
              </button>
              <button type="button" onClick={duplicate} disabled={running}>
                Duplicate
              </button>
            </>
          )}
          <button
            type="button"
            class="primary"
            onClick={save}
            disabled={running || conflict !== null || !draft.label.trim() || (!dirty && draft.key !== null)}
            title={conflict ? 'Resolve the change made elsewhere first' : 'Ctrl+S'}
          >
            {draft.key ? 'Save' : 'Create'}
            {dirty ? ' •' : ''}
          </button>
          {running ? (
            <button type="button" class="danger" onClick={stop} title="Stop between actions (Esc)">
              Stop
            </button>
          ) : (
            <button
              type="button"
              class="go"
              onClick={run}
              disabled={!draft.actions.length}
              title="Ctrl+Enter"
            >
              Run
            </button>
          )}
        </footer>
      </main>
    </div>
  );
}
