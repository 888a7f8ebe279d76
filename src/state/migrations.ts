/**
 * Forward migrations of `state.json`. Version 1 is the original host's combined
 * devices+groups state (12-hex addresses, groups as a position-indexed list whose
 * position 0 is a hidden all-nodes entry); version 2 is ours; version 3 adds the
 * `console` section (race mode, pinned scenes, battery level, acknowledged alerts — the
 * settings every browser shares), which a version 2 file gets with its defaults; version 4
 * adds `networks` (one per gateway identity) and each device's `network_id`: an older file
 * gets network 1, unbound (it binds itself to the gateway that connects first, the one the
 * install already uses), and every device is put on it. Each step is a pure function from
 * the previous shape to the next, and loading a current file is a fixed point.
 */
import * as z from 'zod';
import { normalizeAddr } from '../protocol/addr.ts';
import { validateRfConfig } from '../protocol/rf.ts';
import {
  emptyState,
  MAX_GROUP_ID,
  RESERVED_GROUP_NAMES,
  newDevice,
  type Device,
  type StateModel,
} from '../domain/model.ts';
import { loadConsoleSettings } from '../domain/console-settings.ts';
import { loadNativePresets, loadScenes } from '../domain/scenes/library-load.ts';
import { DEFAULT_NETWORK_ID, loadNetworks } from '../domain/networks.ts';

export const CURRENT_SCHEMA_VERSION = 4;

const int = (v: unknown, dflt: number, min = 0, max = 255): number =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : dflt;
const intRange = (min: number, max: number) => z.number().int().min(min).max(max);

const lastAckSchema = z
  .object({
    ok: z.boolean(),
    opcode: z.number().int(),
    status: z.number().int(),
    seq: z.number().int(),
    ts: z.number(),
  })
  .nullable();

const rfSchema = z.object({
  freqHz: z.number().int(),
  bwKhzX10: z.number().int(),
  sf: z.number().int(),
  crDen: z.number().int(),
  syncWord: z.number().int(),
  txPowerDbm: z.number().int(),
  preamble: z.number().int(),
});

/** Schema 4, optional: a broken value is dropped (null), never fails the file. */
const rfSeenSchema = z
  .object({
    rf: rfSchema.refine((rf) => validateRfConfig(rf) === null),
    ts: z.number(),
    how: z.enum(['scan', 'rescue', 'migration', 'readback', 'import']),
  })
  .nullish()
  .catch(null);

const deviceSchema = z.object({
  addr: z.string().regex(/^[0-9A-F]{6}$/),
  full_mac: z
    .string()
    .regex(/^[0-9A-F]{12}$/)
    .nullable(),
  name: z.string().max(200),
  dev_type: intRange(0, 255),
  groupId: intRange(0, MAX_GROUP_ID),
  group_pending: z.boolean().default(false),
  flags: intRange(0, 255),
  configByte: intRange(0, 255),
  presetId: intRange(0, 255),
  effectId: intRange(0, 255),
  brightness: intRange(0, 255),
  specials: z.record(z.string(), z.number().int()),
  voltage_mV: z.number().int(),
  node_rssi: z.number().int(),
  node_snr: z.number().int(),
  host_rssi: z.number().int(),
  host_snr: z.number().int(),
  version: z.number().int(),
  last_seen_ts: z.number(),
  last_ack: lastAckSchema,
  online: z.boolean(),
  // Version 4; absent before (and in a journal record an older build wrote): network 1.
  network_id: z.number().int().min(1).optional(),
  rf_seen: rfSeenSchema,
});

/** The sections versions 2 to 4 share. */
const sharedSections = {
  devices: z.array(deviceSchema),
  groups: z.array(
    z.object({ id: intRange(1, MAX_GROUP_ID), name: z.string().min(1), dev_type: intRange(0, 255) }),
  ),
  // Checked record by record (library-load.ts): one bad preset or scene must not fail the file.
  native_presets: z.array(z.unknown()),
  scenes: z.array(z.unknown()),
  next_ids: z
    .object({
      native_presets: z.number().int().min(0),
      scenes: z.number().int().min(0),
      networks: z.number().int().min(0),
    })
    .partial()
    .optional(),
  settings: z.object({ led_presets_file: z.string().nullable() }),
};

const stateFileV2Schema = z.object({ schema_version: z.literal(2), ...sharedSections });

const stateFileV3Schema = z.object({
  schema_version: z.literal(3),
  ...sharedSections,
  // Checked field by field (console-settings.ts): a bad value falls back to its default.
  console: z.unknown(),
});

export const stateFileSchema = z.object({
  schema_version: z.literal(CURRENT_SCHEMA_VERSION),
  ...sharedSections,
  console: z.unknown(),
  // Checked record by record (domain/networks.ts): one bad record must not fail the file.
  networks: z.unknown(),
});

export type StateFile = Omit<z.infer<typeof stateFileSchema>, 'console' | 'networks' | 'devices'> &
  Pick<StateModel, 'console' | 'networks' | 'devices'>;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** v1 (original combined state) → v2. */
