/**
 * Per-capability device options ("specials"): which keys a device carries, their
 * option bytes, ranges and defaults. A device's specials map always holds every key
 * of every capability of its type (flat keys; pairs as `<key>_start`/`<key>_stop`).
 */
export type Capability = 'LED' | 'STARTBLOCK';

export interface ScalarOption {
  key: string;
  label: string;
  option: number;
  bytes: 1 | 2;
  min: number;
  max: number;
  default: number;
}

export interface PairOption {
  key: string;
  label: string;
  option: number;
  bytes: 4;
  shape: 'uint16-pair';
  fields: [{ name: 'start'; min: 0; max: 65535 }, { name: 'stop'; min: 0; max: 65535 }];
}

export type SpecialOption = ScalarOption | PairOption;

const pair = (key: string, label: string, option: number): PairOption => ({
  key,
  label,
  option,
  bytes: 4,
  shape: 'uint16-pair',
  fields: [
    { name: 'start', min: 0, max: 65535 },
    { name: 'stop', min: 0, max: 65535 },
  ],
});

export const SPECIAL_OPTIONS: Record<Capability, SpecialOption[]> = {
  STARTBLOCK: [
    { key: 'startblock_slots', label: 'Number Of Slots', option: 0x8c, bytes: 1, min: 1, max: 8, default: 1 },
    { key: 'startblock_first_slot', label: 'First Slot', option: 0x8d, bytes: 1, min: 1, max: 8, default: 1 },
  ],
  LED: [
    {
      key: 'led_fps',
      label: 'Target Refresh Rate (fps)',
      option: 0x05,
      bytes: 1,
      min: 0,
      max: 250,
      default: 75,
    },
    {
      key: 'led_abl_max_ma',
      label: 'ABL Max Current (mA, 0=off)',
      option: 0x08,
      bytes: 2,
      min: 0,
      max: 65535,
      default: 0,
    },
    {
      key: 'led_briS',
      label: 'Default Brightness (briS)',
      option: 0x09,
      bytes: 1,
      min: 0,
      max: 255,
      default: 128,
    },
    {
      key: 'led_transition_ms',
      label: 'Transition Duration (ms)',
      option: 0x0a,
      bytes: 2,
      min: 0,
      max: 65535,
      default: 700,
    },
    pair('led_seg0', 'Segment 0 Geometry (start/stop)', 0x06),
    pair('led_seg1', 'Segment 1 Geometry (start/stop)', 0x07),
  ],
};

export const isPair = (o: SpecialOption): o is PairOption => 'shape' in o;

/** The flat specials map of a device with the given capabilities: defaults overlaid by stored values. */
export function materializeSpecials(
  caps: readonly Capability[],
  stored: Record<string, unknown> = {},
): Record<string, number> {
  const out: Record<string, number> = {};
  const take = (k: string, dflt: number, min: number, max: number): void => {
    const v = stored[k];
    out[k] = typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : dflt;
  };
  for (const cap of [...caps].sort()) {
    for (const o of SPECIAL_OPTIONS[cap]) {
      if (isPair(o)) {
        take(`${o.key}_start`, 0, 0, 65535);
        take(`${o.key}_stop`, 0, 0, 65535);
      } else {
        take(o.key, o.default, o.min, o.max);
      }
    }
  }
  return out;
}
