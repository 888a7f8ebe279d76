/**
 * The editable copy of the race-light settings: strings as typed (a group number being
 * typed is not yet a number), turned into the PUT body, and the host's 400 turned back into
 * the field it names (`seats[2].gate: no group 99` → seat 5's gate, when seat 5 was the
 * third row sent).
 */
import type { Gate, Settings } from './types.ts';

export const SEATS = 8;

export interface GateDraft {
  kind: '' | 'group' | 'device' | 'broadcast';
  value: string;
}

export interface Draft {
  enabled: boolean;
  all_seats_gate: GateDraft;
  finish_gate: GateDraft;
  /** Index = seat. */
  seats: { gate: GateDraft; color: string | null }[];
  timing_systems: { index: string; gate: GateDraft }[];
  flash: { effect: string; length_ms: string; brightness: string; holeshot: boolean };
  start_lead_ms: number | null;
  phases: Record<string, { enabled: boolean; scene: string | null }>;
}

export const gateDraft = (g: Gate | null): GateDraft =>
  !g
    ? { kind: '', value: '' }
    : g.kind === 'broadcast'
      ? { kind: 'broadcast', value: '' }
      : { kind: g.kind, value: String(g.value) };

/** The gate as the API takes it; a group number that is not one is sent as typed for the host to name. */
export function gateOf(d: GateDraft): Gate | null {
  if (d.kind === '') return null;
  if (d.kind === 'broadcast') return { kind: 'broadcast' };
  if (d.kind === 'group') {
    const n = Number(d.value.trim());
    return {
      kind: 'group',
      value: d.value.trim() === '' || !Number.isFinite(n) ? (d.value as unknown as number) : n,
    };
  }
  return { kind: 'device', value: d.value.trim() };
}

export function draftOf(s: Settings): Draft {
  return {
    enabled: s.enabled,
    all_seats_gate: gateDraft(s.all_seats_gate),
    finish_gate: gateDraft(s.finish_gate),
    seats: Array.from({ length: SEATS }, (_, seat) => {
      const row = s.seats.find((x) => x.seat === seat);
      return { gate: gateDraft(row?.gate ?? null), color: row?.color ?? null };
    }),
    timing_systems: s.timing_systems.map((t) => ({ index: String(t.index), gate: gateDraft(t.gate) })),
    flash: {
      effect: String(s.flash.effect),
      length_ms: String(s.flash.length_ms),
      brightness: String(s.flash.brightness),
      holeshot: s.flash.holeshot,
    },
    start_lead_ms: s.start_lead_ms,
    phases: structuredClone(s.phases),
  };
}

const num = (v: string): number | string => (v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v);

/** The PUT body and, per `seats[i]`, the seat it is. */
export function bodyOf(d: Draft): { body: Record<string, unknown>; seatAt: number[] } {
  const seatAt: number[] = [];
  const seats = d.seats.flatMap((row, seat) => {
    if (row.gate.kind === '' && row.color === null) return [];
    seatAt.push(seat);
    return [{ seat, gate: gateOf(row.gate), color: row.color }];
  });
  return {
    seatAt,
    body: {
      enabled: d.enabled,
      all_seats_gate: gateOf(d.all_seats_gate),
      seats,
      timing_systems: d.timing_systems.map((t) => ({ index: num(t.index), gate: gateOf(t.gate) })),
      finish_gate: gateOf(d.finish_gate),
      flash: {
        effect: num(d.flash.effect),
        length_ms: num(d.flash.length_ms),
        brightness: num(d.flash.brightness),
        holeshot: d.flash.holeshot,
      },
      start_lead_ms: d.start_lead_ms,
      phases: d.phases,
    },
  };
}

/**
 * The page's field key for a host error (`seat.5.gate`, `ts.0.index`, `all_seats_gate`,
 * `flash.length_ms`, `phases.stop.scene`) and its message; `key` null: no field of the page.
 */
export function fieldOfError(
  error: string,
  seatAt: readonly number[],
): { key: string | null; message: string } {
  const m = /^([A-Za-z_][\w.[\]]*): (.*)$/s.exec(error);
  if (!m) return { key: null, message: error };
  const field = m[1] as string;
  const message = m[2] as string;
  const seat = /^seats\[(\d+)\]\.?(\w*)/.exec(field);
  if (seat) {
    const n = seatAt[Number(seat[1])];
    return { key: n === undefined ? null : `seat.${n}.${seat[2] === 'color' ? 'color' : 'gate'}`, message };
  }
  const ts = /^timing_systems\[(\d+)\]\.?(\w*)/.exec(field);
  if (ts) return { key: `ts.${ts[1]}.${ts[2] === 'index' ? 'index' : 'gate'}`, message };
  const gate = /^(all_seats_gate|finish_gate)/.exec(field);
  if (gate) return { key: gate[1] as string, message };
  return { key: field, message };
}

/** The field key as the operator reads it: `seat.1.gate` → "Seat 2 gate". */
export function fieldLabel(key: string): string {
  const seat = /^seat\.(\d+)\.(\w+)$/.exec(key);
  if (seat) return `Seat ${Number(seat[1]) + 1} ${seat[2] === 'color' ? 'colour' : 'gate'}`;
  const ts = /^ts\.(\d+)\.(\w+)$/.exec(key);
  if (ts) return `Timing system row ${Number(ts[1]) + 1} ${ts[2]}`;
  const phase = /^phases\.(\w+)\.\w+$/.exec(key);
  if (phase) return `Phase ${(phase[1] as string).replace(/_/g, ' ')}`;
  if (key === 'all_seats_gate') return 'Gate of all seats';
  if (key === 'finish_gate') return 'Finish gate';
  return key.replace(/[._]/g, ' ');
}

/**
 * The gates set to a group or a device with none chosen, in page order, as the operator
 * reads them ("Choose a group for 'Gate of all seats'"): checked before sending, so the host's
 * validator words ("expected number, received string") never reach the page.
 */
export function unchosenGates(d: Draft): { key: string; message: string }[] {
  const rows: [string, string, GateDraft][] = [
    ['all_seats_gate', 'Gate of all seats', d.all_seats_gate],
    ['finish_gate', 'Finish gate', d.finish_gate],
    ...d.seats.map((s, seat): [string, string, GateDraft] => [
      `seat.${seat}.gate`,
      `Seat ${seat + 1}`,
      s.gate,
    ]),
    ...d.timing_systems.map((t, i): [string, string, GateDraft] => [
      `ts.${i}.gate`,
      `Timing system ${t.index.trim() || i + 1}`,
      t.gate,
    ]),
  ];
  return rows
    .filter(([, , g]) => (g.kind === 'group' || g.kind === 'device') && g.value.trim() === '')
    .map(([key, name, g]) => ({ key, message: `Choose a ${g.kind} for '${name}'` }));
}

/** How an editor section changes the draft (it becomes unsaved). */
export type EditDraft = (fn: (d: Draft) => void) => void;
/** The host's refusal for a field of the draft (keys as `fieldOfError` gives them), if any. */
export type FieldError = (key: string) => string | null;
