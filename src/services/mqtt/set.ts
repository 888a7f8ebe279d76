/**
 * `…/set` payloads (Home Assistant's JSON light schema) into one light command. Pure and
 * strict: a payload that is not understood is refused with the field named, never half done.
 */
import * as z from 'zod';
import type { Rgb } from './state.ts';

const byte = (what: string) =>
  z
    .number({ error: `${what} must be a number 0..255` })
    .int({ error: `${what} must be an integer 0..255` })
    .min(0, { error: `${what} must be 0..255` })
    .max(255, { error: `${what} must be 0..255` });

export const setSchema = z.strictObject(
  {
    state: z.enum(['ON', 'OFF'], { error: 'state must be "ON" or "OFF"' }).optional(),
    brightness: byte('brightness').optional(),
    color: z
      .strictObject(
        { r: byte('color.r'), g: byte('color.g'), b: byte('color.b') },
        { error: 'color must be {"r","g","b"} (0..255 each)' },
      )
      .optional(),
    effect: z.string({ error: 'effect must be a string' }).min(1).max(64).optional(),
    // Home Assistant sends one when asked for a fade; the nodes switch at once (said in the docs).
    transition: z.number({ error: 'transition must be a number' }).min(0).max(3600).optional(),
  },
  { error: 'payload must be a JSON object' },
);
export type SetPayload = z.infer<typeof setSchema>;

/** What a light (a group, a device) shows now, as far as the bridge knows. */
export interface Current {
  brightness: number;
  presetId: number;
  effectId: number;
  /** The last colour set through MQTT (the nodes do not report theirs). */
  color: Rgb | undefined;
}

/** Effect names the payload may use: LED presets of the active file first, then WLED effects. */
export interface EffectLookup {
  preset(name: string): number | null;
  effect(name: string): number | null;
}

export type LightCommand =
  | { kind: 'off' }
  | { kind: 'preset'; presetId: number; brightness: number }
  | { kind: 'effect'; mode: number; color: Rgb; brightness: number };

export type ParseResult = { ok: true; payload: SetPayload } | { ok: false; error: string };

const WHITE: Rgb = { r: 255, g: 255, b: 255 };

/** JSON (or the bare `ON` / `OFF` Zigbee2MQTT accepts) → a validated payload. */
export function parseSet(raw: string): ParseResult {
  const text = raw.trim();
  if (text === 'ON' || text === 'OFF') return { ok: true, payload: { state: text } };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, error: 'payload is not JSON (expected e.g. {"state":"ON","brightness":128})' };
  }
  const r = setSchema.safeParse(json);
  if (!r.success) {
    const i = r.error.issues[0];
    const unknown = i?.code === 'unrecognized_keys' ? `unknown field ${i.keys.join(', ')}` : null;
    return { ok: false, error: unknown ?? i?.message ?? 'invalid payload' };
  }
  const p = r.data;
  if (p.state === undefined && p.brightness === undefined && p.color === undefined && p.effect === undefined)
    return { ok: false, error: 'nothing to set: give state, brightness, color or effect' };
  return { ok: true, payload: p };
}

/**
 * The command a payload means for a light in `cur`. OFF (or brightness 0) switches off;
 * an effect name picks an LED preset or a WLED effect; a colour alone keeps the effect;
 * ON or a brightness alone keeps the look and changes its brightness.
 */
export function toCommand(
  p: SetPayload,
  cur: Current,
  names: EffectLookup,
): { ok: true; command: LightCommand } | { ok: false; error: string } {
  if (p.state === 'OFF') return { ok: true, command: { kind: 'off' } };
  const brightness = p.brightness ?? (cur.brightness > 0 ? cur.brightness : 255);
  if (brightness === 0) return { ok: true, command: { kind: 'off' } };
  if (p.effect !== undefined) {
    const preset = names.preset(p.effect);
    if (preset !== null && p.color === undefined)
      return { ok: true, command: { kind: 'preset', presetId: preset, brightness } };
    const mode = names.effect(p.effect);
    if (mode === null)
      return { ok: false, error: `effect: no LED preset or WLED effect is called '${p.effect}'` };
    return { ok: true, command: { kind: 'effect', mode, color: p.color ?? cur.color ?? WHITE, brightness } };
  }
  if (p.color !== undefined) {
    // A colour on a node running an LED preset: the preset's effect cannot be known, so solid.
    const mode = cur.presetId > 0 ? 0 : cur.effectId;
    return { ok: true, command: { kind: 'effect', mode, color: p.color, brightness } };
  }
  if (cur.color !== undefined && cur.presetId === 0)
    return { ok: true, command: { kind: 'effect', mode: cur.effectId, color: cur.color, brightness } };
  if (cur.presetId > 0) return { ok: true, command: { kind: 'preset', presetId: cur.presetId, brightness } };
  return { ok: true, command: { kind: 'effect', mode: cur.effectId, color: cur.color ?? WHITE, brightness } };
}
