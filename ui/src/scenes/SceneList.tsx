/** The scene library sidebar: stored scenes, the open one marked (and whether it has unsaved edits), new scene. */
import { EMPTY_DRAFT } from './scene-draft.ts';
import { scenes } from '../store.ts';
import { toDraft, type Draft } from './SceneConflict.tsx';

export function SceneList({
  draft,
  dirty,
  onPick,
}: {
  draft: Draft;
  dirty: boolean;
  onPick: (d: Draft) => void;
}) {
  return (
    <nav class="sidebar" aria-label="Scenes">
      <div class="side-head">
        <h2>Scenes</h2>
        <button
          type="button"
          class="ghost icon"
          title="New scene"
          aria-label="New scene"
          onClick={() => onPick(EMPTY_DRAFT)}
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
              onClick={() => onPick(toDraft(s))}
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
  );
}
