/**
 * The state on disk: a snapshot (`state.json`, previous one kept as `state.json.bak`) plus
 * an append-only journal of changes since (`state.journal`). A commit appends the
 * difference between the durable image and the live model as one fsynced line (a few
 * hundred bytes for one operator change, whatever the state's size); a compaction writes
 * the durable image as a new snapshot in the background and drops the journal records
 * that both snapshot files already hold. Loading reads the snapshot (or its backup) and
 * replays the journal. See README "Data directory" for the guarantees.
 */
import { mkdir, readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { StateModel } from '../domain/model.ts';
import { defaultConsoleSettings } from '../domain/console-settings.ts';
import type { DirtyHint } from './dirty.ts';
import { defaultWrite, fsyncDir, tempPrefix, writeFileDurable, type WriteFn } from './durable-write.ts';
import { encodeRecord, JournalFile } from './journal.ts';
import { readState, type LoadResult } from './load-state.ts';
import { CURRENT_SCHEMA_VERSION } from './migrations.ts';
import { serializeSnapshot } from './snapshot.ts';
import { applyOps, diffState, jsonCopy } from './state-diff.ts';

export type { LoadResult } from './load-state.ts';

export interface StatePersistence {
  readonly path: string;
  load(): Promise<LoadResult>;
  /**
   * Appends what changed in `model` since the last commit and resolves once it is on disk.
   * The difference is taken synchronously, at the call.
   */
  commit(model: StateModel, hint?: DirtyHint | null): Promise<void>;
  /** Writes the durable image as the new snapshot and shrinks the journal. */
  compact(): Promise<void>;
  /** Makes `state` the durable state at once: a new snapshot (the current one becomes the backup). */
  replace(state: StateModel): Promise<void>;
  /** A deep copy of the last durable state (the rollback target after a failed commit). */
  durableCopy(): StateModel;
  /** The journal has grown enough that a compaction pays off. */
  wantsCompaction(): boolean;
  /** Checks the data dir takes writes again (after a failure); throws when it does not. */
  probe(): Promise<void>;
  /** Clears the persisted "started empty" alarm. */
  acknowledgeAlarm(): Promise<void>;
  close(): Promise<void>;
}

export interface FilePersistenceOptions {
  /** The write primitive (tests inject short writes and full disks). */
  write?: WriteFn;
  /** Journal size that triggers a compaction, at least (default 1 MiB; the snapshot size when larger). */
  compactBytes?: number;
}

export const ALARM_FILE = 'state.alarm.json';

export class FileStatePersistence implements StatePersistence {
  readonly path: string;
  readonly backupPath: string;
  readonly journalPath: string;
  private readonly journal: JournalFile;
  private readonly write: WriteFn;
  /** The durable state, never mutated in place (commits replace what they change). */
  private image: StateModel = emptyImage();
  private seq = 0;
  /** journal_seq of state.json and of state.json.bak as on disk (null: no such file). */
  private mainSeq: number | null = null;
  private bakSeq: number | null = null;
  /** Journal lines on disk, in order (kept so a compaction can rewrite the tail). */
  private lines: { seq: number; text: string }[] = [];
  private snapshotBytes = 0;
  /** One journal operation at a time (append, rewrite). */
  private lock: Promise<unknown> = Promise.resolve();
  private compacting: Promise<void> | null = null;

  constructor(
    private readonly dataDir: string,
    private readonly opts: FilePersistenceOptions = {},
  ) {
    this.path = join(dataDir, 'state.json');
    this.backupPath = join(dataDir, 'state.json.bak');
    this.journalPath = join(dataDir, 'state.journal');
    this.write = opts.write ?? defaultWrite;
    this.journal = new JournalFile(this.journalPath, this.write);
  }

  async load(): Promise<LoadResult> {
    await this.compacting;
    await this.exclusive(async () => {
      await this.journal.close();
    });
    await mkdir(this.dataDir, { recursive: true });
    await this.removeStrayTemps();
    const r = await readState(this.dataDir, this.path, this.backupPath, this.journalPath);
    if (r.source === 'main' && r.fromVersion < CURRENT_SCHEMA_VERSION)
      await this.keepOlderVersion(r.fromVersion);
    this.image = jsonCopy(r.state);
    this.seq = r.seq;
    this.mainSeq = r.mainSeq;
    this.bakSeq = r.bakSeq;
    this.lines = r.journalLines;
    this.snapshotBytes = r.snapshotBytes;
    await this.journal.open(r.journalGoodBytes);
    if (r.alarmToWrite) {
      // Kept on disk so the next start says it again; if the disk refuses, memory still does.
      const text = JSON.stringify(r.alarmToWrite, null, 2) + '\n';
      await writeFileDurable(join(this.dataDir, ALARM_FILE), text, { mode: 0o600 }).catch(() => undefined);
    }
    return r;
  }

  /**
   * Before the first write in a newer schema: the older files as they are, in `backups/`.
   * An older build refuses the newer schema loudly; this copy is the way back to it.
   */
  private async keepOlderVersion(version: number): Promise<void> {
    const dir = join(this.dataDir, 'backups');
    const t = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const taken = new Set(await readdir(dir));
    let base = `state-v${version}-${t}`;
    for (let n = 1; taken.has(`${base}.json`); n++) base = `state-v${version}-${t}-${n}`;
    const journal = await readFile(this.journalPath).catch(() => null);
    if (journal && journal.length > 0)
      await writeFileDurable(join(dir, `${base}.journal`), journal, { mode: 0o600, write: this.write });
    await writeFileDurable(join(dir, `${base}.json`), await readFile(this.path), {
      mode: 0o600,
      write: this.write,
    });
  }

  commit(model: StateModel, hint: DirtyHint | null = null): Promise<void> {
    const ops = diffState(this.image, model, hint);
    if (ops.length === 0) return Promise.resolve();
    return this.exclusive(async () => {
      const seq = this.seq + 1;
      const text = encodeRecord(seq, ops);
      if (this.journal.needsRewrite) await this.rewriteJournal(this.keepFrom());
      await this.journal.append(text);
      this.image = applyOps(this.image, ops);
      this.seq = seq;
      this.lines.push({ seq, text });
    });
  }

  wantsCompaction(): boolean {
    if (this.compacting) return false;
    const main = this.mainSeq ?? 0;
    let pending = 0;
    for (let i = this.lines.length - 1; i >= 0 && (this.lines[i]?.seq ?? 0) > main; i--)
      pending += this.lines[i]?.text.length ?? 0;
    return pending > Math.max(this.opts.compactBytes ?? 1024 * 1024, this.snapshotBytes);
  }

  compact(): Promise<void> {
    // One at a time; a second call waits for the running one and then writes again.
    const run = async (): Promise<void> => {
      const image = this.image;
      const seq = this.seq;
      await this.writeSnapshot(image, seq);
      // Keep what the backup still lacks, so backup + journal is the whole state too.
      await this.exclusive(() => this.rewriteJournal(this.keepFrom()));
    };
    const next = (this.compacting ?? Promise.resolve()).then(run, run);
    const mine = next.finally(() => {
      if (this.compacting === mine) this.compacting = null;
    });
    this.compacting = mine;
    return mine;
  }

  /** Writes a snapshot durably; the file it replaces is the backup only if it is a good snapshot of ours. */
  private async writeSnapshot(image: StateModel, seq: number): Promise<void> {
    const text = await serializeSnapshot(image, seq);
    const rotate = this.mainSeq !== null;
    await writeFileDurable(this.path, text, {
      mode: 0o600,
      write: this.write,
      ...(rotate ? { backupPath: this.backupPath } : {}),
    });
    if (rotate) this.bakSeq = this.mainSeq;
    this.mainSeq = seq;
    this.snapshotBytes = text.length;
  }

  async replace(state: StateModel): Promise<void> {
    await this.compacting;
    const image = jsonCopy(state);
    // Same journal_seq as now: every journal record so far is older than this snapshot.
    const seq = this.seq;
    await this.writeSnapshot(image, seq);
    this.image = image;
    await this.exclusive(() => this.rewriteJournal(this.keepFrom()));
  }

  durableCopy(): StateModel {
    return jsonCopy(this.image);
  }

  async probe(): Promise<void> {
    if (this.journal.needsRewrite) {
      await this.exclusive(() => this.rewriteJournal(this.keepFrom()));
      return;
    }
    const path = join(this.dataDir, '.write-probe');
    await writeFileDurable(path, 'probe\n', { write: this.write });
    await unlink(path).catch(() => undefined);
  }

  async acknowledgeAlarm(): Promise<void> {
    await unlink(join(this.dataDir, ALARM_FILE)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
    await fsyncDir(this.dataDir);
  }

  async close(): Promise<void> {
    await this.compacting;
    await this.exclusive(() => this.journal.close());
  }

  /** The oldest journal record still needed: after the older of the two snapshot files. */
  private keepFrom(): number {
    const bak = this.bakSeq ?? this.mainSeq ?? 0;
    return Math.min(bak, this.mainSeq ?? 0) + 1;
  }

  private async rewriteJournal(fromSeq: number): Promise<void> {
    const keep = this.lines.filter((l) => l.seq >= fromSeq);
    await this.journal.rewrite(keep.map((l) => l.text).join(''));
    this.lines = keep;
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lock.then(fn, fn);
    this.lock = run.catch(() => undefined);
    return run;
  }

  /** Temp files of a write interrupted by a crash (never a finished file). */
  private async removeStrayTemps(): Promise<void> {
    const prefixes = [this.path, this.backupPath, this.journalPath, join(this.dataDir, ALARM_FILE)].map(
      tempPrefix,
    );
    for (const name of await readdir(this.dataDir).catch(() => [] as string[])) {
      if (prefixes.some((p) => name.startsWith(p)) || name === '.write-probe')
        await unlink(join(this.dataDir, name)).catch(() => undefined);
    }
  }
}

function emptyImage(): StateModel {
  return {
    devices: [],
    groups: [],
    native_presets: [],
    scenes: [],
    settings: { led_presets_file: null },
    console: defaultConsoleSettings(),
    // Nothing on disk: the first write carries network 1.
    networks: [],
  };
}
