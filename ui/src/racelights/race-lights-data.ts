/**
 * The Race lights page's data: `GET /api/race-lights` (settings, counters, recent flashes
 * and phase looks) and `GET /api/timers` (each source's state), kept current while the page
 * is open. The host's `race_lights` stream event says what changed; re-reads are coalesced
 * (one at a time, one more if something changed meanwhile). While the stream is down the
 * page polls instead, so it never shows stale data as if live.
 */
import { signal } from '@preact/signals';
import { get } from '../api.ts';
import { onRaceLights, onReconnect } from '../live.ts';
import { link } from '../store.ts';
import type { RaceLightsView, TimersView } from './types.ts';

export type * from './types.ts';

export const view = signal<RaceLightsView | null>(null);
export const timers = signal<TimersView | null>(null);
/** Why the last read failed (shown on the page); null when it worked. */
export const readError = signal<string | null>(null);
/** Wall time of the last successful read. */
export const readAt = signal(0);

const POLL_MS = 3000;
/** Rates ("events/min") and "connected" age without events: re-read now and then anyway. */
const REFRESH_MS = 15_000;

let inFlight = false;
let again = false;

/** Reads both answers; a read asked for while one runs happens right after it. */
export async function reload(): Promise<void> {
  if (inFlight) {
    again = true;
    return;
  }
  inFlight = true;
  try {
    const [v, t] = await Promise.all([get<RaceLightsView>('race-lights'), get<TimersView>('timers')]);
    view.value = v;
    timers.value = t;
    readError.value = null;
    readAt.value = Date.now();
  } catch (err) {
    readError.value = (err as Error).message;
  } finally {
    inFlight = false;
    if (again) {
      again = false;
      void reload();
    }
  }
}

/** Follows the host while the page is open; returns the stop. */
export function follow(): () => void {
  void reload();
  const offLive = onRaceLights(() => void reload());
  const offReconnect = onReconnect(() => void reload());
  // The stream carries the cue; while it is down, poll (and say so on the page).
  const poll = setInterval(() => {
    if (link.value !== 'open' || Date.now() - readAt.value >= REFRESH_MS) void reload();
  }, POLL_MS);
  return () => {
    offLive();
    offReconnect();
    clearInterval(poll);
  };
}
