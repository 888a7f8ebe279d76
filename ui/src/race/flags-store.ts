/**
 * The race flag that is up (the host's flags service): read with GET /api/flags at every
 * stream (re)open — the stream only seeds a raised flag, so a cleared one must be read —
 * then kept current by the stream's `flag` event. Pressing a flag posts it; the answer's
 * state is applied at once so the bar does not wait for the stream.
 */
import { signal } from '@preact/signals';
import { get, post } from '../api.ts';
import { reloadDevicesNow } from '../store.ts';
import { toast, toastError } from '../toasts.ts';

export type Flag = 'green' | 'yellow' | 'red';
export type FlagAction = Flag | 'clear';
export const FLAG_ACTIONS: readonly FlagAction[] = ['red', 'yellow', 'green', 'clear'];

export interface FlagState {
  flag: Flag | null;
  since_epoch_ms: number | null;
  source: string | null;
}

export const LABELS: Record<FlagAction, string> = {
  red: 'Red flag',
  yellow: 'Yellow flag',
  green: 'Green flag',
  clear: 'Clear flag',
};

/** null until the first read: the bar then shows no flag state rather than a guessed one. */
export const flagState = signal<FlagState | null>(null);
/** The action being sent now (its buttons show busy). */
export const flagSending = signal<FlagAction | null>(null);

function applyFlag(s: FlagState): void {
  flagState.value = { flag: s.flag, since_epoch_ms: s.since_epoch_ms, source: s.source };
}

/** Counts the stream's `flag` events: an answer to a request sent before the latest may be older. */
let streamSeen = 0;

/** The stream's `flag` event: always the newest state (the stream is ordered). */
export function applyFlagEvent(s: FlagState): void {
  streamSeen++;
  applyFlag(s);
}

/**
 * An answer (a read, or a raise's own answer) applies only if the stream told no change while
 * it was out: it travels on another connection and can arrive after a newer stream event (red
 * seeded on reload, the read sent, a clear from the API: the read's late "red" kept the
 * Clear button up for good). Every later change comes on the stream, so nothing is lost.
 */
function applyAnswer(s: FlagState, seen: number): void {
  if (seen === streamSeen) applyFlag(s);
}

export async function loadFlag(): Promise<void> {
  const seen = streamSeen;
  applyAnswer(await get<FlagState>('flags'), seen);
}

interface RaiseAnswer {
  sent: number;
  scene_cancelled: string | null;
  state: FlagState;
}

/**
 * Raises a flag (or clears). Not guarded against a second press: pressing red again
 * re-sends it, which is what an operator who sees a gate still green wants.
 */
export async function raiseFlag(action: FlagAction): Promise<void> {
  flagSending.value = action;
  const seen = streamSeen;
  try {
    const r = await post<RaiseAnswer>(`flags/${action}`);
    applyAnswer(r.state, seen);
    // The rows show the look before the toast says it is up.
    await reloadDevicesNow();
    const scene = r.scene_cancelled ? ` — scene '${r.scene_cancelled}' stopped` : '';
    toast(action === 'clear' ? 'Flag cleared' : `${LABELS[action]} up${scene}`);
  } catch (err) {
    toastError(`${LABELS[action]} failed`, err);
    // A 503 still changed the flag state on the host (the radio failed): show what is up,
    // and the rows of the networks it reached.
    void loadFlag().catch(() => undefined);
    void reloadDevicesNow();
  } finally {
    if (flagSending.value === action) flagSending.value = null;
  }
}
