/**
 * The import as one pure step: the RaceLink folder's files and the current Lightnet state
 * (plus the LED preset files already stored) in; the new state, the LED preset files to
 * write and the report out. The caller writes (or, for a dry run, only shows the report).
 * Running it on its own output changes nothing: every record is matched, not appended.
 */
import { isValidPresetFileName, parsePresetsFile, PresetsFileError } from '../led-presets-file.ts';
import type { StateModel } from '../model.ts';
import { locateFiles, type LocatedFile } from './folder.ts';
import { mapDevices, mapGroups, reportNetworks } from './map-fleet.ts';
import { mapPresets, mapScenes, type PresetRefs } from './map-library.ts';
import {
  describeBackup,
  readBackupState,
  readConfig,
  readPresets,
  readScenes,
  type RaceLinkState,
} from './read.ts';
import { ReportBuilder } from './report.ts';
import { RaceLinkImportError, type ImportReport, type RaceLinkFile } from './types.ts';

/** Same cap as an uploaded LED preset file (services/led-presets). */
export const LED_FILE_MAX_BYTES = 512 * 1024;

export interface ImportOptions {
  /** "Now" for records without timestamps (UTC ISO with seconds). */
  now: string;
  /** Import this snapshot from `rl_state_backups/` (its id or file name) instead of the current state. */
  backup?: string;
  /** What the folder is called in messages (its path, or "the upload"). */
  label?: string;
}

export interface ImportPlan {
  state: StateModel;
  /** LED preset files to store (name already chosen: free, valid). */
  ledFiles: { name: string; bytes: Uint8Array }[];
  report: ImportReport;
}

const jsonCopy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const sameBytes = (a: Uint8Array, b: Uint8Array): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