function migrateV1(raw: Record<string, unknown>): StateModel {
  const out = emptyState();
  const rawGroups = Array.isArray(raw.groups) ? raw.groups : [];
  // Old ids are list positions (0 = hidden all-nodes entry); ours are contiguous 1..n.
  const idMap = new Map<number, number>();
  rawGroups.forEach((g, pos) => {
    if (pos === 0 || !isRecord(g)) return;
    const name = typeof g.name === 'string' ? g.name.trim() : '';
    if (!name || RESERVED_GROUP_NAMES.includes(name.toLowerCase())) return;
    if (out.groups.length >= MAX_GROUP_ID) return;
    const id = out.groups.length + 1;
    idMap.set(pos, id);
    out.groups.push({ id, name, dev_type: int(g.dev_type, 0) });
  });
  const seen = new Set<string>();
  for (const d of Array.isArray(raw.devices) ? raw.devices : []) {
    if (!isRecord(d) || typeof d.addr !== 'string') continue;
    const addr = normalizeAddr(d.addr);
    if (!addr || seen.has(addr)) continue;
    seen.add(addr);
    const hex = d.addr.replace(/[^0-9a-fA-F]/g, '').toUpperCase();
    const devType = int(d.dev_type ?? d.device_type ?? d.caps ?? d.type, 0);
    const dev: Device = newDevice(addr, hex.length === 12 ? hex : null, devType);
    if (typeof d.name === 'string' && d.name.trim()) dev.name = d.name.trim().slice(0, 200);
    dev.groupId = idMap.get(int(d.groupId, 0)) ?? 0;
    dev.version = int(d.version, 0, 0, 0xffff);
    dev.flags = int(d.flags, 1);
    dev.presetId = int(d.presetId, 1);
    dev.brightness = int(d.brightness, 70);
    // The original sometimes kept specials at the top level of the record.
    const specials = isRecord(d.specials) ? d.specials : d;
    for (const [k, v] of Object.entries(specials)) {
      if (/^(led|startblock)_/.test(k) && typeof v === 'number' && Number.isInteger(v))
        dev.specials[k] = v & 0xffff;
    }
    out.devices.push(dev);
  }
  return out;
}

/**
 * Parses any known version into the current model. Throws an Error describing the
 * problem when the content is not a state file of a known version.
 */
export function migrateToCurrent(raw: unknown): {
  state: StateModel;
  fromVersion: number;
  /** Repairs made to stored records (for the log). */
  notes: string[];
} {
  if (!isRecord(raw)) throw new Error('state file is not a JSON object');
  const version = raw.schema_version ?? 1;
  if (version === 1) {
    // Anything else without a version (e.g. another program's config file) is not ours:
    // treating it as an empty v1 state would overwrite it.
    if (!Array.isArray(raw.devices) && !Array.isArray(raw.groups)) {
      throw new Error('not a Lightnet state file (no devices or groups)');
    }
    return { state: migrateV1(raw), fromVersion: 1, notes: [] };
  }
  if (version === 2 || version === 3 || version === CURRENT_SCHEMA_VERSION) {
    const schema = version === 2 ? stateFileV2Schema : version === 3 ? stateFileV3Schema : stateFileSchema;
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(
        `state file invalid at ${issue?.path.join('.') ?? '?'}: ${issue?.message ?? 'unknown'}`,
      );
    }
    const { schema_version: _v, ...state } = parsed.data;
    // Group ids are positions: a hand-edited file must keep them 1..n in order.
    const badGroup = state.groups.findIndex((g, i) => g.id !== i + 1);
    if (badGroup >= 0)
      throw new Error(`state file invalid at groups.${badGroup}.id: ids must be 1..n in order`);
    const badDevice = state.devices.findIndex((d) => d.groupId > state.groups.length);
    if (badDevice >= 0) throw new Error(`state file invalid at devices.${badDevice}.groupId: no such group`);
    const presets = loadNativePresets(state.native_presets, state.next_ids?.native_presets);
    const scenes = loadScenes(state.scenes, state.next_ids?.scenes);
    // v2 → v3: the console settings start at their defaults (v2 kept them in each browser).
    const consoleSection = loadConsoleSettings('console' in state ? state.console : undefined);
    const nets = assignNetworks(state.devices, 'networks' in state ? state.networks : undefined);
    const { groups, settings } = state as Pick<StateModel, 'groups' | 'settings'>;
    return {
      state: {
        devices: nets.devices,
        groups,
        native_presets: presets.items,
        scenes: scenes.items,
        next_ids: {
          native_presets: presets.next,
          scenes: scenes.next,
          networks: Math.max(state.next_ids?.networks ?? 0, ...nets.networks.map((n) => n.id + 1)),
        },
        settings,
        console: consoleSection.settings,
        networks: nets.networks,
      },
      fromVersion: version,
      notes: [...presets.notes, ...scenes.notes, ...consoleSection.notes, ...nets.notes],
    };
  }
  throw new Error(`unsupported state schema_version ${JSON.stringify(version)}`);
}

type StoredDevice = z.infer<typeof deviceSchema>;

/**
 * v3 → v4 (and the check of a v4 file): the network records (network 1 when there are none)
 * and every device on a network that exists; a device naming an unknown one goes to the
 * lowest network, with a note. Pure and idempotent.
 */
export function assignNetworks(
  devices: readonly StoredDevice[],
  rawNetworks: unknown,
): { devices: Device[]; networks: StateModel['networks']; notes: string[] } {
  const { networks, notes } = loadNetworks(rawNetworks);
  const known = new Set(networks.map((n) => n.id));
  const fallback = known.has(DEFAULT_NETWORK_ID) ? DEFAULT_NETWORK_ID : networks[0]!.id;
  const out = devices.map((d, i): Device => {
    const id = d.network_id;
    if (id !== undefined && !known.has(id))
      notes.push(`devices.${i}.network_id: no network ${id}, moved to ${fallback}`);
    return { ...d, network_id: id !== undefined && known.has(id) ? id : fallback };
  });
  return { devices: out, networks, notes };
}

export function serializeState(state: StateModel): string {
  const file: StateFile = { schema_version: CURRENT_SCHEMA_VERSION, ...state } as StateFile;
  return JSON.stringify(file, null, 2) + '\n';
}
