/**
 * The virtual fixture: how a patched group reads its channels. Mapping, not streaming — a
 * fixture's channels become one look per group (brightness, colour, effect, preset), and only
 * a changed look costs a radio frame. The 8-channel map (issue 38):
 *
 * | ch | name      | meaning                                                                  |
 * |----|-----------|--------------------------------------------------------------------------|
 * | 1  | dimmer    | brightness 0–255 (0: off)                                                |
 * | 2  | red       | colour 1, red                                                            |
 * | 3  | green     | colour 1, green                                                          |
 * | 4  | blue      | colour 1, blue                                                           |
 * | 5  | effect    | effect id = value (0: Solid); a value with no effect keeps the last one  |
 * | 6  | speed     | effect speed 0–255                                                       |
 * | 7  | intensity | effect intensity 0–255                                                   |
 * | 8  | preset    | 0: no preset (channels 2–7 set the look); 1–250: recall WLED preset N,   |
 * |    |           | the dimmer still sets brightness; 251–255: as 0                          |
 *
 * The 4-channel `rgb` profile is the first four channels (effect Solid, speed/intensity not sent).
 */
import type { ControlFields, Rgb } from '../../protocol/types.ts';

export const FIXTURES = {
  full: ['dimmer', 'red', 'green', 'blue', 'effect', 'speed', 'intensity', 'preset'],
  rgb: ['dimmer', 'red', 'green', 'blue'],
} as const;
export type FixtureKind = keyof typeof FIXTURES;
export const FIXTURE_KINDS = Object.keys(FIXTURES) as FixtureKind[];

export const footprint = (kind: FixtureKind): number => FIXTURES[kind].length;

/** The highest preset a console may recall (WLED's preset slots are 1–250). */
export const MAX_PRESET = 250;

/** What a patched group should show now. */
export interface DmxLook {
  brightness: number;
  color: Rgb;
  /** The effect (mode) id; the rgb profile is always 0 (Solid). */
  effect: number;
  speed: number | null;
  intensity: number | null;
  /** A WLED preset slot (1–250), or null: the channels set the look. */
  preset: number | null;
}

/**
 * The look of a fixture at `start` (1-based DMX address) in a universe's 512 values.
 * `validEffect` says whether an effect id exists; an invalid one keeps `prev`'s (else Solid),
 * so a console fading across the effect channel never sends a hole in the catalogue.
 */
export function lookOf(
  values: Uint8Array,
  start: number,
  kind: FixtureKind,
  validEffect: (id: number) => boolean,
  prev: DmxLook | null,
): DmxLook {
  const at = (i: number): number => values[start - 1 + i] ?? 0;
  const color: Rgb = [at(1), at(2), at(3)];
  if (kind === 'rgb')
    return { brightness: at(0), color, effect: 0, speed: null, intensity: null, preset: null };
  const raw = at(4);
  const effect = validEffect(raw) ? raw : (prev?.effect ?? 0);
  const p = at(7);
  return {
    brightness: at(0),
    color,
    effect,
    speed: at(5),
    intensity: at(6),
    preset: p >= 1 && p <= MAX_PRESET ? p : null,
  };
}

/** One radio command for a group: a WLED preset recall, or an effect CONTROL of some fields. */
export type GroupCommand =
  { kind: 'preset'; presetId: number; brightness: number } | { kind: 'control'; fields: ControlFields };

const sameRgb = (a: Rgb, b: Rgb): boolean => a[0] === b[0] && a[1] === b[1] && a[2] === b[2];

export function sameLook(a: DmxLook, b: DmxLook): boolean {
  return (
    a.brightness === b.brightness &&
    sameRgb(a.color, b.color) &&
    a.effect === b.effect &&
    a.speed === b.speed &&
    a.intensity === b.intensity &&
    a.preset === b.preset
  );
}

/**
 * The one command that takes a group from `shown` (null: unknown — after a start, a refusal
 * or a higher source's look) to `next`, carrying only what changed; null when nothing did.
 * Leaving a preset sends the whole channel look: the preset replaced all of it on the node.
 */
export function commandFor(shown: DmxLook | null, next: DmxLook): GroupCommand | null {
  if (shown && sameLook(shown, next)) return null;
  if (next.preset !== null) {
    if (shown && shown.preset === next.preset && shown.brightness !== next.brightness)
      return { kind: 'control', fields: { brightness: next.brightness } };
    if (shown && shown.preset === next.preset) return null; // only the hidden channels moved
    return { kind: 'preset', presetId: next.preset, brightness: next.brightness };
  }
  const whole = !shown || shown.preset !== null;
  const f: ControlFields = {};
  if (whole || shown.brightness !== next.brightness) f.brightness = next.brightness;
  if (whole || !sameRgb(shown.color, next.color)) f.color1 = next.color;
  if (whole || shown.effect !== next.effect) f.mode = next.effect;
  if (next.speed !== null && (whole || shown.speed !== next.speed)) f.speed = next.speed;
  if (next.intensity !== null && (whole || shown.intensity !== next.intensity)) f.intensity = next.intensity;
  return Object.keys(f).length > 0 ? { kind: 'control', fields: f } : null;
}
