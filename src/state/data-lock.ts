/**
 * One host per data folder. Two hosts on one folder replace each other's state files and
 * write to journals the other already deleted (a change answered 200 then lives in neither
 * file), so the host that owns a folder holds `lightnet.lock` in it, and a second host
 * refuses to start with a message that names the folder and the owner.
 *
 * - Taking it is atomic: the owner record is written to a private temp file, fsynced, and
 *   hard-linked to the lock name; link() fails with EEXIST when the lock exists, and the
 *   lock never exists half-written.
 * - A lock whose process is gone (crash, kill -9, power loss) is stale: another boot of
 *   the machine, no such pid, or a pid now used by another process (its start time in
 *   /proc differs from the one recorded). A stale lock is taken over under a takeover
 *   guard (mkdir of `lightnet.lock.takeover`, atomic), which re-reads the lock first: of
 *   two hosts starting at once over the same stale lock, one takes it and the other then
 *   sees a live owner and exits.
 * - A lock from another machine (a shared network folder) cannot be checked: it is
 *   treated as live, and the message says which file to remove if that host is gone.
 * - Released (removed, only if still ours) on a clean shutdown.
 * - A folder nobody can write (read-only medium or permissions) needs no lock: no host can
 *   change it. The host then runs without one (`held` false; it refuses changes anyway).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { link, mkdir, open, readFile, rename, rmdir, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { fsyncDir } from './durable-write.ts';

export const LOCK_FILE = 'lightnet.lock';
const TAKEOVER_DIR = `${LOCK_FILE}.takeover`;
/** A takeover guard older than this was left by a host that died mid-takeover. */
const TAKEOVER_STALE_MS = 10_000;

export interface LockOwner {
  pid: number;
  host: string;
  /** HTTP port, once listening (null before). */
  port: number | null;
  /** ISO time the owner started. */
  started: string;
  /** Linux boot id and the process start time (clock ticks since boot): tell a reused pid. */
  bootId: string | null;
  procStart: string | null;
}

export class DataDirLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly owner: LockOwner | null,
  ) {
    super(lockedMessage(dir, owner));
    this.name = 'DataDirLockedError';
  }
}

function lockedMessage(dir: string, owner: LockOwner | null): string {
  return lockedText(dir, owner, 'start this one with another --data-dir');
}

/**
 * Who holds `dir` and what to do: stop that host first, or `otherwise` (a second host:
 * "start this one with another --data-dir"; the import CLI: its web UI).
 */
export function lockedText(dir: string, owner: LockOwner | null, otherwise: string): string {
  if (!owner) {
    return (
      `the data folder ${dir} is being taken by another Lightnet host that is starting right now; ` +
      `stop it first, or ${otherwise}`
    );
  }
  const where = owner.host === hostname() ? '' : ` on machine ${owner.host}`;
  const port = owner.port === null ? 'port not yet open' : `port ${owner.port}`;
  const gone =
    owner.host === hostname() ? '' : ` If that host is no longer running, remove ${join(dir, LOCK_FILE)}.`;
  return (
    `the data folder ${dir} is in use by another Lightnet host (pid ${owner.pid}, ${port}${where}, ` +
    `started ${owner.started}). Stop that host first, or ${otherwise}.${gone}`
  );
}

