/** A task's progress inside a dialog that started it (follows the task signal). */
import { formatElapsed } from '../format.ts';
import { task } from '../store.ts';
import { describeTaskEnd, taskMessage, taskProgress } from '../task-text.ts';

export function TaskProgress({ id }: { id: number | null }) {
  const t = task.value;
  if (id === null || !t || t.id !== id) return null;
  const p = taskProgress(t);
  if (t.state === 'running') {
    return (
      <div class="task-box running" role="status" data-testid="dialog-task">
        <div>
          <span class="spinner" aria-hidden="true" /> {taskMessage(t) || 'Working…'}{' '}
          <span class="muted mono">{formatElapsed(t.elapsed_s ?? 0)}</span>
        </div>
        {p && (
          <div class="progress wide">
            <span class="bar" style={{ width: `${(100 * p.index) / p.total}%` }} />
            <span class="progress-text">
              {p.index}/{p.total}
            </span>
          </div>
        )}
      </div>
    );
  }
  const end = describeTaskEnd(t);
  return (
    <div class={`task-box ${end.ok ? 'ok' : 'error'}`} role="status" data-testid="dialog-task">
      {end.ok ? '✓' : '✗'} {end.text}
    </div>
  );
}
