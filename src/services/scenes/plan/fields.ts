/**
 * What goes into one CONTROL / PRESET / STREAM body of a scene action: effective flags
 * (override → preset → false, offset_mode forced inside a container), the CONTROL fields
 * with the slots the chosen effect ignores left out (decisions §11), and the start-block
 * slot records. Pure.
 */
import { ledEffect, paletteForcesColor } from '../../../domain/led-effects.ts';
import { FLAG_BITS, FLAG_KEYS, type NativeEffectParams } from '../../../domain/scenes/native-preset.ts';
import type { FlagsOverride, StartblockSlot } from '../../../domain/scenes/types.ts';
import type { ControlFields } from '../../../protocol/types.ts';

/**
 * User flag bits for one action: an override key wins, else the preset's bit, else off.
 * `forceOffset` (inside an offset_group) sets offset_mode regardless of both.
 */
export function effectiveUserFlags(
  override: FlagsOverride,
  presetFlags: number,
  forceOffset: boolean | undefined,
): number {
  let out = 0;
  for (const k of FLAG_KEYS) {
    const bit = FLAG_BITS[k];
    const on = override[k] ?? (presetFlags & bit) !== 0;
    if (on) out |= bit;
  }
  if (forceOffset !== undefined)
    out = forceOffset ? out | FLAG_BITS.offset_mode : out & ~FLAG_BITS.offset_mode;
  return out;
}

const SLOT_OF = {
  speed: 'speed',
  intensity: 'intensity',
  custom1: 'custom1',
  custom2: 'custom2',
  custom3: 'custom3',
  check1: 'check1',
  check2: 'check2',
  check3: 'check3',
} as const;
const COLORS = ['color1', 'color2', 'color3'] as const;

/**
 * The CONTROL fields for these params. With `prune`, fields the chosen effect does not
 * use are left out: the node keeps its previous value there, which that effect never
 * shows. Mode and brightness always stay; the palette stays when the effect uses it; a
 * colour stays when the effect uses it or the palette is one of the colour-derived ones
 * (or unknown, because the node's palette may be one). Without a mode in the params the
 * node's effect is unknown, so nothing is pruned.
 */
export function controlFields(p: NativeEffectParams, prune: boolean): ControlFields {
  const out: ControlFields = {};
  const effect = prune && p.mode !== undefined ? ledEffect(p.mode) : undefined;
  const used = (slot: keyof typeof SLOT_OF | 'palette' | (typeof COLORS)[number]): boolean =>
    !effect || effect.slots[slot].used;
  if (p.brightness !== undefined) out.brightness = p.brightness;
  if (p.mode !== undefined) out.mode = p.mode;
  for (const k of Object.keys(SLOT_OF) as (keyof typeof SLOT_OF)[]) {
    const v = p[k];
    if (v !== undefined && used(k)) (out as Record<string, unknown>)[k] = v;
  }
  const paletteUsed = used('palette');
  if (p.palette !== undefined && paletteUsed) out.palette = p.palette;
  COLORS.forEach((k, i) => {
    const c = p[k];
    if (c === undefined) return;
    const forced = paletteUsed && (p.palette === undefined || paletteForcesColor(p.palette, i as 0 | 1 | 2));
    if (used(k) || forced) out[k] = c;
  });
  return out;
}

export const STARTBLOCK_SLOTS = 8;
const STARTBLOCK_RECORD_VERSION = 0x01;
const NAME_MAX = 32;

/** Upper-case ASCII (accents dropped, ß → SS); characters the display cannot show become spaces; at most 32. */
export function startblockName(callsign: string): string {
  return callsign
    .replace(/ß/g, 'ss')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .replace(/[^A-Z0-9 _\-.+]/g, ' ')
    .slice(0, NAME_MAX);
}

/** Start-block record v1 (§6.7): ver | slot | 2-char channel | nameLen | name. */
export function startblockPayload(slot: number, entry: StartblockSlot | undefined): Uint8Array {
  const channel = (entry?.racechannel ?? '')
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, '-')
    .slice(0, 2)
    .padEnd(2, '-');
  const name = startblockName(entry?.callsign ?? '');
  const bytes = [STARTBLOCK_RECORD_VERSION, slot, channel.charCodeAt(0), channel.charCodeAt(1), name.length];
  for (let i = 0; i < name.length; i++) bytes.push(name.charCodeAt(i));
  return Uint8Array.from(bytes);
}
