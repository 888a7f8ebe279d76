/**
 * Reading a RaceLink folder from disk for the CLI: the JSON files of the folder and of its
 * known subfolders (two levels, no symlinks followed), each capped in size. Other files are
 * listed by name only (the report shows them as ignored), never read.
 */
import { lstat, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { RaceLinkImportError, type RaceLinkFile } from '../../domain/racelink/types.ts';

/** Larger than any RaceLink data file; a bigger one is not read (named in the error). */
export const FOLDER_FILE_MAX_BYTES = 16 * 1024 * 1024;
const MAX_FILES = 5000;

export async function readRaceLinkFolder(dir: string): Promise<RaceLinkFile[]> {
  // The folder itself may be a symlink (a moved home folder); nothing inside is followed.
  const st = await stat(dir).catch(() => null);
  if (!st) throw new RaceLinkImportError(dir, 'no such folder');
  if (!st.isDirectory())
    throw new RaceLinkImportError(dir, 'is not a folder (give the RaceLink data folder, e.g. ~/.racelink)');
  const out: RaceLinkFile[] = [];
  const walk = async (rel: string, depth: number): Promise<void> => {
    for (const name of (await readdir(join(dir, rel))).sort()) {
      const relPath = rel ? `${rel}/${name}` : name;
      const s = await lstat(join(dir, relPath));
      if (out.length >= MAX_FILES)
        throw new RaceLinkImportError(dir, `more than ${MAX_FILES} files: is this the RaceLink data folder?`);
      if (s.isDirectory()) {
        if (depth < 1) await walk(relPath, depth + 1);
        continue;
      }
      if (!s.isFile() || !name.endsWith('.json')) {
        out.push({ path: relPath, bytes: new Uint8Array(0) });
        continue;
      }
      if (s.size > FOLDER_FILE_MAX_BYTES)
        throw new RaceLinkImportError(
          relPath,
          `is ${s.size} bytes, more than ${FOLDER_FILE_MAX_BYTES}: not a RaceLink data file`,
        );
      out.push({ path: relPath, bytes: await readFile(join(dir, relPath)) });
    }
  };
  await walk('', 0);
  return out;
}
