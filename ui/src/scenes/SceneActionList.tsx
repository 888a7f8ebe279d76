/** The scene editor body: the action cards with their move/copy/remove tools, and adding an action. */
import { useState } from 'preact/hooks';
import { stickyOffsetWarnings, type Estimate } from './scene-model.ts';
import { editorSchema, newAction } from '../scene-schema.ts';
import type { SceneAction } from '../types.ts';
import { ActionCard, type CardState } from './ActionCard.tsx';

export const MAX_ACTIONS = 20;

export function SceneActionList({
  sceneKey,
  actions,
  estimates,
  cards,
  onActions,
}: {
  sceneKey: string | null;
  actions: SceneAction[];
  estimates: Estimate[] | undefined;
  cards: Record<number, CardState>;
  onActions: (actions: SceneAction[]) => void;
}) {
  const [addKind, setAddKind] = useState('native_effect');
  const es = editorSchema.value;
  const warnings = new Set(stickyOffsetWarnings(actions));
  const move = (i: number, d: number) => {
    const list = [...actions];
    const [a] = list.splice(i, 1);
    list.splice(i + d, 0, a!);
    onActions(list);
  };
  return (
    <>
      <h3>
        Actions ({actions.length}/{MAX_ACTIONS})
      </h3>
      {actions.map((a, i) => (
        <ActionCard
          key={`${sceneKey}-${i}-${a.kind}`}
          action={a}
          index={i}
          path={String(i)}
          estimate={estimates?.[i]}
          run={cards[i]}
          warn={
            warnings.has(i)
              ? 'Follows an offset group: nodes still in offset mode ignore this action. Add an offset group with mode none first.'
              : undefined
          }
          onChange={(next) => onActions(actions.map((x, j) => (j === i ? next : x)))}
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
                disabled={i === actions.length - 1}
                onClick={() => move(i, 1)}
              >
                ▼
              </button>
              <button
                type="button"
                class="ghost icon"
                title="Duplicate"
                aria-label="Duplicate action"
                disabled={actions.length >= MAX_ACTIONS}
                onClick={() =>
                  onActions([
                    ...actions.slice(0, i + 1),
                    JSON.parse(JSON.stringify(a)) as SceneAction,
                    ...actions.slice(i + 1),
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
                onClick={() => onActions(actions.filter((_, j) => j !== i))}
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
          disabled={!es || actions.length >= MAX_ACTIONS}
          onClick={() => onActions([...actions, newAction(addKind)])}
        >
          + Add
        </button>
      </div>
    </>
  );
}
