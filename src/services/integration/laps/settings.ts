/**
 * Race lights settings (the RotorHazard plugin's "laps light the gates"): which Lightnet
 * group or device is the gate of each timer seat, seat colour overrides, the lap flash, and
 * what each race phase shows. Stored by the host (one JSON file, written durably); the
 * timing application only reports events.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { ledEffect } from '../../../domain/led-effects.ts';
import { writeFileDurable } from '../../../state/durable-write.ts';

const hexColor = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour like #ff0000')
  .transform((s) => s.toLowerCase());

/** A gate: one group (all its devices), one device, or every device. */
export const gateSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('group'), value: z.number().int().min(1).max(254) }),
  z.strictObject({
    kind: z.literal('device'),
    value: z
      .string()
      .regex(/^[0-9a-fA-F]{6}$/, 'must be a device address (6 hex digits)')
      .transform((s) => s.toUpperCase()),
  }),
  z.strictObject({ kind: z.literal('broadcast') }),
]);
export type Gate = z.infer<typeof gateSchema>;

const seatSchema = z.strictObject({
  seat: z.number().int().min(0).max(63),
  /** This seat's gate; null: the all-seats gate. */
  gate: gateSchema.nullable().default(null),
  /** Overrides RotorHazard's seat colour; null: RotorHazard's. */
  color: hexColor.nullable().default(null),
});

const phaseSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /** A stored Lightnet scene to run; null: the built-in look (see phases.ts). */
  scene: z.string().min(1).max(64).nullable().default(null),
});

/**
 * `crash_out`: a pilot out of the race (FPVTrackside's PilotCrashedOut; RotorHazard has none).
 * `tone`, `last_tone`, `go`: the countdown — each staging tone but the last, the last one,
 * and GO at the start instant; armed ahead and fired by one SYNC at the instant (countdown.ts),
 * so a scene bound to them must be native effects only. `pilot_done`: a pilot finished (on
 * that seat's own gate). `scheduled`: a race was scheduled ("start in m:ss"), off by default.
 */
export const PHASES = [
  'staging',
  'start',
  'finish',
  'win',
  'stop',
  'heat_change',
  'crash_out',
  'tone',
  'last_tone',
  'go',
  'pilot_done',
  'scheduled',
] as const;
export type Phase = (typeof PHASES)[number];
/** The countdown's steps: armed looks fired at their instant. */
export const COUNTDOWN_PHASES = ['tone', 'last_tone', 'go'] as const;

const on = { enabled: true, scene: null };
const PHASE_DEFAULTS: Record<Phase, { enabled: boolean; scene: null }> = {
  staging: on,
  start: on,
  finish: on,
  win: on,
  stop: on,
  heat_change: on,
  crash_out: on,
  tone: on,
  last_tone: on,
  go: on,
  pilot_done: on,
  scheduled: { enabled: false, scene: null },
};

const phasesSchema = z.strictObject({
  staging: phaseSchema.default(PHASE_DEFAULTS.staging),
  start: phaseSchema.default(PHASE_DEFAULTS.start),
  finish: phaseSchema.default(PHASE_DEFAULTS.finish),
  win: phaseSchema.default(PHASE_DEFAULTS.win),
  stop: phaseSchema.default(PHASE_DEFAULTS.stop),
  heat_change: phaseSchema.default(PHASE_DEFAULTS.heat_change),
  crash_out: phaseSchema.default(PHASE_DEFAULTS.crash_out),
  tone: phaseSchema.default(PHASE_DEFAULTS.tone),
  last_tone: phaseSchema.default(PHASE_DEFAULTS.last_tone),
  go: phaseSchema.default(PHASE_DEFAULTS.go),
  pilot_done: phaseSchema.default(PHASE_DEFAULTS.pilot_done),
  scheduled: phaseSchema.default(PHASE_DEFAULTS.scheduled),
});

/**
 * A second timer's timing system (FPVTrackside: 0 is the lap loop, then its split gates) and
 * the gate over it. An index without a row: index 0 flashes the all-seats gate, others nothing.
 */
