/** OPC_CONFIG / OPC_GET_CONFIG options (§6.5, §6.10) with neutral names and value packing. */
import { checkInt } from './bytes.ts';
import type { Capability } from './device-types.ts';

export type ConfigValueKind = 'bool' | 'u8' | 'u16' | 'pair' | 'method';
export type ConfigValue = number | { start: number; stop: number };

export interface ConfigOption {
  option: number;
  name: string;
  kind: ConfigValueKind;
  /** Answered by GET_CONFIG (live value). */
  readable: boolean;
  /** Capability a node needs for the option to mean anything; null = every node. */
  capability: Capability | null;
  /** Accepted value range (per component for 'pair'). */
  range: readonly [number, number];
  description: string;
}

export const CONFIG_OPTIONS: readonly ConfigOption[] = [
  {
    option: 0x01,
    name: 'mac_filter',
    kind: 'bool',
    readable: false,
    capability: null,
    range: [0, 1],
    description: 'Accept only the learned master (configByte bit 0)',
  },
  {
    option: 0x02,
    name: 'clear_master',
    kind: 'method',
    readable: false,
    capability: null,
    range: [0, 255],
    description: 'Forget the learned master (RAM only)',
  },
  {
    option: 0x03,
    name: 'master_persist',
    kind: 'bool',
    readable: false,
    capability: null,
    range: [0, 1],
    description: 'Keep the master across reboots (configByte bit 1)',
  },
  {
    option: 0x04,
    name: 'wifi_ap',
    kind: 'bool',
    readable: false,
    capability: null,
    range: [0, 1],
    description: 'Open/close the node WiFi access point (configByte bit 2)',
  },
  {
    option: 0x05,
    name: 'target_fps',
    kind: 'u8',
    readable: true,
    capability: 'LED',
    range: [0, 250],
    description: 'Target frames per second',
  },
  {
    option: 0x06,
    name: 'segment0',
    kind: 'pair',
    readable: true,
    capability: 'LED',
    range: [0, 65535],
    description: 'Segment 0 geometry start..stop',
  },
  {
    option: 0x07,
    name: 'segment1',
    kind: 'pair',
    readable: true,
    capability: 'LED',
    range: [0, 65535],
    description: 'Segment 1 geometry start..stop (0,0 = none)',
  },
  {
    option: 0x08,
    name: 'abl_max_ma',
    kind: 'u16',
    readable: true,
    capability: 'LED',
    range: [0, 65535],
    description: 'Automatic brightness limiter max current in mA (0 = off)',
  },
  {
    option: 0x09,
    name: 'default_brightness',
    kind: 'u8',
    readable: true,
    capability: 'LED',
    range: [0, 255],
    description: 'Default brightness; also sets live brightness',
  },
  {
    option: 0x0a,
    name: 'transition_ms',
    kind: 'u16',
    readable: true,
    capability: 'LED',
    range: [0, 65535],
    description: 'Transition duration in ms',
  },
  {
    option: 0x0f,
    name: 'reset_overrides',
    kind: 'method',
    readable: false,
    capability: 'LED',
    range: [0, 255],
    description: 'Reset FPS, ABL, segments, brightness, transition to defaults',
  },
  {
    option: 0x80,
    name: 'forget_master',
    kind: 'method',
    readable: false,
    capability: null,
    range: [0, 255],
    description: 'Documented "forget master MAC"; not implemented by node firmware (no effect)',
  },
  {
    option: 0x81,
    name: 'reboot',
    kind: 'method',
    readable: false,
    capability: null,
    range: [1, 255],
    description: 'Reboot the node (its ACK is usually never sent)',
  },
  {
    option: 0x8c,
    name: 'startblock_slots',
    kind: 'u8',
    readable: true,
    capability: 'STARTBLOCK',
    range: [1, 8],
    description: 'Startblock number of slots',
  },
  {
    option: 0x8d,
    name: 'startblock_first_slot',
    kind: 'u8',
    readable: true,
    capability: 'STARTBLOCK',
    range: [1, 8],
    description: 'Startblock first slot',
  },
];

/** Options exposed as raw writes (no typed route of their own). */
export const RAW_CONFIG_OPTIONS: readonly number[] = [0x01, 0x03, 0x04, 0x80, 0x81];

const BY_OPTION = new Map(CONFIG_OPTIONS.map((o) => [o.option, o]));

export function configOptionInfo(option: number): ConfigOption | undefined {
  return BY_OPTION.get(option);
}

export function configOptionByName(name: string): ConfigOption | undefined {
  return CONFIG_OPTIONS.find((o) => o.name === name);
}

type Data4 = [number, number, number, number];

/**
 * Packs a value like the node expects it (uint16 little-endian in data0..1 / data2..3).
 * Out-of-range values throw a RangeError naming the option; nothing is silently masked.
 * Unknown options are packed as a raw u8 in data0.
 */
export function packConfigValue(option: number, value: ConfigValue): Data4 {
  const info = BY_OPTION.get(option);
  const name = info?.name ?? `option 0x${option.toString(16)}`;
  if (typeof value === 'object') {
    if (info && info.kind !== 'pair') throw new RangeError(`${name} takes a single number`);
    const [lo, hi] = info?.range ?? [0, 65535];
    const s = checkInt(`${name}.start`, value.start, lo, hi);
    const e = checkInt(`${name}.stop`, value.stop, lo, hi);
    return [s & 0xff, s >>> 8, e & 0xff, e >>> 8];
  }
  if (!info) return [checkInt(name, value, 0, 255), 0, 0, 0];
  switch (info.kind) {
    case 'pair':
      throw new RangeError(`${name} takes {start, stop}`);
    case 'bool':
      return [checkInt(name, value, 0, 1), 0, 0, 0];
    case 'u16': {
      const v = checkInt(name, value, info.range[0], info.range[1]);
      return [v & 0xff, v >>> 8, 0, 0];
    }
    case 'u8':
    case 'method':
      return [checkInt(name, value, info.range[0], info.range[1]), 0, 0, 0];
  }
}

/** Inverse of packConfigValue for GET_CONFIG replies (unused bytes are ignored). */
export function unpackConfigValue(option: number, data: readonly number[]): ConfigValue {
  const d = (i: number): number => data[i] ?? 0;
  const kind = BY_OPTION.get(option)?.kind ?? 'u8';
  switch (kind) {
    case 'pair':
      return { start: d(0) | (d(1) << 8), stop: d(2) | (d(3) << 8) };
    case 'u16':
      return d(0) | (d(1) << 8);
    case 'bool':
      return d(0) !== 0 ? 1 : 0;
    default:
      return d(0);
  }
}
