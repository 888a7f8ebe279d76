/**
 * LED-controller preset files (`/api/presets/*`, ota.md §2, decisions §14): WLED
 * `presets.json` files kept in `<data-dir>/led-presets/` under generated names, the active
 * one (persisted in the state settings) and the dropdown options derived from it.
 */
import { chmod, mkdir, readdir, readFile, stat, unlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../clock.ts';
import {
  isValidPresetFileName,
  parsePresetsFile,
  presetFileName,
  PresetsFileError,
  type LedPresetEntry,
} from '../../domain/led-presets-file.ts';
import { NotFoundError, ValidationError } from '../../errors.ts';
import type { EventBus } from '../../events.ts';
import type { Logger } from '../../logger.ts';
import { writeFileDurable } from '../../state/durable-write.ts';
import { persistenceError } from '../../state/write-queue.ts';
import type { Store } from '../../state/store.ts';

export const PRESETS_MAX_BYTES = 512 * 1024;

export interface PresetFileInfo {
  name: string;
  size: number;
  saved_ts: number;
}

export class LedPresetsService {
  readonly dir: string;
  private entries: LedPresetEntry[] = [];
  private active: string | null = null;
  /** One file write at a time: a name is chosen and taken under it. */
  private writing: Promise<unknown> = Promise.resolve();

  constructor(
    dataDir: string,
    private readonly store: Store,
    private readonly bus: EventBus,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {
    this.dir = join(dataDir, 'led-presets');
  }

  /** Start-up: the stored active file, else the newest file (made active), else none. */
  async init(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await chmod(this.dir, 0o700).catch(() => undefined);
    // Temp files of a write interrupted by a crash are never listed; remove them.
    for (const name of await readdir(this.dir).catch(() => [] as string[])) {
      if (name.includes('.tmp-')) await unlink(join(this.dir, name)).catch(() => undefined);
    }
    const stored = this.store.state.settings.led_presets_file;
    const files = await this.files();
    const candidates = [stored, ...files.map((f) => f.name)].filter(
      (n): n is string => typeof n === 'string' && files.some((f) => f.name === n),
    );
    for (const name of candidates) {
      try {
        this.entries = parsePresetsFile(await readFile(join(this.dir, name)));
        this.active = name;
        break;
      } catch (err) {
        this.log.warn({ name, err: (err as Error).message }, 'preset file unreadable at start');
      }
    }
    if (!this.active) this.entries = [];
    if (this.active !== stored) {
      this.store.mutate(['LED_PRESETS'], (s) => (s.settings.led_presets_file = this.active));
    }
  }

  /** `{value, label}` dropdown options from the active file; [] when none is active. */
  options(): { value: string; label: string }[] {
    return this.entries.map((e) => ({ value: String(e.id), label: e.name }));
  }

  /** The active preset file's presets as `{id, name}` (ids 1..255), for pickers in other features. */
  ledPresetOptions(): { id: number; name: string }[] {
    return this.entries.map((e) => ({ ...e }));
  }

  current(): string | null {
    return this.active;
  }

  async list(): Promise<{ files: PresetFileInfo[]; current: string }> {
    const files = await this.files();
    const current =
      this.active && files.some((f) => f.name === this.active) ? this.active : (files[0]?.name ?? '');
    return { files, current };
  }

  /** Stores an uploaded file; the first file ever uploaded becomes active. */
  async upload(bytes: Buffer): Promise<{ file: PresetFileInfo; files: PresetFileInfo[] }> {
    const entries = validatePresets(bytes, 'file');
    const file = await this.write(bytes);
    if (!this.active) this.activate(file.name, entries);
    else this.bus.emit('scopes', ['LED_PRESETS']);
    return { file, files: (await this.list()).files };
  }

  /** Stores a file downloaded from a node (not made active); LED_PRESETS is emitted. */
  async saveDownloaded(bytes: Buffer): Promise<PresetFileInfo> {
    validatePresets(bytes, 'presets.json');
    const file = await this.write(bytes);
    this.bus.emit('scopes', ['LED_PRESETS']);
    return file;
  }

  async select(name: unknown): Promise<string> {
    const bytes = await this.read(name);
    let entries: LedPresetEntry[];
    try {
      entries = parsePresetsFile(bytes);
    } catch {
      throw new ValidationError('name: failed to parse presets.json');
    }
    this.activate(name as string, entries);
    return name as string;
  }

  /** Raw bytes of a stored file; anything not matching the name rules is "not found". */
  async read(name: unknown): Promise<Buffer> {
    if (!isValidPresetFileName(name)) throw new NotFoundError('presets file not found');
    try {
      return await readFile(join(this.dir, name));
    } catch {
      throw new NotFoundError('presets file not found');
    }
  }

  private activate(name: string, entries: LedPresetEntry[]): void {
    this.entries = entries;
    this.active = name;
    this.store.mutate(['LED_PRESETS'], (s) => (s.settings.led_presets_file = name));
    this.log.info({ name, presets: entries.length }, 'LED preset file active');
  }

  /**
   * Writes under a fresh generated name (durable, 0600; never over an existing file: two
   * uploads in the same second get `_1`, `_2`, …); the saved time becomes the mtime.
   */
  private write(bytes: Buffer): Promise<PresetFileInfo> {
    const run = this.writing.then(
      () => this.writeLocked(bytes),
      () => this.writeLocked(bytes),
    );
    this.writing = run.catch(() => undefined);
    return run;
  }

  private async writeLocked(bytes: Buffer): Promise<PresetFileInfo> {
    const now = this.clock.now();
    const existing = new Set(await readdir(this.dir));
    for (let attempt = 0; ; attempt++) {
      const name = presetFileName(new Date(now), attempt);
      if (existing.has(name)) continue;
      const path = join(this.dir, name);
      try {
        await writeFileDurable(path, bytes, { mode: 0o600, noClobber: true });
      } catch (err) {
        // Taken meanwhile (another process on the same dir): the next name.
        if ((err as NodeJS.ErrnoException).code === 'EEXIST' && attempt < 1000) continue;
        throw persistenceError(err, 'preset file not stored');
      }
      await utimes(path, now / 1000, now / 1000).catch(() => undefined);
      this.log.info({ name, size: bytes.length }, 'preset file stored');
      return { name, size: bytes.length, saved_ts: now / 1000 };
    }
  }

  /** Every stored `*.json` (no dot-files), newest first. */
  private async files(): Promise<PresetFileInfo[]> {
    const out: PresetFileInfo[] = [];
    for (const name of await readdir(this.dir).catch(() => [] as string[])) {
      if (!isValidPresetFileName(name)) continue;
      try {
        const s = await stat(join(this.dir, name));
        if (s.isFile()) out.push({ name, size: s.size, saved_ts: s.mtimeMs / 1000 });
      } catch {
        /* vanished meanwhile */
      }
    }
    return out.sort((a, b) => b.saved_ts - a.saved_ts || (a.name < b.name ? 1 : -1));
  }
}

/** Size cap, UTF-8, JSON object, parse of §2.2 (zero presets allowed). */
export function validatePresets(bytes: Buffer, field: string): LedPresetEntry[] {
  if (bytes.length > PRESETS_MAX_BYTES)
    throw new ValidationError(`${field}: file too large (max ${PRESETS_MAX_BYTES} bytes)`);
  if (bytes.length === 0) throw new ValidationError(`${field}: file is empty`);
  try {
    return parsePresetsFile(bytes);
  } catch (err) {
    if (err instanceof PresetsFileError) throw new ValidationError(`${field}: ${err.message}`);
    throw err;
  }
}
