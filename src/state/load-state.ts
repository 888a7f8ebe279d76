/**
 * Reading the data dir at start (and on reload): snapshot or backup, plus the journal
 * replayed on top. Broken files are moved aside, never deleted or overwritten; a file we
 * may not read (EACCES) or something that is not a regular file (a FIFO, a directory) ends
 * the start with a clear error instead of being mistaken for corruption (or blocking).
 * When nothing usable is left the host starts empty with an alarm that is kept on disk
 * until an operator acknowledges it.
 */
import { copyFile, readFile, rename, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { emptyState, type StateModel } from '../domain/model.ts';
import { parseJournal, type JournalRecord } from './journal.ts';
import { CURRENT_SCHEMA_VERSION, migrateToCurrent } from './migrations.ts';
import { parseSnapshot, type ParsedSnapshot } from './snapshot.ts';
import { applyOps } from './state-diff.ts';

export interface LoadResult {
  state: StateModel;
  source: 'main' | 'backup' | 'empty';
  fromVersion: number;
  /** Set when something was wrong and the operator should know. */
  warning: string | null;
  /** Stored records that were repaired or skipped while loading (logged as warnings). */
  notes?: string[];
  /** A "started empty" alarm that stays until an operator acknowledges it. */
  alarm: string | null;
  /** Journal records replayed on top of the snapshot. */
  replayed: number;
}

export interface ReadStateResult extends LoadResult {
  seq: number;
  mainSeq: number | null;
  bakSeq: number | null;
  journalLines: { seq: number; text: string }[];
  journalGoodBytes: number;
  snapshotBytes: number;
  alarmToWrite: { message: string; ts: string } | null;
}

/** A data dir the host cannot start from; the message says what to do. */
export class StateFileError extends Error {
  override readonly name = 'StateFileError';
}

type FileRead = { kind: 'missing' } | { kind: 'text'; raw: string };
type SnapRead =
  { kind: 'missing' } | { kind: 'bad'; error: string } | { kind: 'ok'; snap: ParsedSnapshot; bytes: number };

/** Reads a regular file; ENOENT is "missing"; anything that is no regular file or not readable throws. */
async function readRegular(path: string): Promise<FileRead> {
  const name = basename(path);
  let st;
  try {
    st = await stat(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'missing' };
    throw new StateFileError(`cannot access ${name}: ${code ?? (err as Error).message}`);
  }
  if (!st.isFile()) {
    const what = st.isDirectory() ? 'a directory' : st.isFIFO() ? 'a FIFO' : 'not a regular file';
    throw new StateFileError(
      `${name} in the data dir is ${what}: move it away (the host never replaces it) and start again`,
    );
  }
  try {
    return { kind: 'text', raw: await readFile(path, 'utf8') };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'read failed';
    if (code === 'EACCES' || code === 'EPERM')
      throw new StateFileError(`cannot read ${name}: permission denied (${code}); fix its owner or mode`);
    throw new StateFileError(`cannot read ${name}: ${code}`);
  }
}

async function readSnapshot(path: string): Promise<SnapRead> {
  const f = await readRegular(path);
  if (f.kind === 'missing') return f;
  try {
    return { kind: 'ok', snap: parseSnapshot(f.raw), bytes: f.raw.length };
  } catch (err) {
    return { kind: 'bad', error: (err as Error).message };
  }
}

async function moveAside(dir: string, path: string, copy = false): Promise<string> {
  const target = `${path}.corrupt-${Date.now()}`;
  try {
    await (copy ? copyFile(path, target) : rename(path, target));
    return basename(target);
  } catch {
    return basename(path);
  }
}

export async function readState(
  dir: string,
  mainPath: string,
  bakPath: string,
  journalPath: string,
): Promise<ReadStateResult> {
  const journalFile = await readRegular(journalPath);
  const alarmFile = await readRegular(join(dir, 'state.alarm.json'));
  const main = await readSnapshot(mainPath);
  const bak = main.kind === 'ok' ? null : await readSnapshot(bakPath);
  const journal = parseJournal(journalFile.kind === 'text' ? journalFile.raw : '');
  const problems: string[] = [];
  let alarmToWrite: ReadStateResult['alarmToWrite'] = null;

  let base: ParsedSnapshot | null = null;
  let source: LoadResult['source'] = 'empty';
  if (main.kind === 'ok') {
    base = main.snap;
    source = 'main';
  } else if (bak?.kind === 'ok') {
    base = bak.snap;
    source = 'backup';
    if (main.kind === 'missing')
      problems.push('state.json was missing; restored from the backup state.json.bak');
    else {
      const kept = await moveAside(dir, mainPath);
      problems.push(
        `state.json is corrupt (${main.error}); restored from the backup state.json.bak (broken file kept as ${kept})`,
      );
    }
  }
  let records = journal.records;
  if (journal.damage && !journal.damage.trailing) {
    const kept = await moveAside(dir, journalPath, true);
    problems.push(
      `state.journal is damaged at line ${journal.damage.line} (${journal.damage.reason}); later changes are lost (copy kept as ${kept})`,
    );
  }
  if (!base && (main.kind === 'bad' || bak?.kind === 'bad')) {
    // Nothing usable. A journal that starts at record 1 is the whole history: replay it.
    const kept: string[] = [];
    if (main.kind === 'bad') kept.push(await moveAside(dir, mainPath));
    if (bak?.kind === 'bad') kept.push(await moveAside(dir, bakPath));
    const whole = records[0]?.seq === 1;
    if (!whole && records.length) {
      kept.push(await moveAside(dir, journalPath, true));
      records = [];
    }
    const why = main.kind === 'bad' ? main.error : 'missing';
    const message = whole
      ? `state.json and its backup are unusable (${why}); rebuilt from the journal alone (broken files kept as ${kept.join(', ')})`
      : `state.json and its backup are unusable (${why}); STARTED EMPTY — broken files kept as ${kept.join(', ')}`;
    problems.push(message);
    if (!whole) alarmToWrite = { message, ts: new Date().toISOString() };
  }

  const baseSeq = base?.journalSeq ?? 0;
  const replay: JournalRecord[] = records.filter((r) => r.seq > baseSeq);
  const lastSeq = records[records.length - 1]?.seq ?? 0;
  let state: StateModel = base?.state ?? emptyState();
  let seq = Math.max(baseSeq, lastSeq);
  let journalLines = journal.records.map((r, i) => ({ seq: r.seq, text: journal.lines[i] as string }));
  let goodBytes = journal.goodBytes;
  if (replay.length && (replay[0] as JournalRecord).seq !== baseSeq + 1) {
    problems.push(
      `state.journal lacks records ${baseSeq + 1}..${(replay[0] as JournalRecord).seq - 1}; some changes may be missing`,
    );
  }
  if (replay.length) {
    try {
      let image = state;
      for (const r of replay) image = applyOps(image, r.ops);
      state = migrateToCurrent({ ...image, schema_version: CURRENT_SCHEMA_VERSION }).state;
    } catch (err) {
      const kept = await moveAside(dir, journalPath, true);
      problems.push(
        `state.journal could not be replayed (${(err as Error).message}); its changes are lost (copy kept as ${kept})`,
      );
      seq = baseSeq;
      journalLines = [];
      goodBytes = 0;
    }
  }
  if (records !== journal.records && records.length === 0) {
    journalLines = [];
    goodBytes = 0;
  }
  let alarm: string | null = null;
  if (alarmToWrite) alarm = alarmToWrite.message;
  else if (alarmFile.kind === 'text') {
    try {
      const a = JSON.parse(alarmFile.raw) as { message?: unknown; ts?: unknown };
      alarm = `${typeof a.message === 'string' ? a.message : 'state was lost'} (since ${String(a.ts)}; acknowledge on /api/health/acknowledge)`;
    } catch {
      alarm =
        'an earlier start lost the state (alarm file unreadable); acknowledge on /api/health/acknowledge';
    }
  }
  return {
    state,
    source,
    fromVersion: base?.fromVersion ?? CURRENT_SCHEMA_VERSION,
    warning: problems.length ? problems.join('; ') : null,
    notes: base?.notes ?? [],
    alarm,
    replayed: replay.length,
    seq,
    mainSeq: main.kind === 'ok' ? main.snap.journalSeq : null,
    bakSeq: bak?.kind === 'ok' ? bak.snap.journalSeq : null,
    journalLines,
    journalGoodBytes: goodBytes,
    snapshotBytes: main.kind === 'ok' ? main.bytes : 0,
    alarmToWrite,
  };
}
