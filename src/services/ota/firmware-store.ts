/**
 * Uploaded firmware and cfg.json files (`POST /api/fw/upload`, ota.md §1.2, decisions §13).
 * Files live in `<data-dir>/firmware/` (0700) as `<id>.bin` / `<id>.json` (0600) with a
 * persisted `index.json`; ids are random, names are display text only. Content is checked
 * before anything is written; at most MAX_FILES files are kept (oldest unpinned first).
 */
import { createHash } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../clock.ts';
import { FirmwareImageError, inspectFirmware, type FirmwareImageInfo } from '../../domain/firmware-image.ts';
import { decodeUtf8, parseJsonObject, PresetsFileError } from '../../domain/led-presets-file.ts';
import { NotFoundError, ValidationError } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import { writeFileDurable } from '../../state/durable-write.ts';
import { persistenceError } from '../../state/write-queue.ts';
import { displayName, newUploadId, UPLOAD_ID } from '../../domain/upload-names.ts';

export type UploadKind = 'firmware' | 'cfg';

export interface UploadedFileInfo {
  id: string;
  kind: UploadKind;
  name: string;
  size: number;
  sha256: string;
  uploaded_ts: number;
  /** Firmware only: what the image header says (extra field). */
  image?: Omit<FirmwareImageInfo, 'warnings'>;
  /** Non-fatal findings (e.g. no WLED release metadata, cfg that changes the node's AP). */
  warnings?: string[];
}

export const UPLOAD_LIMITS = {
  firmware: { min: 1024, max: 8 * 1024 * 1024 },
  cfg: { min: 2, max: 256 * 1024 },
} as const;
export const MAX_UPLOADS = 20;

const MIME_OK: Record<UploadKind, readonly string[]> = {
  firmware: [
    'application/octet-stream',
    'application/x-binary',
    'application/macbinary',
    'application/mac-binary',
    'application/x-msdownload',
  ],
  cfg: ['application/json', 'text/json', 'text/plain', 'application/octet-stream'],
};

export const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

export function parseKind(raw: unknown): UploadKind {
  const k = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
  if (k === 'firmware' || k === 'cfg') return k;
  if (!k) throw new ValidationError('kind: missing kind (expected firmware or cfg)');
  throw new ValidationError('kind: invalid kind (expected firmware or cfg)');
}

export class FirmwareStore {
  readonly dir: string;
  private index: UploadedFileInfo[] = [];
  private readonly pinned = new Map<string, number>();
  private writing: Promise<unknown> = Promise.resolve();
  /** One upload at a time: the index and the retention see every add in order. */
  private adding: Promise<unknown> = Promise.resolve();

  constructor(
    dataDir: string,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {
    this.dir = join(dataDir, 'firmware');
  }

  /** Loads the index; entries without a file are dropped, files without an entry deleted. */
  async init(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await chmod(this.dir, 0o700).catch(() => undefined);
    let entries: UploadedFileInfo[] = [];
    let indexOk = true;
    try {
      const raw = JSON.parse(await readFile(join(this.dir, 'index.json'), 'utf8')) as unknown;
      if (Array.isArray(raw)) entries = raw.filter(isInfo);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        indexOk = false;
        this.log.warn(
          { err: (err as Error).message },
          'firmware index unreadable; uploads must be added again',
        );
      }
    }
    const files = new Set(await readdir(this.dir));
    // An entry counts only with its file at the recorded size (a truncated file is not the upload).
    const sizeOk = async (e: UploadedFileInfo): Promise<boolean> =>
      (await stat(join(this.dir, fileOf(e))).catch(() => null))?.size === e.size;
    this.index = [];
    for (const e of entries) if (files.has(fileOf(e)) && (await sizeOk(e))) this.index.push(e);
    const known = new Set(this.index.map(fileOf));
    for (const f of files) {
      if (f === 'index.json' || known.has(f)) continue;
      // Temp files of an interrupted write always go; other files only with a readable index.
      if (!indexOk && !f.includes('.tmp-')) continue;
      await unlink(join(this.dir, f)).catch(() => undefined);
      this.log.info({ file: f }, 'removed orphan upload file');
    }
    if (this.index.length !== entries.length) await this.saveIndex();
  }

