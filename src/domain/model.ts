/**
 * The host's state model: devices and groups (plus room for the native presets,
 * scenes and settings that later features add). Everything here is persisted in
 * `state.json`; runtime-only fields (online, last_seen_ts, …) are reset on load.
 */
import type { Addr, RfConfig } from '../protocol/types.ts';
import { defaultConsoleSettings, type ConsoleSettings } from './console-settings.ts';
import { DEFAULT_NETWORK_ID, newNetwork, type Network } from './networks.ts';
import type { NativePreset } from './scenes/native-preset.ts';
import type { Scene } from './scenes/types.ts';

export interface LastAck {
  ok: boolean;
  opcode: number;
  status: number;
  seq: number;
  /** Unix seconds. */
  ts: number;
}

export interface Device {
  addr: Addr;
  /** Full 12-hex hardware MAC from the identify reply, or null when never heard. */
  full_mac: string | null;
  name: string;
  dev_type: number;
  groupId: number;
  /** The stored group was not yet confirmed by the node (push pending, e.g. it was offline). */
  group_pending: boolean;
  flags: number;
  configByte: number;
  presetId: number;
  effectId: number;
  brightness: number;
  specials: Record<string, number>;
  voltage_mV: number;
  node_rssi: number;
  node_snr: number;
  host_rssi: number;
  host_snr: number;
  version: number;
  /** Unix seconds; 0 until heard from in this process. */
  last_seen_ts: number;
  last_ack: LastAck | null;
  online: boolean;
  /** The network (and so the gateway) the node lives on; 1 in a single-gateway install. */
  network_id: number;
  /**
   * The radio settings the node was last *confirmed* on (a channel scan heard it, a rescue
   * or a migration moved it), or null/absent when never confirmed. A channel scan looks
   * there first.
   */
  rf_seen?: RfSeen | null;
}

export interface RfSeen {
  rf: RfConfig;
  /** Unix seconds. */
  ts: number;
  how: 'scan' | 'rescue' | 'migration' | 'readback' | 'import';
}

export interface Group {
  /** 1..254; a group's id is its position, so deleting one renumbers the higher ones. */
  id: number;
  name: string;
  dev_type: number;
}

export interface Settings {
  /** Name of the active LED preset file, or null. */
  led_presets_file: string | null;
}

export interface StateModel {
  devices: Device[];
  /** User groups in id order (ids 1..n); group 0 "Unconfigured" is implicit. */
  groups: Group[];
  /** In creation order. */
  native_presets: NativePreset[];
  /** In creation order. */
  scenes: Scene[];
  /** Next record ids (absent = above every id in use); ids are never reused after a delete. */
  next_ids?: { native_presets: number; scenes: number; networks?: number };
  settings: Settings;
  /** Race-day console settings shared by every browser (race mode, pins, battery, acks). */
  console: ConsoleSettings;
  /** One per gateway identity, in id order; never empty (network 1 always exists at first). */
  networks: Network[];
}

export const MAX_GROUP_ID = 254;
export const UNCONFIGURED_GROUP_NAME = 'Unconfigured';
/** Names that would collide with the system group or the original's legacy entries. */
export const RESERVED_GROUP_NAMES = [
  'unconfigured',
  'all led nodes',
  'all led devices',
  'all wled nodes',
  'all wled devices',
];

export const emptyState = (): StateModel => ({
  devices: [],
  groups: [],
  native_presets: [],
  scenes: [],
  next_ids: { native_presets: 0, scenes: 0, networks: DEFAULT_NETWORK_ID + 1 },
  settings: { led_presets_file: null },
  console: defaultConsoleSettings(),
  networks: [newNetwork(DEFAULT_NETWORK_ID)],
});

export function newDevice(addr: Addr, fullMac: string | null, devType: number): Device {
  return {
    addr,
    full_mac: fullMac,
    name: `LED ${fullMac ?? addr}`,
    dev_type: devType,
    groupId: 0,
    group_pending: false,
    flags: 1,
    configByte: 0,
    presetId: 1,
    effectId: 0,
    brightness: 70,
    specials: {},
    voltage_mV: 0,
    node_rssi: 0,
    node_snr: 0,
    host_rssi: 0,
    host_snr: 0,
    version: 0,
    last_seen_ts: 0,
    last_ack: null,
    online: false,
    network_id: DEFAULT_NETWORK_ID,
  };
}

/**
 * The id for a new native preset or scene: never reused, even after deletes (scene actions
 * and nodes refer to ids), so it is the larger of the persisted counter and max id + 1.
 */
export function allocateId(s: StateModel, kind: 'native_presets' | 'scenes'): number {
  const ids = s.next_ids ?? { native_presets: 0, scenes: 0 };
  const id = Math.max(ids[kind], ...s[kind].map((x) => x.id + 1));
  s.next_ids = { ...ids, [kind]: id + 1 };
  return id;
}
