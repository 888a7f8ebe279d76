/** What the host answers for the Race lights page (`GET /api/race-lights`, `GET /api/timers`). */
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
  passes: {
    /** Counted since the host started, or since the current race staged or started. */
    since: 'host_start' | 'race';
    since_epoch_ms: number;
    seats: (PassCount & { seat: number })[];
    timing_systems: (PassCount & { index: number })[];
  };
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
