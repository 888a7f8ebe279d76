/**
 * Reading each RaceLink file into its records, version by version (networks.md §4,
 * host-behaviour.md §12–§14): the combined state (schemas 1–3, stored as a JSON string or as
 * a nested object, or the pre-combined legacy keys), the native presets (schema 1 without
 * ids, schema 2), the scenes (the code's `schema_version` spelling and the docs' `version`
 * spelling) and the state backups. A file from a newer RaceLink or of an unknown shape is
 * refused with the file and the problem named: guessing would import the wrong thing.
 */
import { isRecord, type Json } from '../input.ts';
import { readJson, type LocatedFile } from './folder.ts';
import { RaceLinkImportError } from './types.ts';

export const KNOWN_STATE_SCHEMAS = [1, 2, 3];

export interface RaceLinkState {
  schema: number;
  encoding: 'string' | 'object' | 'legacy-keys' | 'backup';
  devices: Json[];
  groups: Json[];
  networks: Json[];
}

export interface RaceLinkConfig {
  file: string;
  state: RaceLinkState | null;
  /** The selected LED preset file (`rl_wled_presets_file`), or null. */
  ledFile: string | null;
  /** Option keys and top-level keys that are not imported, with their values (for the report). */
  other: { key: string; value: unknown }[];
}

const records = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isRecord) : []);

function schemaOf(v: unknown, file: string, field: string, known: readonly number[]): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1)
    throw new RaceLinkImportError(
      file,
      `unknown ${field} ${JSON.stringify(v)} (this importer reads ${known.join(', ')})`,
    );
  const newest = Math.max(...known);
  if (v > newest)
    throw new RaceLinkImportError(
      file,
      `${field} ${v} was written by a newer RaceLink than this importer knows (up to ${newest}); ` +
        'update Lightnet, or export from that RaceLink with an older version',
    );
  return v;
}

/** A combined state object of any known schema; `where` names it in messages. */
export function readStateObject(
  raw: unknown,
  file: string,
  where: string,
  encoding: RaceLinkState['encoding'],
): RaceLinkState {
  if (!isRecord(raw)) throw new RaceLinkImportError(file, `${where} is not a JSON object`);
  if (!Array.isArray(raw.devices) && !Array.isArray(raw.groups))
    throw new RaceLinkImportError(file, `${where} has neither devices nor groups`);
  const schema = schemaOf(raw.schema_version ?? 1, file, `${where}.schema_version`, KNOWN_STATE_SCHEMAS);
  return {
    schema,
    encoding,
    devices: records(raw.devices),
    groups: records(raw.groups),
    networks: schema >= 2 ? records(raw.networks) : [],
  };
}

/** An option value that may be stored double-encoded (v0.1.5) or nested (later). */
function unwrap(v: unknown, file: string, label: string): { value: unknown; encoding: 'string' | 'object' } {
  if (typeof v !== 'string') return { value: v, encoding: 'object' };
  try {
    return { value: JSON.parse(v) as unknown, encoding: 'string' };
  } catch (err) {
    throw new RaceLinkImportError(
      file,
      `${label} is a string but not valid JSON (${(err as Error).message})`,
    );
  }
}

export function readConfig(f: LocatedFile): RaceLinkConfig {
  const root = readJson(f);
  if (!isRecord(root)) throw new RaceLinkImportError(f.name, 'is not a JSON object');
  const options = root.options ?? {};
  if (!isRecord(options)) throw new RaceLinkImportError(f.name, 'options is not a JSON object');
  const other: RaceLinkConfig['other'] = [];
  for (const [key, value] of Object.entries(root)) if (key !== 'options') other.push({ key, value });
  let state: RaceLinkState | null = null;
  if (options.rl_state_v1 !== undefined && options.rl_state_v1 !== null && options.rl_state_v1 !== '') {
    const u = unwrap(options.rl_state_v1, f.name, 'options.rl_state_v1');
    state = readStateObject(u.value, f.name, 'options.rl_state_v1', u.encoding);
  } else if (options.rl_device_config !== undefined || options.rl_groups_config !== undefined) {
    // Schema 0: the pre-combined lists, each a JSON list or a string holding one.
    const list = (key: string): Json[] => {
      const v = options[key];
      if (v === undefined || v === null) return [];
      const u = unwrap(v, f.name, `options.${key}`);
      if (!Array.isArray(u.value)) throw new RaceLinkImportError(f.name, `options.${key} is not a list`);
      return records(u.value);
    };
    state = {
      schema: 0,
      encoding: 'legacy-keys',
      devices: list('rl_device_config'),
      groups: list('rl_groups_config'),
      networks: [],
    };
  }
  const ledFile =
    typeof options.rl_wled_presets_file === 'string' ? options.rl_wled_presets_file.trim() || null : null;
  for (const [key, value] of Object.entries(options)) {
    if (key === 'rl_state_v1' || key === 'rl_wled_presets_file') continue;
    // The legacy lists: read above when they are the only state, else stale leftovers.
    if (key === 'rl_device_config' || key === 'rl_groups_config') continue;
    other.push({ key: `options.${key}`, value });
  }
  return { file: f.name, state, ledFile, other };
}

