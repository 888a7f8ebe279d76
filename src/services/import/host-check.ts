/**
 * Is a host running on this data dir? The CLI import must not write under a running host
 * (the host would overwrite the import with its own state). The data-dir lock of the host
 * (a lock file holding its process id) is what tells; this check is conservative: any lock
 * file whose process is alive, or whose owner cannot be read, refuses the import.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

const LOCK_NAME = /(^|[._-])(lock|pid)(\.json)?$/i;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The reason not to write into `dataDir`, or null when no running host owns it. */
export async function runningHostProblem(dataDir: string): Promise<string | null> {
  const names = await readdir(dataDir).catch(() => [] as string[]);
  for (const name of names.filter((n) => LOCK_NAME.test(n))) {
    let text: string;
    try {
      text = await readFile(join(dataDir, name), 'utf8');
    } catch {
      continue; // a directory or unreadable entry is not a lock file
    }
    let pid: number | null = null;
    try {
      const j = JSON.parse(text) as unknown;
      if (typeof j === 'number') pid = j;
      else if (typeof j === 'object' && j !== null && typeof (j as { pid?: unknown }).pid === 'number')
        pid = (j as { pid: number }).pid;
    } catch {
      const m = /\b(\d{1,9})\b/.exec(text);
      if (m?.[1]) pid = Number(m[1]);
    }
    if (pid !== null && (!Number.isInteger(pid) || pid <= 0)) pid = null;
    if (pid === null)
      return `${join(dataDir, name)} exists and names no process: if no Lightnet host uses this data dir, remove it`;
    if (pid !== process.pid && alive(pid))
      return `a Lightnet host (process ${pid}) is running on ${dataDir} (${name}): stop it first, or import from the web UI (Settings → Import from RaceLink)`;
  }
  return null;
}
