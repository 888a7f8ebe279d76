/**
 * The append-only change journal (`state.journal`, JSON lines). One line per group commit:
 * `{"seq":N,"crc":"<crc32 of ops>","ops":[…]}`. An append writes every byte at the known
 * end of the file and fdatasyncs it; a failed append is cut off again (ftruncate) so the
 * file never holds a half line followed by good ones. Reading stops at the first line that
 * is incomplete or fails its checksum (the torn tail of a crash mid-append).
 */
import { open, type FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { dirname } from 'node:path';
import {
  defaultWrite,
  fsyncDir,
  ioError,
  writeAll,
  writeFileDurable,
  type WriteFn,
} from './durable-write.ts';
import type { SectionOp } from './state-diff.ts';

export interface JournalRecord {
  seq: number;
  ops: SectionOp[];
}

export interface JournalRead {
  records: JournalRecord[];
  /** Raw line text per record (kept for the rewrite after a compaction). */
  lines: string[];
  /** Bytes of the file that hold whole, valid records. */
  goodBytes: number;
  /** Set when something after the good part could not be read: what and where. */
  damage: { line: number; reason: string; trailing: boolean } | null;
}

const LINE = /^\{"seq":(\d+),"crc":"([0-9a-f]{8})","ops":(.*)\}$/;
const hex8 = (n: number): string => n.toString(16).padStart(8, '0');

export function encodeRecord(seq: number, ops: readonly SectionOp[]): string {
  const body = JSON.stringify(ops);
  return `{"seq":${seq},"crc":"${hex8(crc32(body))}","ops":${body}}\n`;
}

export function decodeRecord(line: string): JournalRecord | string {
  const m = LINE.exec(line);
  if (!m) return 'not a journal record';
  const body = m[3] as string;
  if (hex8(crc32(body)) !== m[2]) return 'checksum mismatch';
  try {
    const ops = JSON.parse(body) as unknown;
    if (!Array.isArray(ops)) return 'ops is not a list';
    return { seq: Number(m[1]), ops: ops as SectionOp[] };
  } catch {
    return 'invalid JSON';
  }
}

/** Parses a journal file's text; sequence numbers must rise by one from line to line. */
export function parseJournal(text: string): JournalRead {
  const out: JournalRead = { records: [], lines: [], goodBytes: 0, damage: null };
  let pos = 0;
  let n = 0;
  while (pos < text.length) {
    n++;
    const end = text.indexOf('\n', pos);
    if (end < 0) {
      out.damage = { line: n, reason: 'incomplete last line', trailing: true };
      break;
    }
    const line = text.slice(pos, end);
    const rec = decodeRecord(line);
    const prev = out.records[out.records.length - 1];
    const reason =
      typeof rec === 'string'
        ? rec
        : prev && rec.seq !== prev.seq + 1
          ? `sequence jumps to ${rec.seq}`
          : null;
    if (reason !== null || typeof rec === 'string') {
      out.damage = { line: n, reason: reason ?? 'unreadable', trailing: text.indexOf('\n', end + 1) < 0 };
      break;
    }
    out.records.push(rec);
    out.lines.push(line + '\n');
    pos = end + 1;
    out.goodBytes = Buffer.byteLength(text.slice(0, pos), 'utf8');
  }
  return out;
}

/** The open journal file: appends at a known size, truncates a failed append away. */
export class JournalFile {
  private fh: FileHandle | null = null;
  private size = 0;
  /** A failed append could not be cut off: only a rewrite may touch the file again. */
  private broken = false;

  constructor(
    readonly path: string,
    private readonly write: WriteFn = defaultWrite,
  ) {}

  get bytes(): number {
    return this.size;
  }

  get needsRewrite(): boolean {
    return this.broken;
  }

  /**
   * Appends will go after `goodBytes` (anything beyond, a torn tail, is cut off at the
   * first append). Opening is deferred to that append, so a read-only data dir still loads.
   */
  async open(goodBytes: number): Promise<void> {
    await this.close();
    this.size = goodBytes;
    this.broken = false;
  }

  /** Appends whole lines and makes them durable; on failure the file is as before. */
  async append(text: string): Promise<void> {
    if (this.broken) throw ioError('EIO', 'journal needs a rewrite after a failed append');
    const buf = Buffer.from(text, 'utf8');
    if (!this.fh) {
      const fh = await open(this.path, 'r+').catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT' || this.size > 0) throw err;
        return open(this.path, 'wx', 0o600).then(async (created) => {
          await fsyncDir(dirname(this.path)); // the new name must survive a power cut too
          return created;
        });
      });
      try {
        if ((await fh.stat()).size !== this.size) {
          await fh.truncate(this.size);
          await fh.datasync();
        }
      } catch (err) {
        await fh.close().catch(() => undefined);
        throw err;
      }
      this.fh = fh;
    }
    const fh = this.fh;
    try {
      await writeAll(fh, buf, this.size, this.write);
      await fh.datasync();
      this.size += buf.length;
    } catch (err) {
      try {
        await fh.truncate(this.size);
        await fh.datasync();
      } catch {
        this.broken = true;
      }
      throw err;
    }
  }

  /** Replaces the file with `text` (durably, via a temp file) and appends after it. */
  async rewrite(text: string): Promise<void> {
    await this.close();
    await writeFileDurable(this.path, text, { mode: 0o600, write: this.write });
    this.fh = await open(this.path, 'r+');
    this.size = Buffer.byteLength(text, 'utf8');
    this.broken = false;
  }

  async close(): Promise<void> {
    const fh = this.fh;
    this.fh = null;
    await fh?.close().catch(() => undefined);
  }
}
