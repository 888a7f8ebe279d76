/**
 * What the real data folder holds, seen from a simulator host. The simulator keeps its own
 * folder (host/data-folder.ts), so a setup imported into the real one (`npm run import --
 * … --data-dir ./data`) or saved by a host on the real gateway never shows on it: the
 * banner names what is there instead, so the operator is not left guessing where it went.
 *
 * Read-only on purpose: the simulator must not write to the real folder, so nothing is
 * moved aside or rebuilt here (the host that owns the folder does that). A broken or
 * unreadable file counts as nothing to show.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { emptyState, type StateModel } from '../domain/model.ts';
import { parseJournal } from '../state/journal.ts';
import { parseSnapshot, type ParsedSnapshot } from '../state/snapshot.ts';
import { applyOps } from '../state/state-diff.ts';

export interface RealFolderSummary {
  dir: string;
  devices: number;
  /** User groups (the implicit "Unconfigured" group is not counted). */
  groups: number;
  scenes: number;
}

async function readText(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return null;
  }
}

function snapshotOf(text: string | null): ParsedSnapshot | null {
  if (text === null) return null;
  try {
    return parseSnapshot(text);
  } catch {
    return null;
  }
}

/**
 * Counts of the state saved in `dir` (the snapshot, or its backup, with the journal's later
 * records on top, as the owning host would load it), or null when it holds none of them.
 */
export async function summarizeRealFolder(dir: string): Promise<RealFolderSummary | null> {
  const base =
    snapshotOf(await readText(join(dir, 'state.json'))) ??
    snapshotOf(await readText(join(dir, 'state.json.bak')));
  const journal = parseJournal((await readText(join(dir, 'state.journal'))) ?? '');
  if (!base && journal.records.length === 0) return null;
  let state: StateModel | null = base?.state ?? null;
  const later = journal.records.filter((r) => r.seq > (base?.journalSeq ?? 0));
  if (later.length > 0) {
    try {
      let image: StateModel = state ?? emptyState();
      for (const r of later) image = applyOps(image, r.ops);
      state = image;
    } catch {
      // A journal the owning host could not replay either: the snapshot is what it would show.
    }
  }
  if (!state) return null;
  const summary = {
    dir,
    devices: state.devices.length,
    groups: state.groups.length,
    scenes: state.scenes.length,
  };
  return summary.devices + summary.groups + summary.scenes > 0 ? summary : null;
}