function readProc(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** Field 22 of /proc/<pid>/stat (after the parenthesised command, which may hold spaces). */
function procStartOf(pid: number): string | null {
  const text = readProc(`/proc/${pid}/stat`);
  if (!text) return null;
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return rest[19] ?? null;
}

const bootId = (): string | null => readProc('/proc/sys/kernel/random/boot_id')?.trim() ?? null;

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, it is only someone else's.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the recorded owner is certainly gone (false when it lives or cannot be checked). */
export function ownerIsGone(owner: LockOwner): boolean {
  if (owner.host !== hostname()) return false;
  const boot = bootId();
  if (owner.bootId && boot && owner.bootId !== boot) return true;
  if (!pidAlive(owner.pid)) return true;
  const start = procStartOf(owner.pid);
  return Boolean(owner.procStart && start && owner.procStart !== start);
}

function parseOwner(text: string): LockOwner | null {
  try {
    const o = JSON.parse(text) as Partial<LockOwner>;
    if (typeof o.pid !== 'number' || typeof o.host !== 'string') return null;
    return {
      pid: o.pid,
      host: o.host,
      port: typeof o.port === 'number' ? o.port : null,
      started: typeof o.started === 'string' ? o.started : '?',
      bootId: typeof o.bootId === 'string' ? o.bootId : null,
      procStart: typeof o.procStart === 'string' ? o.procStart : null,
    };
  } catch {
    return null;
  }
}

async function readOwner(path: string): Promise<{ owner: LockOwner | null; text: string } | null> {
  try {
    const text = await readFile(path, 'utf8');
    return { owner: parseOwner(text), text };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

async function writeTemp(dir: string, owner: LockOwner): Promise<string> {
  const tmp = join(dir, `${LOCK_FILE}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  const fh = await open(tmp, 'wx', 0o644);
  try {
    await fh.writeFile(`${JSON.stringify(owner)}\n`);
    await fh.sync();
  } finally {
    await fh.close();
  }
  return tmp;
}

const READ_ONLY = new Set(['EROFS', 'EACCES', 'EPERM']);

export class DataDirLock {
  private constructor(
    readonly dir: string,
    private owner: LockOwner,
    /** False on a folder that takes no writes (see the header). */
    readonly held: boolean,
  ) {}

  get path(): string {
    return join(this.dir, LOCK_FILE);
  }

  /** Takes the folder's lock (creating the folder), or throws DataDirLockedError. */
  static async acquire(
    dir: string,
    opts: { port?: number | null; onTakeover?: (stale: LockOwner | null) => void } = {},
  ): Promise<DataDirLock> {
    const abs = resolve(dir);
    const owner: LockOwner = {
      pid: process.pid,
      host: hostname(),
      port: opts.port ?? null,
      started: new Date().toISOString(),
      bootId: bootId(),
      procStart: procStartOf(process.pid),
    };
    const path = join(abs, LOCK_FILE);
    let tmp: string;
    try {
      await mkdir(abs, { recursive: true });
      tmp = await writeTemp(abs, owner);
    } catch (err) {
      if (READ_ONLY.has((err as NodeJS.ErrnoException).code ?? '')) return new DataDirLock(abs, owner, false);
      throw err;
    }
    try {
      // A few tries: a takeover by another starter may be in progress for a moment.
      for (let attempt = 0; attempt < 50; attempt++) {
        try {
          await link(tmp, path);
          await fsyncDir(abs);
          return new DataDirLock(abs, owner, true);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        }
        const held = await readOwner(path);
        if (!held) continue; // released meanwhile: try again
        if (held.owner && !ownerIsGone(held.owner)) throw new DataDirLockedError(abs, held.owner);
        if (!held.owner) {
          // Unreadable record. Ours are never half-written (link of a complete file), so
          // this is damage: stale if old, else someone's odd write in progress.
          const age = await stat(path).then(
            (s) => Date.now() - s.mtimeMs,
            () => 0,
          );
          if (age < TAKEOVER_STALE_MS) throw new DataDirLockedError(abs, null);
        }
        const took = await takeOver(abs, held.text);
        if (took === 'removed') opts.onTakeover?.(held.owner);
        else if (took === 'busy') await new Promise((r) => setTimeout(r, 20));
      }
      throw new DataDirLockedError(abs, null);
    } finally {
      await unlink(tmp).catch(() => undefined);
    }
  }

  /** Records the port once the host listens (the message for a second host names it). */
  async setPort(port: number): Promise<void> {
    this.owner = { ...this.owner, port };
    if (!this.held) return;
    const tmp = await writeTemp(this.dir, this.owner);
    await rename(tmp, this.path);
    await fsyncDir(this.dir);
  }

  /** Removes the lock if it is still ours. */
  async release(): Promise<void> {
    if (!this.held) return;
    const held = await readOwner(this.path).catch(() => null);
    if (held?.owner?.pid !== this.owner.pid || held.owner.started !== this.owner.started) return;
    await unlink(this.path).catch(() => undefined);
    await fsyncDir(this.dir).catch(() => undefined);
  }
}

/**
 * Removes a stale lock under the takeover guard, only if it still holds `staleText` (what
 * the caller judged stale): 'changed' when it no longer does (look again), 'busy' when
 * another starter holds the guard.
 */
async function takeOver(dir: string, staleText: string): Promise<'removed' | 'changed' | 'busy'> {
  const guard = join(dir, TAKEOVER_DIR);
  try {
    await mkdir(guard);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const age = await stat(guard).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    // A guard left by a host that died mid-takeover: clear it; the next try takes it.
    if (age > TAKEOVER_STALE_MS) await rmdir(guard).catch(() => undefined);
    return 'busy';
  }
  try {
    const now = await readOwner(join(dir, LOCK_FILE));
    if (!now || now.text !== staleText) return 'changed';
    await unlink(join(dir, LOCK_FILE));
    return 'removed';
  } finally {
    await rmdir(guard).catch(() => undefined);
  }
}
