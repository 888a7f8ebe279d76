/** The scene editor's footer: the estimated total (or why there is none), delete, duplicate, save, run/stop. */
import { formatFanOut, formatTotal } from './scene-model.ts';
import { networkNames, sceneNetworks } from './scene-networks.ts';
import type { NetworkEstimate } from './useSceneEstimate.ts';
import type { Draft } from './SceneConflict.tsx';
import type { DraftEstimate } from './useSceneEstimate.ts';

/** "Track A: 1p · 67 ms air · ~79 ms; Track B: …" */
function fanOutTitle(parts: readonly NetworkEstimate[]): string {
  return parts
    .map(
      (p) =>
        `${networkNames([p.network_id], sceneNetworks.value)}: ${p.packets}p · ${p.airtime_ms} ms air · ~${p.wall_clock_ms} ms`,
    )
    .join('; ');
}

export function SceneRunBar({
  draft,
  dirty,
  estimate,
  estError,
  estPending,
  running,
  hasConflict,
  onRemove,
  onDuplicate,
  onSave,
  onRun,
  onStop,
}: {
  draft: Draft;
  dirty: boolean;
  estimate: DraftEstimate | null;
  estError: string;
  estPending: boolean;
  running: boolean;
  /** A change made elsewhere is unresolved: saving would overwrite it unseen. */
  hasConflict: boolean;
  onRemove: () => void;
  onDuplicate: () => void;
  onSave: () => void;
  onRun: () => void;
  onStop: () => void;
}) {
  return (
    <footer class="scene-foot" data-toast-avoid>
      <span
        class={estPending ? 'total pending' : 'total'}
        data-testid="total-cost"
        data-pending={estPending ? 'true' : 'false'}
        title={estPending ? 'Recomputing for the latest edit…' : undefined}
      >
        {estError ? (
          <span class="error-text">⚠ {estError}</span>
        ) : draft.actions.length === 0 ? (
          <span class="muted">No actions yet: pick one under “Add action” and press + Add.</span>
        ) : (
          <>Total: {formatTotal(estimate?.total, estimate?.wait ?? 0)}</>
        )}
      </span>
      {!estError && estimate?.per_network && estimate.per_network.length > 1 && (
        <span class="muted" data-testid="fan-out" title={fanOutTitle(estimate.per_network)}>
          {formatFanOut(estimate.total, estimate.per_network, estimate.wait)}
        </span>
      )}
      <span class="spacer" />
      {draft.key && (
        <>
          <button type="button" class="danger" onClick={onRemove} disabled={running}>
            Delete
          </button>
          <button type="button" onClick={onDuplicate} disabled={running}>
            Duplicate
          </button>
        </>
      )}
      <button
        type="button"
        class="primary"
        onClick={onSave}
        disabled={running || hasConflict || !draft.label.trim() || (!dirty && draft.key !== null)}
        title={hasConflict ? 'Resolve the change made elsewhere first' : 'Ctrl+S'}
      >
        {draft.key ? 'Save' : 'Create'}
        {dirty ? ' •' : ''}
      </button>
      {running ? (
        <button type="button" class="danger" onClick={onStop} title="Stop between actions (Esc)">
          Stop
        </button>
      ) : (
        <button type="button" class="go" onClick={onRun} disabled={!draft.actions.length} title="Ctrl+Enter">
          Run
        </button>
      )}
    </footer>
  );
}