function chooseBackup(backups: LocatedFile[], wanted: string): LocatedFile {
  const f = backups.find((b) => {
    const base = b.name.replace(/^.*\//, '');
    if (base === wanted || base === `${wanted}.json`) return true;
    try {
      return describeBackup(b).id === wanted;
    } catch {
      return false;
    }
  });
  if (!f) throw new RaceLinkImportError(`rl_state_backups/${wanted}`, 'no such backup in the folder');
  return f;
}

function planLedFiles(
  files: LocatedFile[],
  existing: readonly { name: string; bytes: Uint8Array }[],
  selected: string | null,
  state: StateModel,
  r: ReportBuilder,
): { name: string; bytes: Uint8Array }[] {
  const writes: { name: string; bytes: Uint8Array }[] = [];
  const taken = new Set(existing.map((e) => e.name));
  const names = new Map<string, string>();
  for (const f of files) {
    const base = f.name.replace(/^.*\//, '');
    if (f.bytes.length > LED_FILE_MAX_BYTES) {
      r.item('led_preset_file', base, 'skip', `larger than ${LED_FILE_MAX_BYTES} bytes`);
      continue;
    }
    let presets: number;
    try {
      presets = parsePresetsFile(f.bytes).length;
    } catch (err) {
      if (!(err instanceof PresetsFileError)) throw err;
      r.item(
        'led_preset_file',
        base,
        'skip',
        err.message.replace('presets.json', 'not a WLED presets file:'),
      );
      continue;
    }
    const same =
      existing.find((e) => sameBytes(e.bytes, f.bytes)) ?? writes.find((e) => sameBytes(e.bytes, f.bytes));
    if (same) {
      names.set(base, same.name);
      r.item(
        'led_preset_file',
        base,
        'unchanged',
        same.name !== base ? `already stored as ${same.name}` : undefined,
      );
      continue;
    }
    const stem = isValidPresetFileName(base) ? base.slice(0, -'.json'.length) : 'presets_racelink';
    let name = `${stem}.json`;
    for (let n = 1; taken.has(name) || !isValidPresetFileName(name); n++) name = `${stem}_rl${n}.json`;
    taken.add(name);
    names.set(base, name);
    writes.push({ name, bytes: f.bytes });
    if (name !== base) r.map('LED preset file name', base, name);
    r.item('led_preset_file', base, 'create', `${presets} presets`);
  }
  if (selected) {
    const name = names.get(selected.replace(/^.*[\\/]/, ''));
    if (!name)
      r.warn(`the selected LED preset file ${selected} is not in the folder; the current selection is kept`);
    else if (state.settings.led_presets_file !== name) {
      state.settings.led_presets_file = name;
      r.item('setting', 'current LED preset file', 'update', name);
    } else r.item('setting', 'current LED preset file', 'unchanged', name);
  }
  return writes;
}

const NOT_IMPORTED: Record<string, string> = {
  host: "Lightnet's own setting (--host)",
  port: "Lightnet's own setting (--port)",
  debug: "Lightnet's own setting (--log-level)",
  'options.psi_comms_port': 'Lightnet finds the gateway itself (--gateway)',
  'options.rl_comms_port': 'Lightnet finds the gateway itself (--gateway)',
  'options.battery_threshold_2s_mV': 'Lightnet has one battery warning level (Settings)',
  'options.battery_threshold_6s_mV': 'Lightnet has one battery warning level (Settings)',
  'options.rl_eth_autosync_interval_s': 'Ethernet networks are not supported',
};

/** Reads the folder and maps it onto `current` (which is not modified). Throws RaceLinkImportError. */
export function planImport(
  files: readonly RaceLinkFile[],
  current: StateModel,
  existingLedFiles: readonly { name: string; bytes: Uint8Array }[],
  opts: ImportOptions,
): ImportPlan {
  const folder = locateFiles(files, opts.label);
  const r = new ReportBuilder();
  const src = r.report.source;
  src.files = [folder.config, folder.presets, folder.scenes, ...folder.ledFiles, ...folder.backups]
    .filter((f): f is LocatedFile => f !== null)
    .map((f) => f.name);
  // Read everything first: a bad file stops the import before anything is mapped.
  const config = folder.config ? readConfig(folder.config) : null;
  const presets = folder.presets ? readPresets(folder.presets) : null;
  const scenes = folder.scenes ? readScenes(folder.scenes) : null;
  let rlState: RaceLinkState | null = config?.state ?? null;
  if (opts.backup) {
    const chosen = chooseBackup(folder.backups, opts.backup);
    rlState = readBackupState(chosen);
    src.backup = chosen.name;
  }
  src.config_file = config?.file ?? null;
  src.state_schema = rlState?.schema ?? null;
  src.state_encoding = rlState?.encoding ?? null;
  src.presets_schema = presets?.schema ?? null;
  src.scenes_spelling = scenes?.spelling ?? null;

  const state = jsonCopy(current);
  let groups = new Map<number, number>([[0, 0]]);
  if (rlState) {
    groups = mapGroups(state, rlState, r);
    mapDevices(state, rlState, groups, r);
    reportNetworks(rlState, r);
  } else
    r.warn(
      folder.config
        ? `${folder.config.name} holds no device state: no devices or groups imported`
        : 'no standalone config file (plugin mode keeps devices and groups in the timing application): no devices or groups imported',
    );
  let refs: PresetRefs = { ids: new Map(), keys: new Map() };
  if (presets) refs = mapPresets(state, presets, opts.now, r);
  if (scenes) mapScenes(state, scenes, groups, refs, opts.now, r);
  const ledFiles = planLedFiles(folder.ledFiles, existingLedFiles, config?.ledFile ?? null, state, r);

  for (const o of config?.other ?? [])
    r.item('setting', o.key, 'skip', NOT_IMPORTED[o.key] ?? 'not used by Lightnet');
  for (const b of folder.backups) {
    if (b.name === src.backup) continue;
    try {
      const d = describeBackup(b);
      r.item(
        'backup',
        d.id,
        'skip',
        `${d.label || d.reason || 'snapshot'} from ${d.created} (${d.counts}): not imported; ` +
          `choose it with --backup ${d.id} to import it instead of the current state`,
      );
    } catch (err) {
      r.item('backup', b.name, 'skip', (err as Error).message);
    }
  }
  if (folder.configShadowed)
    r.item(
      'file',
      folder.configShadowed.name,
      'skip',
      `older name; ${folder.config?.name ?? ''} is newer and was read`,
    );
  if (folder.scenesShadowed)
    r.item(
      'file',
      folder.scenesShadowed.name,
      'skip',
      `older name; ${folder.scenes?.name ?? ''} is newer and was read`,
    );
  for (const name of folder.ignored) r.item('file', name, 'skip', 'not a RaceLink data file');
  return { state, ledFiles, report: r.report };
}
