/**
 * Gates of a race (from the seat mapping) and the built-in look of each race phase, as
 * scene drafts the scene runner plays like any scene (so a lap flash returns to them).
 * An operator replaces a look by binding a stored scene, or switches the phase off.
 */
import type { Rgb } from '../../../protocol/types.ts';
import type { Heat } from '../heat.ts';
import { hexToRgb } from './merge.ts';
import type { Gate, Phase, RaceLightsSettings } from './settings.ts';

export type SceneTarget =
  { kind: 'broadcast' } | { kind: 'groups'; value: number[] } | { kind: 'device'; value: string };

export const gateTarget = (g: Gate): SceneTarget =>
  g.kind === 'group' ? { kind: 'groups', value: [g.value] } : g.kind === 'device' ? g : { kind: 'broadcast' };

export const gateLabel = (g: Gate): string =>
  g.kind === 'group' ? `group ${g.value}` : g.kind === 'device' ? `device ${g.value}` : 'all devices';

const sameGate = (a: Gate, b: Gate): boolean =>
  a.kind === b.kind &&
  (a.kind === 'broadcast' || (a as { value: unknown }).value === (b as { value: unknown }).value);

/** The gate of a seat: its own, else the all-seats gate; null when the seat has none. */
export function seatGate(s: RaceLightsSettings, seat: number): Gate | null {
  return s.seats.find((x) => x.seat === seat)?.gate ?? s.all_seats_gate;
}

/** A seat's colour: the operator's override, else the timing application's, else white. */
export function seatColor(
  s: RaceLightsSettings,
  heat: Heat | null,
  seat: number,
  reported?: string | null,
): Rgb {
  const hex =
    s.seats.find((x) => x.seat === seat)?.color ??
    reported ??
    heat?.seats.find((x) => x.seat === seat)?.color ??
    null;
  return hex ? hexToRgb(hex) : [255, 255, 255];
}

/** Seats in play: the heat's, plus any the settings name. */
function seatsInPlay(s: RaceLightsSettings, heat: Heat | null): number[] {
  const set = new Set<number>([...(heat?.seats.map((x) => x.seat) ?? []), ...s.seats.map((x) => x.seat)]);
  return [...set].sort((a, b) => a - b);
}

/** Every distinct gate of the race (each seat's, the all-seats gate, each timing system's). */
export function raceGates(s: RaceLightsSettings, heat: Heat | null): Gate[] {
  const out: Gate[] = [];
  const add = (g: Gate | null): void => {
    if (g && !out.some((x) => sameGate(x, g))) out.push(g);
  };
  add(s.all_seats_gate);
  for (const seat of seatsInPlay(s, heat)) add(seatGate(s, seat));
  // A second timer's split gates show the race too.
  for (const t of s.timing_systems) add(t.gate);
  return out;
}

interface Draft {
  label: string;
  actions: Record<string, unknown>[];
}

const solid = (gates: Gate[], color: Rgb, brightness: number): Record<string, unknown>[] =>
  gates.map((g) => ({
    kind: 'native_effect',
    target: gateTarget(g),
    params: { mode: 0, brightness, color1: [...color] },
  }));

/**
 * The built-in look of a phase, or null when it would address nothing (no gate mapped).
 * `winner` is the winning seat and its colour (phase `win`).
 */
export function builtinLook(
  phase: Phase,
  s: RaceLightsSettings,
  heat: Heat | null,
  winner: { seat: number | null; color: string | null } | null = null,
): Draft | null {
  const gates = raceGates(s, heat);
  if (gates.length === 0) return null;
  let actions: Record<string, unknown>[];
  switch (phase) {
    case 'staging':
      actions = solid(gates, [255, 110, 0], 160);
      break;
    case 'start':
      actions = solid(gates, [0, 255, 0], 255);
      break;
    case 'finish':
      actions = solid(gates, [255, 255, 255], 200);
      break;
    case 'stop':
      actions = solid(gates, [255, 0, 0], 160);
      break;
    // The countdown: red on each tone, amber on the last, green at GO — full brightness,
    // read from the start line in daylight.
    case 'tone':
      actions = solid(gates, [255, 0, 0], 255);
      break;
    case 'last_tone':
      actions = solid(gates, [255, 170, 0], 255);
      break;
    case 'go':
      actions = solid(gates, [0, 255, 0], 255);
      break;
    case 'scheduled':
      actions = solid(gates, [0, 60, 255], 60);
      break;
    case 'pilot_done': {
      // Only a seat's own gate: on a shared gate "done" would read as everyone's.
      const seat = winner?.seat ?? null;
      const own = seat !== null ? s.seats.find((x) => x.seat === seat)?.gate : null;
      if (!own || (s.all_seats_gate && sameGate(own, s.all_seats_gate))) return null;
      const color = seatColor(s, heat, seat as number, winner?.color ?? null);
      // The pilot's colour alternating with white (a chequered flag), effect 1 "Blink".
      actions = [
        {
          kind: 'native_effect',
          target: gateTarget(own),
          params: { mode: 1, brightness: 200, speed: 200, color1: [...color], color2: [255, 255, 255] },
        },
      ];
      break;
    }
    case 'win': {
      const gate = s.finish_gate ?? s.all_seats_gate ?? null;
      const color =
        winner?.seat !== null && winner?.seat !== undefined
          ? seatColor(s, heat, winner.seat, winner.color)
          : winner?.color
            ? hexToRgb(winner.color)
            : null;
      if (!color) return null;
      actions = solid(gate ? [gate] : gates, color, 255);
      break;
    }
    case 'crash_out': {
      // The pilot's colour and red in turn on every gate; the race look follows (service.ts).
      const own = winner?.color ? hexToRgb(winner.color) : ([255, 255, 255] as Rgb);
      actions = [];
      for (let i = 0; i < 2; i++) {
        actions.push(...solid(gates, [255, 0, 0], 255), { kind: 'delay', duration_ms: 300 });
        actions.push(...solid(gates, own, 255), { kind: 'delay', duration_ms: 300 });
      }
      break;
    }
    case 'heat_change': {
      // Each seat's own gate in its seat colour (dim): the pilots see where they start.
      actions = [];
      const seats = seatsInPlay(s, heat);
      for (const gate of gates) {
        const own = seats.filter((seat) => {
          const g = seatGate(s, seat);
          return g !== null && sameGate(g, gate);
        });
        const color: Rgb =
          own.length === 1 && !(s.all_seats_gate && sameGate(s.all_seats_gate, gate))
            ? seatColor(s, heat, own[0] as number)
            : [255, 255, 255];
        actions.push(...solid([gate], color, 80));
      }
      break;
    }
  }
  return { label: `race lights: ${phase}`, actions };
}
