/**
 * Blackout: every node off, now. Always in the status bar (key `b`) — on a phone or
 * tablet in a band of its own along the bottom of the screen (race.css) —, big on the race
 * panel, and in the head of every dialog: an open modal dialog makes the page behind it
 * inert, so each dialog carries its own (Modal.tsx). The key works with any dialog, menu
 * or confirmation open, except while typing text (keys.ts). The host cancels the running
 * scene and task and broadcasts brightness 0 before anything else; no confirmation — it
 * is the safe direction, and it must be instant.
 */
import { useEffect, useState } from 'preact/hooks';
import { post } from '../api.ts';
import { registerShortcut } from '../keys.ts';
import { reloadDevicesNow } from '../store.ts';
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
  let r: Report;
  try {
    r = await post<Report>('blackout');
  } catch (err) {
    toastError('Blackout failed', err);
    return;
  } finally {
    // Released with the answer, not after the rows' read below: a second press must never wait.
    inFlight = false;
  }
  // The rows read dark before the toast says so.
  await reloadDevicesNow();
  const stopped = [
    r.scene_cancelled ? `scene '${r.scene_cancelled}' stopped` : '',
    r.task_cancelled ? `${taskLabel(r.task_cancelled)} cancelled` : '',
  ].filter(Boolean);
  toast(`Blackout: all nodes sent off${stopped.length ? ` — ${stopped.join(', ')}` : ''}`);
}

/** `bar`: the status bar's (owns the `b` key); `big`: the race panel's; `dialog`: a dialog head's. */
export type BlackoutPlace = 'bar' | 'big' | 'dialog';

const TEST_IDS: Record<BlackoutPlace, string> = {
  bar: 'blackout',
  big: 'blackout-big',
  dialog: 'blackout-dialog',
};

export function BlackoutButton({
  big = false,
  place = big ? 'big' : 'bar',
}: {
  big?: boolean;
  place?: BlackoutPlace;
}) {
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (place !== 'bar') return;
    return registerShortcut(
      'b',
      () => void blackout(),
      'Blackout: every node off, stops the scene and task (works in dialogs too)',
      {
        emergency: true,
      },
    );
  }, [place]);
  const click = async () => {
    setBusy(true);
    await blackout();
    setBusy(false);
  };
  return (
    <button
      type="button"
      class={`blackout ${place}`}
      data-testid={TEST_IDS[place]}
      onClick={click}
      aria-busy={busy}
      title="Blackout (b): every node off now — stops the running scene and task first"
    >
      ■ Blackout
    </button>
  );
}