const timingSystemSchema = z.strictObject({
  index: z.number().int().min(0).max(63),
  gate: gateSchema,
});

export const raceLightsSchema = z
  .strictObject({
    /** Off: RotorHazard's events change no light by themselves (Event Actions still do). */
    enabled: z.boolean().default(true),
    /** The gate of every seat without its own ("the gate over the timing line"). */
    all_seats_gate: gateSchema.nullable().default(null),
    seats: z.array(seatSchema).max(64).default([]),
    timing_systems: z.array(timingSystemSchema).max(64).default([]),
    /** Where the winner's colour shows; null: the all-seats gate. */
    finish_gate: gateSchema.nullable().default(null),
    flash: z
      .strictObject({
        /** A native effect id (the effect editor's `mode`). */
        effect: z
          .number()
          .int()
          .min(0)
          .max(255)
          .refine((id) => ledEffect(id) !== undefined, 'unknown effect id')
          .default(84),
        length_ms: z.number().int().min(100).max(10_000).default(800),
        brightness: z.number().int().min(1).max(255).default(255),
        /** The first pass after the start (lap 0) flashes too. */
        holeshot: z.boolean().default(true),
      })
      .default({ effect: 84, length_ms: 800, brightness: 255, holeshot: true }),
    /**
     * How early the start look leaves, so it shows at the start instant rather than one
     * airtime after it; null: the airtime of one look frame at the current radio settings.
     */
    start_lead_ms: z.number().int().min(0).max(2000).nullable().default(null),
    phases: phasesSchema.default(structuredClone(PHASE_DEFAULTS)),
  })
  .superRefine((v, ctx) => {
    const seen = new Set<number>();
    v.seats.forEach((s, i) => {
      if (seen.has(s.seat))
        ctx.addIssue({ code: 'custom', path: ['seats', i, 'seat'], message: 'seat listed twice' });
      seen.add(s.seat);
    });
    const systems = new Set<number>();
    v.timing_systems.forEach((t, i) => {
      if (systems.has(t.index))
        ctx.addIssue({
          code: 'custom',
          path: ['timing_systems', i, 'index'],
          message: 'timing system listed twice',
        });
      systems.add(t.index);
    });
  });
export type RaceLightsSettings = z.infer<typeof raceLightsSchema>;

export const defaultRaceLights = (): RaceLightsSettings => raceLightsSchema.parse({});

const FILE = 'race-lights.json';

/** The settings file in the data folder: absent or unreadable means the defaults. */
export class RaceLightsFile {
  constructor(private readonly dataDir: string) {}

  async load(): Promise<{ settings: RaceLightsSettings; problem: string | null }> {
    let text: string;
    try {
      text = await readFile(join(this.dataDir, FILE), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT')
        return { settings: defaultRaceLights(), problem: null };
      return { settings: defaultRaceLights(), problem: (err as Error).message };
    }
    try {
      const parsed = raceLightsSchema.safeParse(JSON.parse(text));
      if (parsed.success) return { settings: parsed.data, problem: null };
      return { settings: defaultRaceLights(), problem: `${FILE}: ${parsed.error.issues[0]?.message}` };
    } catch (err) {
      return { settings: defaultRaceLights(), problem: `${FILE}: ${(err as Error).message}` };
    }
  }

  save(s: RaceLightsSettings): Promise<void> {
    return writeFileDurable(join(this.dataDir, FILE), JSON.stringify(s, null, 2) + '\n');
  }
}

/** The gates set to one of `addrs` (`seat 2`, `all seats`, `finish`): forgetting reports them. */
export function raceLightGatesOf(s: RaceLightsSettings, addrs: ReadonlySet<string>): string[] {
  const hit = (g: Gate | null): boolean => g?.kind === 'device' && addrs.has(g.value);
  return [
    ...(hit(s.all_seats_gate) ? ['all seats'] : []),
    ...s.seats.filter((x) => hit(x.gate)).map((x) => `seat ${x.seat}`),
    ...s.timing_systems.filter((x) => hit(x.gate)).map((x) => `timing system ${x.index}`),
    ...(hit(s.finish_gate) ? ['finish'] : []),
  ];
}
