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

export type Gate =
  { kind: 'group'; value: number } | { kind: 'device'; value: string } | { kind: 'broadcast' };

export interface PhaseSetting {
  enabled: boolean;
  scene: string | null;
}

export interface Settings {
  enabled: boolean;
  all_seats_gate: Gate | null;
  seats: { seat: number; gate: Gate | null; color: string | null }[];
  timing_systems: { index: number; gate: Gate }[];
  finish_gate: Gate | null;
  flash: { effect: number; length_ms: number; brightness: number; holeshot: boolean };
  start_lead_ms: number | null;
  /** Every phase the host knows, in its order: the page lists whatever is here. */
  phases: Record<string, PhaseSetting>;
}

export interface PassCount {
  passes: number;
  last_lap: number;
  last_epoch_ms: number;
}

export interface FlashRecord {
  source: 'rotorhazard' | 'fpvtrackside' | 'test';
  seats: number[];
  timing_system: number | null;
  gate: string;
  colors: string[];
  received_epoch_ms: number;
  sent_epoch_ms: number | null;
  ok: boolean;
  error: string | null;
}

export interface PhaseRecord {
  phase: string;
  state: string;
  error?: string | null;
  requested_epoch_ms: number;
}

export interface RaceLightsView {
  settings: Settings;
  effects: { value: number; label: string }[];
  seat_colors: { seat: number; color: string | null; from: 'setting' | 'heat' | null }[];
  stats: {
    laps: number;
    flashes_sent: number;
    dropped: Record<string, number>;
    ignored: Record<string, number>;
  };
  passes: { seats: (PassCount & { seat: number })[]; timing_systems: (PassCount & { index: number })[] };
  recent_flashes: FlashRecord[];
  recent_phases: PhaseRecord[];
}

export interface SourceState {
  connected: boolean;
  last_heard_epoch_ms: number | null;
  last_event: { type: string; detail?: string | null; seq?: number; received_epoch_ms: number } | null;
  events_per_minute: number;
  last_error: { at_epoch_ms: number; error: string } | null;
  counters: Record<string, number>;
}

export interface TimersView {
  rotorhazard: SourceState & { mode: string };
  fpvtrackside: SourceState & {
    url: string;
    token: string;
    race: { round: number | null; race: number | null; state: string } | null;
    hello: { at_epoch_ms: number; body: Record<string, unknown> } | null;
    session: { restarts: number; gaps: number; last_seq: number | null };
    detections: { flashed: number; filtered: number; not_flashed: Record<string, number> };
  };
}

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
