/** One device's link test from its detail view: 10 exchanges, progress, then its result row. */
import { useState } from 'preact/hooks';
import { post } from '../api.ts';
import { task, taskRunning } from '../store.ts';
import { taskProgress } from '../task-text.ts';
import { toastError } from '../toasts.ts';
import type { LinkTestResult } from './data.ts';
import { Results } from './LinkTest.tsx';

const COUNT = 10;

export function DeviceLinkTest({ addr }: { addr: string }) {
  const [taskId, setTaskId] = useState<number | null>(null);
  const t = task.value;
  const mine = t && t.id === taskId ? t : null;
  const p = mine?.state === 'running' ? taskProgress(mine) : null;
  const result = mine?.state === 'done' ? (mine.result as LinkTestResult | null) : null;
  const start = async (): Promise<void> => {
    try {
      const r = await post<{ task: { id: number } }>('link-test', { macs: [addr], count: COUNT });
      setTaskId(r.task.id);
    } catch (err) {
      toastError('Link test refused', err);
    }
  };
  return (
    <div class="ops-head">
      <button
        type="button"
        disabled={taskRunning.value}
        title={taskRunning.value ? 'Another task is running' : `${COUNT} status exchanges with this device`}
        onClick={() => void start()}
      >
        Link test ({COUNT} exchanges)
      </button>
      {p && (
        <span class="nowrap">
          <progress max={p.total} value={p.index} /> {p.index}/{p.total}
        </span>
      )}
      {mine?.state === 'error' && <span class="error-text">Link test failed: {mine.last_error}</span>}
      {result && <Results r={result} />}
    </div>
  );
}
