/**
 * Importing a RaceLink user's data folder (`~/.racelink/`, networks.md §4): the input (the
 * folder's files as relative path + bytes), the report every entry point shows (CLI, HTTP,
 * web UI), and the one error type for input that cannot be imported. Pure: no I/O here.
 */
import { ValidationError } from '../../errors.ts';

/** One file of the folder: its path relative to the folder (`/` separated) and its bytes. */
export interface RaceLinkFile {
  path: string;
  bytes: Uint8Array;
}

/**
 * Input that cannot be imported: names the file and the problem. A ValidationError, so the
 * HTTP layer answers 400 `{ok:false, error}`; nothing is written when it is thrown.
 */
export class RaceLinkImportError extends ValidationError {
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: ${problem}`);
  }
}

export type ItemKind =
  | 'device'
  | 'group'
  | 'network'
  | 'native_preset'
  | 'scene'
  | 'led_preset_file'
  | 'setting'
  | 'backup'
  | 'file';

/** create: new here; update: matched and changed; unchanged: matched, nothing to do; skip: not brought over. */
export type ItemAction = 'create' | 'update' | 'unchanged' | 'skip';

export interface ReportItem {
  kind: ItemKind;
  /** The name as the user knows it (device/group name, preset/scene label, file name). */
  name: string;
  action: ItemAction;
  /** Why it is skipped, what changed, or what was adjusted (cut name, renumbered id). */
  detail?: string;
}

/** One translation applied (an action kind, a group id, a preset id, a file name). */
export interface ReportMapping {
  what: string;
  from: string;
  to: string;
  /** How many times it applied (action kinds are counted over every scene). */
  count: number;
}

export type Counts = Record<ItemAction, number>;

export interface ImportReport {
  /** Which files were read and which formats they had. */
  source: {
    files: string[];
    config_file: string | null;
    state_schema: number | null;
    state_encoding: 'string' | 'object' | 'legacy-keys' | 'backup' | null;
    presets_schema: number | null;
    scenes_spelling: 'schema_version' | 'version' | null;
    /** Set when a snapshot from `rl_state_backups/` was imported instead of the current state. */
    backup: string | null;
  };
  counts: Partial<Record<ItemKind, Counts>>;
  items: ReportItem[];
  mapped: ReportMapping[];
  /** Things the user should check afterwards (merged networks, formula offsets, …). */
  warnings: string[];
  /** False when importing would change nothing (everything already here). */
  changes: boolean;
}
