/**
 * The FPVTrackside Extension push (interface v1.1): the envelope every body carries and the
 * events the race lights act on. Lenient on purpose — fields the lights do not use are not
 * checked (the sender adds fields between versions), and `null` is allowed wherever the
 * interface sends empty values as null. A body that fails here is counted as malformed.
 */
import * as z from 'zod';

/** `yyyy-MM-ddTHH:mm:ss.fffZ` (any ISO instant Date.parse reads) → epoch ms. */
const instant = z
  .string()
  .refine((s) => Number.isFinite(Date.parse(s)), 'must be an ISO time')
  .transform((s) => Date.parse(s));

export const envelopeSchema = z.object({
  type: z.string().min(1).max(64),
  ts: instant.optional(),
  seq: z.number().int().min(0),
});

const byte = z.number().int().min(0).max(255);
export const channelSchema = z.object({
  band: z.string().nullable().optional(),
  number: z.number().nullable().optional(),
  frequency: z.number().nullable().optional(),
  colorR: byte,
  colorG: byte,
  colorB: byte,
});
export type ChannelInfo = z.infer<typeof channelSchema>;

const pilotSchema = z.object({
  name: z.string().nullable().optional(),
  channel: channelSchema.nullable().optional(),
});

export const detectionSchema = z.object({
  detectionId: z.string().min(1).max(128),
  pilotName: z.string().nullable().optional(),
  channel: channelSchema.nullable().optional(),
  timingSystemIndex: z.number().int().min(0).max(63),
  isLapEnd: z.boolean().optional(),
  lapNumber: z.number().int().min(0),
  valid: z.boolean(),
});

const raceIdSchema = {
  round: z.number().int().nullable().optional(),
  race: z.number().int().nullable().optional(),
  raceType: z.string().nullable().optional(),
};
export const lifecycleSchema = z.object({
  ...raceIdSchema,
  scheduledStart: instant.nullable().optional(),
  actualStart: instant.nullable().optional(),
  failure: z.boolean().nullable().optional(),
});
export const announcementSchema = z.object({
  ...raceIdSchema,
  delaySeconds: z.number().nullable().optional(),
  expectedStart: instant.nullable().optional(),
});
export const raceLoadedSchema = z.object({
  ...raceIdSchema,
  scheduledStart: instant.nullable().optional(),
  targetLaps: z.number().nullable().optional(),
  raceLength: z.number().nullable().optional(),
  pilots: z.array(pilotSchema).nullable().optional(),
});
export const crashedOutSchema = z.object({
  pilot: pilotSchema,
  manuallySet: z.boolean().nullable().optional(),
});
export const helloSchema = z.object({
  fpvtVersion: z.string().nullable().optional(),
  platform: z.string().nullable().optional(),
  timingSystem: z
    .object({
      count: z.number().int().min(0),
      systems: z.array(
        z.object({ index: z.number().int().min(0), type: z.string(), role: z.string() }).loose(),
      ),
    })
    .loose()
    .nullable()
    .optional(),
});

/** The event types this host knows; anything else is counted as unknown (and answered 200). */
export const KNOWN_TYPES = new Set([
  'Hello',
  'RaceLoaded',
  'NextRace',
  'RaceStartAnnouncement',
  'RacePreStart',
  'RaceStart',
  'RaceTimesUp',
  'RaceEnd',
  'RaceCancelled',
  'PilotStaggeredStart',
  'DetectionExt',
  'RaceResult',
  'StageRanking',
  'PilotCrashedOut',
  'PilotRaceState',
]);

export const hexOf = (c: ChannelInfo): string =>
  '#' + [c.colorR, c.colorG, c.colorB].map((v) => v.toString(16).padStart(2, '0')).join('');
