/**
 * The current heat as a timing application reports it, and the start-block slot list
 * derived from it. Seats are 0-based as RotorHazard numbers its nodes; start-block display
 * slots are 1-based (slot = seat + 1), the indexing the planner and the stream records use.
 */
import * as z from 'zod';
import type { StartblockSlot } from '../../domain/scenes/types.ts';
import { SCENE_LIMITS } from '../../domain/scenes/types.ts';

const color = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour like #ff0000')
  .transform((s) => s.toLowerCase());

export const heatSeatSchema = z.object({
  seat: z.number().int().min(0).max(63),
  callsign: z.string().max(64).default(''),
  pilot_id: z.number().int().nullable().default(null),
  band: z.string().max(4).nullable().default(null),
  channel: z.number().int().min(0).max(99).nullable().default(null),
  frequency: z.number().int().min(0).max(10_000).nullable().default(null),
  color: color.nullable().default(null),
});

export const heatBodySchema = z.object({
  heat_id: z.number().int().nullable(),
  heat_name: z.string().max(128).default(''),
  class_name: z.string().max(128).default(''),
  round: z.number().int().min(0).nullable().default(null),
  seats: z.array(heatSeatSchema).max(64),
});

export type HeatSeat = z.infer<typeof heatSeatSchema>;
export type HeatBody = z.infer<typeof heatBodySchema>;

export interface Heat extends HeatBody {
  source: 'rotorhazard';
  /** Wall-clock ms when the host received this heat. */
  received_at_ms: number;
}

/** Two-character race channel for the start-block display: `R1`, else `--`. */
export function raceChannel(seat: Pick<HeatSeat, 'band' | 'channel'>): string {
  const band = (seat.band ?? '').trim().toUpperCase().slice(0, 1);
  if (!band || seat.channel === null || seat.channel < 1 || seat.channel > 9) return '--';
  return `${band}${seat.channel}`;
}

/** The heat's seats as start-block slots 1..8 (seats beyond 8 have no display slot). */
export function heatSlots(heat: Heat | null): StartblockSlot[] {
  if (!heat) return [];
  return heat.seats
    .filter((s) => s.seat < SCENE_LIMITS.startblockSlots)
    .map((s) => ({ slot: s.seat + 1, callsign: s.callsign, racechannel: raceChannel(s) }))
    .sort((a, b) => a.slot - b.slot);
}