  /** Newest first. */
  list(): UploadedFileInfo[] {
    return [...this.index].sort((a, b) => b.uploaded_ts - a.uploaded_ts).map((e) => ({ ...e }));
  }

  /** Validates and stores one upload (ota.md §1.2 order: kind → size → type → content). */
  add(input: {
    kind: UploadKind;
    bytes: Buffer;
    clientName?: string;
    mime?: string;
  }): Promise<UploadedFileInfo> {
    const run = this.adding.then(
      () => this.addLocked(input),
      () => this.addLocked(input),
    );
    this.adding = run.catch(() => undefined);
    return run;
  }

  private async addLocked(input: {
    kind: UploadKind;
    bytes: Buffer;
    clientName?: string;
    mime?: string;
  }): Promise<UploadedFileInfo> {
    const { kind, bytes } = input;
    const lim = UPLOAD_LIMITS[kind];
    if (bytes.length > lim.max) throw new ValidationError(`file: file too large (max ${lim.max} bytes)`);
    if (bytes.length < lim.min) throw new ValidationError(`file: file too small (min ${lim.min} bytes)`);
    const mime = (input.mime ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (mime && !MIME_OK[kind].includes(mime))
      throw new ValidationError(`file: unsupported content type ${mime} for kind ${kind}`);
    const info: UploadedFileInfo = {
      id: newUploadId(),
      kind,
      name: displayName(input.clientName, kind === 'firmware' ? 'firmware.bin' : 'cfg.json'),
      size: bytes.length,
      sha256: sha256(bytes),
      uploaded_ts: this.clock.now() / 1000,
    };
    if (kind === 'firmware') {
      try {
        const { warnings, ...image } = inspectFirmware(bytes);
        info.image = image;
        if (warnings.length) info.warnings = warnings;
      } catch (err) {
        if (err instanceof FirmwareImageError) throw new ValidationError(`file: ${err.message}`);
        throw err;
      }
    } else {
      const warnings = checkCfg(bytes);
      if (warnings.length) info.warnings = warnings;
    }
    // The same file again (e.g. picked twice in the UI): one entry, newest name and time.
    const same = this.index.find((e) => e.kind === kind && e.sha256 === info.sha256);
    if (same) {
      const before = { name: same.name, uploaded_ts: same.uploaded_ts };
      try {
        await this.writeBlob(same, bytes);
        Object.assign(same, { name: info.name, uploaded_ts: info.uploaded_ts });
        await this.saveIndex();
      } catch (err) {
        Object.assign(same, before);
        throw persistenceError(err, 'upload not stored');
      }
      this.log.info({ id: same.id, kind }, 'upload identical to a stored one; entry refreshed');
      return { ...same };
    }
    try {
      await this.writeBlob(info, bytes);
    } catch (err) {
      throw persistenceError(err, 'upload not stored');
    }
    this.index.push(info);
    const evicted = await this.enforceRetention();
    try {
      await this.saveIndex();
    } catch (err) {
      // Never listed when not stored: the entry and its file go again.
      this.index = this.index.filter((e) => e !== info);
      this.index.push(...evicted.filter((e) => !this.index.includes(e)));
      await unlink(join(this.dir, fileOf(info))).catch(() => undefined);
      throw persistenceError(err, 'upload not stored');
    }
    for (const e of evicted) await unlink(join(this.dir, fileOf(e))).catch(() => undefined);
    this.log.info({ id: info.id, kind, size: info.size, sha256: info.sha256 }, 'upload stored');
    return { ...info };
  }

  /** The upload's bytes, durably; the size on disk is checked against the bytes received. */
  private writeBlob(e: Pick<UploadedFileInfo, 'id' | 'kind'>, bytes: Buffer): Promise<void> {
    return writeFileDurable(join(this.dir, fileOf(e)), bytes, { mode: 0o600 });
  }

  /**
   * The entry of `id` of the given kind, with its bytes re-read and re-hashed (the bytes
   * flashed are exactly the bytes verified here).
   */
  async load(
    id: unknown,
    kind: UploadKind,
    field: string,
  ): Promise<{ info: UploadedFileInfo; bytes: Buffer }> {
    const missing = `${field}: ${kind === 'firmware' ? 'firmware' : 'cfg'} file not uploaded`;
    if (id === undefined || id === null || id === '')
      throw new ValidationError(
        `${field}: required when ${kind === 'firmware' ? 'doFirmware' : 'doCfg'} is true (an id from GET /api/fw/uploads)`,
      );
    if (typeof id !== 'string' || !UPLOAD_ID.test(id)) throw new ValidationError(missing);
    const other = this.index.find((e) => e.id === id && e.kind !== kind);
    if (other) throw new ValidationError(`${missing} (${id} is a ${other.kind} upload)`);
    const info = this.index.find((e) => e.id === id && e.kind === kind);
    if (!info) throw new ValidationError(missing);
    let bytes: Buffer;
    try {
      bytes = await readFile(join(this.dir, fileOf(info)));
    } catch {
      throw new ValidationError(missing);
    }
    if (sha256(bytes) !== info.sha256) throw new ValidationError(`${field}: uploaded file changed on disk`);
    return { info: { ...info }, bytes };
  }

  /** Keeps files used by a running task out of retention; returns the release function. */
  pin(ids: readonly string[]): () => void {
    for (const id of ids) this.pinned.set(id, (this.pinned.get(id) ?? 0) + 1);
    return () => {
      for (const id of ids) {
        const n = (this.pinned.get(id) ?? 1) - 1;
        if (n <= 0) this.pinned.delete(id);
        else this.pinned.set(id, n);
      }
    };
  }

  require(id: string): UploadedFileInfo {
    const e = this.index.find((x) => x.id === id);
    if (!e) throw new NotFoundError(`upload not found: ${id}`);
    return e;
  }

  /** Drops the oldest unpinned entries beyond MAX_UPLOADS; their files go once the index is saved. */
  private async enforceRetention(): Promise<UploadedFileInfo[]> {
    const evicted: UploadedFileInfo[] = [];
    const byAge = [...this.index].sort((a, b) => a.uploaded_ts - b.uploaded_ts);
    for (const e of byAge) {
      if (this.index.length <= MAX_UPLOADS) break;
      if (this.pinned.has(e.id)) continue;
      this.index = this.index.filter((x) => x !== e);
      evicted.push(e);
      this.log.info({ id: e.id, kind: e.kind }, 'upload evicted (retention)');
    }
    return evicted;
  }

  /** Writes the index; a failed write does not poison later ones (each starts afresh). */
  private saveIndex(): Promise<void> {
    const data = JSON.stringify(this.index, null, 1);
    const write = (): Promise<void> => writeFileDurable(join(this.dir, 'index.json'), data, { mode: 0o600 });
    const run = this.writing.then(write, write);
    this.writing = run.catch(() => undefined);
    return run;
  }
}

const fileOf = (e: Pick<UploadedFileInfo, 'id' | 'kind'>): string =>
  `${e.id}.${e.kind === 'firmware' ? 'bin' : 'json'}`;

function isInfo(x: unknown): x is UploadedFileInfo {
  const e = x as UploadedFileInfo;
  return (
    typeof e === 'object' &&
    e !== null &&
    typeof e.id === 'string' &&
    UPLOAD_ID.test(e.id) &&
    (e.kind === 'firmware' || e.kind === 'cfg') &&
    typeof e.sha256 === 'string' &&
    typeof e.size === 'number' &&
    typeof e.uploaded_ts === 'number' &&
    typeof e.name === 'string'
  );
}

/** cfg.json must be a JSON object; warnings when it looks unlike WLED's or would change the node AP. */
export function checkCfg(bytes: Uint8Array): string[] {
  let root: Record<string, unknown>;
  try {
    root = parseJsonObject(decodeUtf8(bytes, 'cfg.json'), 'cfg.json');
  } catch (err) {
    if (err instanceof PresetsFileError) throw new ValidationError(`file: ${err.message}`);
    throw err;
  }
  const warnings: string[] = [];
  const missing = ['rev', 'id', 'nw', 'ap', 'hw'].filter((k) => !(k in root));
  if (missing.length) warnings.push(`cfg.json lacks the usual WLED keys: ${missing.join(', ')}`);
  const ap = root.ap as Record<string, unknown> | undefined;
  if (ap && typeof ap === 'object' && ('ssid' in ap || 'behav' in ap)) {
    warnings.push('cfg.json sets ap.ssid / ap.behav: this may break later over-the-air updates');
  }
  return warnings;
}
