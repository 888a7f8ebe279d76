/** Running a scene: the run request, live per-action progress, the final per-action states, stop. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { post } from '../api.ts';
import { formatDuration } from '../format.ts';
import { onSceneProgress } from '../live.ts';
import { toast, toastError } from '../toasts.ts';
import type { CardState } from './ActionCard.tsx';
import type { Draft } from './SceneConflict.tsx';

export interface RunResult {
  ok: boolean;
  error: string | null;
  cancelled?: boolean;
  actions: { index: number; ok: boolean; state?: string; error?: string | null; duration_ms?: number }[];
  total_duration_ms?: number;
}

/** The card of every action after a run; an action the run never reached was skipped. */
export function cardsFromResult(count: number, res: RunResult): Record<number, CardState> {
  const next: Record<number, CardState> = {};
  for (let i = 0; i < count; i++) {
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
  }
  return next;
}

export function useSceneRun(draft: Draft, dirty: boolean) {
  const [running, setRunning] = useState(false);
  const [cards, setCards] = useState<Record<number, CardState>>({});
  const [lastRun, setLastRun] = useState<RunResult | null>(null);
  const runKey = useRef<string | null>(null);
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

  /** Another scene is open: the previous run's marks do not belong to it. */
  const reset = () => {
    setCards({});
    setLastRun(null);
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
          ? {
              label: draft.label,
              actions: draft.actions,
              stop_on_error: draft.stop_on_error,
              ...(draft.networks ? { networks: draft.networks } : {}),
            }
          : {};
      const r = await post<{ result: RunResult }>(`scenes/${encodeURIComponent(key)}/run`, body);
      const res = r.result;
      setLastRun(res);
      setCards(() => cardsFromResult(draft.actions.length, res));
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
  return { running, cards, lastRun, run, stop, reset };
}
