/**
 * The operator's Test button: which gate a test flashes and in which colour. A test names a
 * seat (its gate and colour, as its lap would flash), a timing system (as its pass would),
 * the finish gate, or a gate directly. What cannot flash anything is a ValidationError
 * naming the field, so the page can show it next to the row.
 */
import * as z from 'zod';
import { ValidationError } from '../../../errors.ts';
import type { Rgb } from '../../../protocol/types.ts';
import type { Heat } from '../heat.ts';
import { hexToRgb } from './merge.ts';
import { gateLabel, seatColor, seatGate } from './phases.ts';
import { gateSchema, type Gate, type RaceLightsSettings } from './settings.ts';
import { SEATS, gateProblem, type TargetCatalog } from './targets.ts';

const hexColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour like #ff0000');

export const testFlashSchema = z
  .strictObject({
    seat: z
      .number()
      .int()
      .min(0)
      .max(SEATS - 1)
      .optional(),
    timing_system: z.number().int().min(0).max(63).optional(),
    finish: z.literal(true).optional(),
    gate: gateSchema.optional(),
    /** Overrides the colour the seat or pass would flash in; a gate alone flashes white. */
    color: hexColor.optional(),
  })
  .superRefine((v, ctx) => {
    const given = (['seat', 'timing_system', 'finish', 'gate'] as const).filter((k) => v[k] !== undefined);
    if (given.length !== 1)
      ctx.addIssue({
        code: 'custom',
        path: given.length === 0 ? ['seat'] : [given[1] ?? 'seat'],
        message: 'give exactly one of seat, timing_system, finish, gate',
      });
  });
export type TestFlash = z.infer<typeof testFlashSchema>;

const WHITE: Rgb = [255, 255, 255];

/** The gate and colour a test flashes. */
export function testTarget(
  t: TestFlash,
  s: RaceLightsSettings,
  heat: Heat | null,
  catalog: TargetCatalog,
): { gate: Gate; color: Rgb; label: string } {
  const given = t.color ? hexToRgb(t.color) : null;
  let gate: Gate | null;
  let color: Rgb;
  let field: string;
  if (t.seat !== undefined) {
    field = 'seat';
    gate = seatGate(s, t.seat);
    if (!gate)
      throw new ValidationError(`seat: seat ${t.seat} has no gate (and there is no gate of all seats)`);
    color = given ?? seatColor(s, heat, t.seat, null);
  } else if (t.timing_system !== undefined) {
    field = 'timing_system';
    const i = t.timing_system;
    gate = s.timing_systems.find((x) => x.index === i)?.gate ?? (i === 0 ? s.all_seats_gate : null);
    if (!gate) throw new ValidationError(`timing_system: timing system ${i} has no gate`);
    color = given ?? WHITE;
  } else if (t.finish) {
    field = 'finish';
    gate = s.finish_gate ?? s.all_seats_gate;
    if (!gate) throw new ValidationError('finish: no finish gate (and there is no gate of all seats)');
    color = given ?? WHITE;
  } else {
    field = 'gate';
    gate = t.gate as Gate;
    color = given ?? WHITE;
  }
  // A saved gate whose group or device was removed since: say so rather than flash nothing.
  const problem = gateProblem(gate, catalog);
  if (problem) throw new ValidationError(`${field}: ${problem}`);
  return { gate, color, label: gateLabel(gate) };
}
