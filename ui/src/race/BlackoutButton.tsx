/**
 * Blackout: every node off, now. Always in the status bar (key `b`) and big on the race
 * panel. The host cancels the running scene and task and broadcasts brightness 0 before
 * anything else; no confirmation — it is the safe direction, and it must be instant.
 */
import { useEffect, useState } from 'preact/hooks';
import { post } from '../api.ts';
import { registerShortcut } from '../keys.ts';
import { toast, toastError } from '../toasts.ts';
import { taskLabel } from '../task-text.ts';
import './race.css';

interface Report {
  sent: number;
  scene_cancelled: string | null;
  task_cancelled: string | null;
}

let inFlight = false;

export async function blackout(): Promise<void> {
  if (inFlight) return;
  inFlight = true;
  try {
    const r = await post<Report>('blackout');
    const stopped = [
      r.scene_cancelled ? `scene '${r.scene_cancelled}' stopped` : '',
      r.task_cancelled ? `${taskLabel(r.task_cancelled)} cancelled` : '',
    ].filter(Boolean);
    toast(`Blackout: all nodes sent off${stopped.length ? ` — ${stopped.join(', ')}` : ''}`);
  } catch (err) {
    toastError('Blackout failed', err);
  } finally {
    inFlight = false;
  }
}

export function BlackoutButton({ big = false }: { big?: boolean }) {
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (big) return;
    return registerShortcut('b', () => void blackout(), 'Blackout: every node off, stops the scene and task');
  }, [big]);
  const click = async () => {
    setBusy(true);
    await blackout();
    setBusy(false);
  };
  return (
    <button
      type="button"
      class={`blackout${big ? ' big' : ''}`}
      data-testid={big ? 'blackout-big' : 'blackout'}
      onClick={click}
      aria-busy={busy}
      title="Blackout (b): every node off now — stops the running scene and task first"
    >
      ■ Blackout
    </button>
  );
}
