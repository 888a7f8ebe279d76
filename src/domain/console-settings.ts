/**
 * The race-day console settings every browser shares: race mode (the UI hides
 * destructive maintenance actions while it is on), the scenes pinned to the race panel
 * in order (keys 1–9 run the first nine), the battery warning level per cell, and the
 * alerts operators acknowledged. Pure: the shape, its limits, the PATCH body schema and
 * the tolerant reading of the stored section. The web UI imports these types.
 */
import * as z from 'zod';
import { isRecord } from './input.ts';

export const MAX_PINNED_SCENES = 9;
/** Acknowledged alerts kept (the newest); older acknowledgements are forgotten first. */
export const MAX_ACKNOWLEDGED_ALERTS = 1000;
const MAX_KEY_CHARS = 100;
export const WARN_PER_CELL_MIN_V = 3;
export const WARN_PER_CELL_MAX_V = 4;
export const DEFAULT_WARN_PER_CELL_V = 3.4;

export interface BatteryThresholds {
  /** Warn below this voltage per cell (the pack size is judged from the voltage). */
  warnPerCell: number;
}

export interface ConsoleSettings {
  race_mode: boolean;
  /** Scene keys in panel order, at most MAX_PINNED_SCENES. */
  pinned_scenes: string[];
  battery: BatteryThresholds;
  /** Alert keys (`<kind>:<addr>`, the UI's alert list), oldest first. */
  acknowledged_alerts: string[];
}

export const defaultConsoleSettings = (): ConsoleSettings => ({
  race_mode: false,
  pinned_scenes: [],
  battery: { warnPerCell: DEFAULT_WARN_PER_CELL_V },
  acknowledged_alerts: [],
});

const keyString = (what: string) =>
  z
    .string({ error: `must be ${what} (a string)` })
    .min(1, 'must not be empty')
    .max(MAX_KEY_CHARS, `must be at most ${MAX_KEY_CHARS} characters`);

const alertKeys = z
  .array(keyString('an alert key'), { error: 'must be a list of alert keys' })
  .max(MAX_ACKNOWLEDGED_ALERTS, `must hold at most ${MAX_ACKNOWLEDGED_ALERTS} keys`);

const warnPerCell = z
  .number({ error: 'must be a number (volts per cell)' })
  .min(WARN_PER_CELL_MIN_V, `must be >= ${WARN_PER_CELL_MIN_V}`)
  .max(WARN_PER_CELL_MAX_V, `must be <= ${WARN_PER_CELL_MAX_V}`);

/** Field names a PATCH accepts, in the order they are applied. */
export const CONSOLE_PATCH_FIELDS = [
  'race_mode',
  'pinned_scenes',
  'battery',
  'acknowledged_alerts',
  'unacknowledge',
  'acknowledge',
] as const;

/**
 * PATCH /api/console: every field optional, at least one given (checked by the service).
 * `acknowledged_alerts` replaces the list; `unacknowledge` then removes keys and
 * `acknowledge` adds them — so two browsers acknowledging different alerts at once do not
 * overwrite each other. Unknown fields are refused (strict), also inside `battery`.
 */
export const consolePatchSchema = z.strictObject({
  race_mode: z.boolean({ error: 'must be true or false' }).optional(),
  pinned_scenes: z
    .array(keyString('a scene key'), { error: 'must be a list of scene keys' })
    .max(MAX_PINNED_SCENES, `must hold at most ${MAX_PINNED_SCENES} scenes`)
    .optional(),
  battery: z.strictObject({ warnPerCell }, { error: 'must be an object {warnPerCell}' }).optional(),
  acknowledged_alerts: alertKeys.optional(),
  unacknowledge: alertKeys.optional(),
  acknowledge: alertKeys.optional(),
});

export type ConsolePatch = z.infer<typeof consolePatchSchema>;

/** Keys in first-seen order, without repeats. */
export const uniqueKeys = (keys: readonly string[]): string[] => [...new Set(keys)];

/** The newest `MAX_ACKNOWLEDGED_ALERTS` of a list kept oldest first. */
export const newestAcks = (keys: readonly string[]): string[] =>
  keys.length > MAX_ACKNOWLEDGED_ALERTS ? keys.slice(keys.length - MAX_ACKNOWLEDGED_ALERTS) : [...keys];

/**
 * The stored section, read tolerantly: a hand-edited or damaged field falls back to its
 * default (reported in `notes`) instead of failing the whole state file.
 */
export function loadConsoleSettings(raw: unknown): { settings: ConsoleSettings; notes: string[] } {
  const out = defaultConsoleSettings();
  const notes: string[] = [];
  if (raw === undefined) return { settings: out, notes };
  if (!isRecord(raw)) return { settings: out, notes: ['console: not an object; defaults used'] };
  const field = <T>(name: keyof ConsoleSettings, schema: z.ZodType<T>, apply: (v: T) => void): void => {
    if (raw[name] === undefined) return;
    const r = schema.safeParse(raw[name]);
    if (r.success) apply(r.data);
    else notes.push(`console.${name}: invalid (${r.error.issues[0]?.message ?? '?'}); default used`);
  };
  field('race_mode', z.boolean(), (v) => (out.race_mode = v));
  field('pinned_scenes', z.array(keyString('a scene key')), (v) => {
    out.pinned_scenes = uniqueKeys(v).slice(0, MAX_PINNED_SCENES);
  });
  field('battery', z.object({ warnPerCell }), (v) => (out.battery = { warnPerCell: v.warnPerCell }));
  field('acknowledged_alerts', z.array(keyString('an alert key')), (v) => {
    out.acknowledged_alerts = newestAcks(uniqueKeys(v));
  });
  return { settings: out, notes };
}
