/**
 * Which data folder this host owns, and its lock: the simulator keeps its own folder
 * (simulated devices never land in the real one), and only one host may own a folder at a
 * time (state/data-lock.ts). Says at start which folder is in use and why.
 */
import { existsSync } from 'node:fs';
import { rmdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Config } from '../config/index.ts';
import type { Logger } from '../logger.ts';
import { DataDirLock } from '../state/data-lock.ts';

/** Where this host's state lives and the lock that makes it the folder's only host. */
export interface DataFolder {
  dir: string;
  simulated: boolean;
  lock: DataDirLock;
  /**
   * After a start that failed (port taken, …) and released the lock: removes the folders
   * this start created, while they are empty — a host that never ran leaves no `./data`.
   */
  discardIfUnused: () => Promise<void>;
}

/** Takes the folder's lock (throws DataDirLockedError when another host owns it). */
export async function openDataFolder(cfg: Config, simulated: boolean, log: Logger): Promise<DataFolder> {
  const dir = resolve(simulated ? cfg.simDataDir : cfg.dataDir);
  const created = missingFolders(dir);
  const lock = await DataDirLock.acquire(dir, {
    onTakeover: (stale) =>
      log.warn(
        { dataDir: dir, stale_pid: stale?.pid ?? null },
        'data folder lock of a host that is gone taken over',
      ),
  });
  if (!lock.held)
    log.warn({ dataDir: dir }, 'data folder takes no writes: running without its lock (changes are refused)');
  if (simulated) {
    const real = resolve(cfg.dataDir);
    log.warn({ dataDir: dir, realDataDir: real }, simulatorFolderMessage(dir, real));
  } else log.info({ dataDir: dir }, `data folder ${dir}`);
  return { dir, simulated, lock, discardIfUnused: () => removeEmpty(created) };
}

/** `dir` and those of its parents that do not exist yet, deepest first. */
function missingFolders(dir: string): string[] {
  const out: string[] = [];
  for (let d = dir; !existsSync(d) && dirname(d) !== d; d = dirname(d)) out.push(d);
  return out;
}

/** rmdir only removes an empty folder: anything written meanwhile stays, and so do its parents. */
async function removeEmpty(deepestFirst: string[]): Promise<void> {
  for (const d of deepestFirst) {
    try {
      await rmdir(d);
    } catch {
      return;
    }
  }
}

/**
 * The start line that says where the simulator keeps its state. `--sim-data-dir` may name
 * the real data folder itself: the simulated devices are then saved among the real ones,
 * and the line must say so rather than claim they are kept apart.
 */
export function simulatorFolderMessage(simDir: string, realDir: string): string {
  if (simDir === realDir) {
    return (
      `SIMULATOR: simulated devices and their state are kept in the real data folder ${realDir} ` +
      `(--sim-data-dir names it): they are saved with the real devices`
    );
  }
  return `SIMULATOR: simulated devices and their state are kept in ${simDir}, apart from the real data folder ${realDir}`;
}