export interface RaceLinkPresetsFile {
  schema: number;
  /** Records with the id they have in RaceLink (schema 1: their position). */
  presets: { id: number; raw: Json; index: number }[];
}

export function readPresets(f: LocatedFile): RaceLinkPresetsFile {
  const root = readJson(f);
  if (!isRecord(root)) throw new RaceLinkImportError(f.name, 'is not a JSON object');
  const schema = schemaOf(root.schema_version ?? 1, f.name, 'schema_version', [1, 2]);
  if (!Array.isArray(root.presets)) throw new RaceLinkImportError(f.name, 'presets is missing or not a list');
  const presets: RaceLinkPresetsFile['presets'] = [];
  root.presets.forEach((raw, index) => {
    if (!isRecord(raw)) return;
    const id =
      schema >= 2 && typeof raw.id === 'number' && Number.isInteger(raw.id) && raw.id >= 0 ? raw.id : index;
    presets.push({ id, raw, index });
  });
  return { schema, presets };
}

export interface RaceLinkScenesFile {
  spelling: 'schema_version' | 'version';
  scenes: { raw: Json; index: number }[];
}

export function readScenes(f: LocatedFile): RaceLinkScenesFile {
  const root = readJson(f);
  if (!isRecord(root)) throw new RaceLinkImportError(f.name, 'is not a JSON object');
  const spelling =
    root.schema_version === undefined && root.version !== undefined ? 'version' : 'schema_version';
  schemaOf(root[spelling] ?? 1, f.name, spelling, [1]);
  if (!Array.isArray(root.scenes)) throw new RaceLinkImportError(f.name, 'scenes is missing or not a list');
  const scenes: RaceLinkScenesFile['scenes'] = [];
  root.scenes.forEach((raw, index) => {
    if (isRecord(raw)) scenes.push({ raw, index });
  });
  return { spelling, scenes };
}

export interface RaceLinkBackup {
  file: string;
  id: string;
  label: string;
  created: string;
  reason: string;
  counts: string;
}

/** A backup envelope's description (its state is read only when it is chosen). */
export function describeBackup(f: LocatedFile): RaceLinkBackup {
  const root = readJson(f);
  if (!isRecord(root) || root.state === undefined)
    throw new RaceLinkImportError(f.name, 'is not a RaceLink state backup');
  schemaOf(root.backup_format ?? 1, f.name, 'backup_format', [1]);
  const id =
    typeof root.id === 'string' && root.id ? root.id : f.name.replace(/^.*\//, '').replace(/\.json$/, '');
  const ts = typeof root.created_ts === 'number' ? new Date(root.created_ts * 1000).toISOString() : '?';
  const c = isRecord(root.counts) ? root.counts : {};
  return {
    file: f.name,
    id,
    label: typeof root.label === 'string' ? root.label : '',
    created: ts,
    reason: typeof root.reason === 'string' ? root.reason : '',
    counts: `${String(c.devices ?? '?')} devices, ${String(c.groups ?? '?')} groups, ${String(c.networks ?? '?')} networks`,
  };
}

/** The state inside a backup envelope (a JSON string or an object). */
export function readBackupState(f: LocatedFile): RaceLinkState {
  const root = readJson(f);
  if (!isRecord(root)) throw new RaceLinkImportError(f.name, 'is not a RaceLink state backup');
  schemaOf(root.backup_format ?? 1, f.name, 'backup_format', [1]);
  const u = unwrap(root.state, f.name, 'state');
  return readStateObject(u.value, f.name, 'state', 'backup');
}
