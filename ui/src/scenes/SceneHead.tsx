/** The scene editor's head: label, stop-on-error, and how the last run went. */
import { formatDuration } from '../format.ts';
import type { Draft } from './SceneConflict.tsx';
import type { RunResult } from './useSceneRun.ts';
import { SceneScope } from './SceneScope.tsx';

export function SceneHead({
  draft,
  onDraft,
  lastRun,
}: {
  draft: Draft;
  onDraft: (d: Draft) => void;
  lastRun: RunResult | null;
}) {
  return (
    <div class="scene-head">
      <input
        class="scene-label"
        aria-label="Scene label"
        value={draft.label}
        maxLength={200}
        onInput={(e) => onDraft({ ...draft, label: e.currentTarget.value })}
      />
      <label class="check">
        <input
          type="checkbox"
          checked={draft.stop_on_error}
          onChange={(e) => onDraft({ ...draft, stop_on_error: e.currentTarget.checked })}
        />
        Stop on first error
      </label>
      <SceneScope value={draft.networks} onChange={(networks) => onDraft({ ...draft, networks })} />
      {lastRun && (
        <span class={lastRun.ok ? 'lvl-good' : 'error-text'} data-testid="last-run">
          Last run:{' '}
          {lastRun.ok ? 'OK' : lastRun.cancelled ? 'Stopped' : `Failed (${lastRun.error ?? 'error'})`} ·{' '}
          {lastRun.actions.length} actions · {formatDuration(lastRun.total_duration_ms ?? 0)}
        </span>
      )}
    </div>
  );
}
