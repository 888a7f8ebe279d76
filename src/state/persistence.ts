/**
 * `state.json` on disk: atomic writes (temp file, fsync, rename) with the previous
 * good copy kept as `state.json.bak`. A corrupt main file falls back to the backup,
 * loudly; when both are unusable the broken files are moved aside (never deleted)
 * and the host starts empty with a warning — it never silently discards data.
 */
import { mkdir, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import type { StateModel } from '../domain/model.ts';
import { emptyState } from '../domain/model.ts';
import { migrateToCurrent, serializeState, CURRENT_SCHEMA_VERSION } from './migrations.ts';

export interface LoadResult {
  state: StateModel;
  source: 'main' | 'backup' | 'empty';
  fromVersion: number;
  /** Set when something was wrong and the operator should know. */
  warning: string | null;
  /** Stored records that were repaired or skipped while loading (logged as warnings). */
  notes?: string[];
}

export interface StatePersistence {
  load(): Promise<LoadResult>;
  write(state: StateModel): Promise<void>;
  readonly path: string;
}

type ReadOutcome =
  | { ok: true; raw: string; parsed: ReturnType<typeof migrateToCurrent> }
  | { ok: false; missing: boolean; error: string };

async function tryRead(path: string): Promise<ReadOutcome> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, missing: code === 'ENOENT', error: code ?? 'read failed' };
  }
  try {
    return { ok: true, raw, parsed: migrateToCurrent(JSON.parse(raw)) };
  } catch (err) {
    return { ok: false, missing: false, error: (err as Error).message };
  }
}

export class FileStatePersistence implements StatePersistence {
  readonly path: string;
  readonly backupPath: string;
  /** Serialized content of the last good state on disk: becomes the next backup. */
  private lastGood: string | null = null;

  constructor(private readonly dataDir: string) {
    this.path = join(dataDir, 'state.json');
    this.backupPath = join(dataDir, 'state.json.bak');
  }

  async load(): Promise<LoadResult> {
    await mkdir(this.dataDir, { recursive: true });
    const main = await tryRead(this.path);
    if (main.ok) {
      this.lastGood = main.raw;
      return {
        state: main.parsed.state,
        source: 'main',
        fromVersion: main.parsed.fromVersion,
        warning: null,
        notes: main.parsed.notes,
      };
    }
    const backup = await tryRead(this.backupPath);
    if (backup.ok) {
      this.lastGood = backup.raw;
      const warning = main.missing
        ? 'state.json was missing; restored from the backup state.json.bak'
        : `state.json is corrupt (${main.error}); restored from the backup state.json.bak`;
      if (!main.missing) await this.quarantine(this.path);
      return {
        state: backup.parsed.state,
        source: 'backup',
        fromVersion: backup.parsed.fromVersion,
        warning,
        notes: backup.parsed.notes,
      };
    }
    if (main.missing && backup.missing) {
      return { state: emptyState(), source: 'empty', fromVersion: CURRENT_SCHEMA_VERSION, warning: null };
    }
    // Both unusable: keep the evidence, start empty, say so loudly.
    const moved: string[] = [];
    if (!main.missing) moved.push(await this.quarantine(this.path));
    if (!backup.missing) moved.push(await this.quarantine(this.backupPath));
    return {
      state: emptyState(),
      source: 'empty',
      fromVersion: CURRENT_SCHEMA_VERSION,
      warning: `state.json and its backup are unusable (${main.missing ? 'missing' : main.error}); started empty, broken files kept as ${moved.join(', ')}`,
    };
  }

  async write(state: StateModel): Promise<void> {
    const next = serializeState(state);
    await mkdir(this.dataDir, { recursive: true });
    if (this.lastGood !== null && this.lastGood !== next) {
      await writeFileAtomic(this.backupPath, this.lastGood, { fsync: true });
    }
    await writeFileAtomic(this.path, next, { fsync: true });
    this.lastGood = next;
  }

  private async quarantine(path: string): Promise<string> {
    const target = `${path}.corrupt-${Date.now()}`;
    try {
      await rename(path, target);
      return target.slice(this.dataDir.length + 1);
    } catch {
      return path.slice(this.dataDir.length + 1);
    }
  }
}
