/**
 * Durable file writes of our own (write-file-atomic ignores a short write on a full disk
 * and so can rename a truncated file over the good one). Every byte count is checked, the
 * file is fsynced before the rename and the directory after it, and a failed write leaves
 * the previous file untouched (its temp file is removed).
 */
import { randomBytes } from 'node:crypto';
import { link, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** The one write primitive, injectable so tests can simulate short writes and full disks. */
export type WriteFn = (
  fh: FileHandle,
  buf: Uint8Array,
  offset: number,
  length: number,
  position: number | null,
) => Promise<{ bytesWritten: number }>;

export const defaultWrite: WriteFn = (fh, buf, offset, length, position) =>
  fh.write(buf, offset, length, position);

/** An errno-style error (code is what callers and the HTTP layer act on). */
export function ioError(code: string, message: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`${code}: ${message}`);
  err.code = code;
  return err;
}

/**
 * Writes all of `buf` at `position` (null: at the file position), looping over partial
 * writes. A write that makes no progress is a full disk: ENOSPC, never silent success.
 */
export async function writeAll(
  fh: FileHandle,
  buf: Uint8Array,
  position: number | null,
  write: WriteFn = defaultWrite,
): Promise<void> {
  let done = 0;
  while (done < buf.length) {
    const { bytesWritten } = await write(
      fh,
      buf,
      done,
      buf.length - done,
      position === null ? null : position + done,
    );
    if (!Number.isInteger(bytesWritten) || bytesWritten <= 0 || bytesWritten > buf.length - done) {
      throw ioError('ENOSPC', `short write (${done} of ${buf.length} bytes written)`);
    }
    done += bytesWritten;
  }
}

/** fsync of a directory, so a rename or a new file in it survives a power cut. */
export async function fsyncDir(dir: string): Promise<void> {
  let fh: FileHandle | null = null;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch (err) {
    // Some filesystems refuse fsync on a directory (EINVAL/EISDIR): nothing more we can do there.
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'EISDIR' && code !== 'ENOTSUP') throw err;
  } finally {
    await fh?.close().catch(() => undefined);
  }
}

export interface DurableWriteOptions {
  mode?: number;
  /** Rotate the current file (if any) to this path before the new one takes its place. */
  backupPath?: string;
  /** Never replace an existing `path`: fail with EEXIST instead (unique upload names). */
  noClobber?: boolean;
  write?: WriteFn;
}

export const tempPrefix = (path: string): string => `${basename(path)}.tmp-`;

/**
 * Writes `data` to `path` durably: temp file in the same directory (exclusive create),
 * every byte checked, fsync, close, optional rotation of the current file to
 * `backupPath` (a hard link renamed over the old backup: the backup is the previous
 * file, never rewritten), rename (or link, with `noClobber`), fsync of the directory.
 */
export async function writeFileDurable(
  path: string,
  data: string | Uint8Array,
  opts: DurableWriteOptions = {},
): Promise<void> {
  const dir = dirname(path);
  const tmp = join(dir, `${tempPrefix(path)}${process.pid}-${randomBytes(4).toString('hex')}`);
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const fh = await open(tmp, 'wx', opts.mode ?? 0o644);
  let renamed = false;
  try {
    try {
      await writeAll(fh, buf, 0, opts.write);
      await fh.sync();
      const size = (await fh.stat()).size;
      if (size !== buf.length) throw ioError('EIO', `file size ${size} after writing ${buf.length} bytes`);
    } finally {
      await fh.close();
    }
    if (opts.backupPath) await rotate(path, opts.backupPath);
    if (opts.noClobber) {
      // link() refuses an existing name, atomically; the temp name is removed below.
      await link(tmp, path);
    } else {
      await rename(tmp, path);
      renamed = true;
    }
    await fsyncDir(dir);
  } finally {
    if (!renamed) await unlink(tmp).catch(() => undefined);
  }
}

/** Makes the current `path` (if it exists) the backup, without rewriting its bytes. */
async function rotate(path: string, backupPath: string): Promise<void> {
  const staged = `${backupPath}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await link(path, staged);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    // A filesystem without hard links: move the file itself (the journal covers the gap).
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'EXDEV') {
      await rename(path, backupPath);
      return;
    }
    throw err;
  }
  try {
    await rename(staged, backupPath);
  } catch (err) {
    await unlink(staged).catch(() => undefined);
    throw err;
  }
}
