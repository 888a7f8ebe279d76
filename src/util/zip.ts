/**
 * A small, strict zip reader for uploads (a RaceLink folder zipped by the user): reads the
 * central directory, then each entry (stored or deflated) with node:zlib. Guards against
 * hostile archives: entry count, each entry's and the total uncompressed size are capped
 * (a deflate bomb stops at the cap, whatever the header claims), encrypted and ZIP64
 * archives are refused. Entry names are returned as stored; the caller checks the paths.
 */
import { inflateRawSync } from 'node:zlib';

export class ZipError extends Error {
  override readonly name = 'ZipError';
}

export interface ZipLimits {
  maxEntries: number;
  maxEntryBytes: number;
  maxTotalBytes: number;
}

export interface ZipEntry {
  name: string;
  bytes: Buffer;
}

const EOCD = 0x06054b50;
const CEN = 0x02014b50;
const LOC = 0x04034b50;

/** True when the bytes start like a zip archive (a local file header or an empty archive). */
export const looksLikeZip = (b: Uint8Array): boolean =>
  b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && (b[2] === 3 || b[2] === 5) && (b[3] === 4 || b[3] === 6);

function findEnd(buf: Buffer): number {
  const stop = Math.max(0, buf.length - 22 - 0xffff);
  for (let i = buf.length - 22; i >= stop; i--) if (buf.readUInt32LE(i) === EOCD) return i;
  throw new ZipError('not a zip file (no end of central directory)');
}

/** Every file entry (directories skipped), in archive order. */
export function readZip(buf: Buffer, limits: ZipLimits): ZipEntry[] {
  const end = findEnd(buf);
  const count = buf.readUInt16LE(end + 10);
  const cdSize = buf.readUInt32LE(end + 12);
  const cdOffset = buf.readUInt32LE(end + 16);
  if (count === 0xffff || cdOffset === 0xffffffff) throw new ZipError('ZIP64 archives are not supported');
  if (count > limits.maxEntries)
    throw new ZipError(`too many entries (${count}; at most ${limits.maxEntries})`);
  if (cdOffset + cdSize > end) throw new ZipError('damaged zip file (central directory out of range)');
  const out: ZipEntry[] = [];
  let total = 0;
  let p = cdOffset;
  for (let i = 0; i < count; i++) {
    if (p + 46 > end || buf.readUInt32LE(p) !== CEN)
      throw new ZipError('damaged zip file (bad central directory entry)');
    const flags = buf.readUInt16LE(p + 8);
    const method = buf.readUInt16LE(p + 10);
    const compSize = buf.readUInt32LE(p + 20);
    const size = buf.readUInt32LE(p + 24);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    const rawName = buf.subarray(p + 46, p + 46 + nameLen);
    // Bit 11: UTF-8 names; older tools write CP437, close enough to latin1 for ASCII paths.
    const name = rawName.toString(flags & 0x800 ? 'utf8' : 'latin1');
    p += 46 + nameLen + extraLen + commentLen;
    if (name.endsWith('/')) continue;
    if (flags & 0x1) throw new ZipError(`${name}: encrypted entries are not supported`);
    if (size > limits.maxEntryBytes) throw new ZipError(`${name}: larger than ${limits.maxEntryBytes} bytes`);
    total += size;
    if (total > limits.maxTotalBytes)
      throw new ZipError(`more than ${limits.maxTotalBytes} bytes uncompressed`);
    if (local + 30 > buf.length || buf.readUInt32LE(local) !== LOC)
      throw new ZipError(`${name}: damaged zip entry`);
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    if (start + compSize > buf.length) throw new ZipError(`${name}: damaged zip entry (truncated)`);
    const data = buf.subarray(start, start + compSize);
    let bytes: Buffer;
    if (method === 0) bytes = Buffer.from(data);
    else if (method === 8) {
      try {
        bytes = inflateRawSync(data, { maxOutputLength: Math.max(1, size) });
      } catch (err) {
        throw new ZipError(`${name}: cannot be unpacked (${(err as Error).message})`);
      }
    } else throw new ZipError(`${name}: compression method ${method} is not supported (use a standard zip)`);
    if (bytes.length !== size) throw new ZipError(`${name}: size does not match the zip directory`);
    out.push({ name, bytes });
  }
  return out;
}
