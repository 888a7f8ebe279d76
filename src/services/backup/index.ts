/**
 * Backup and restore for the operator (`GET /api/backup`, `POST /api/restore`): one JSON
 * bundle with the state, the LED preset files and the firmware index (the firmware bytes
 * only when asked — they are large and usually still on the new machine's USB stick).
 * Dependency-free by design: JSON opens anywhere and needs no archive code.
 *
 * Restore is validated completely before anything is written; the current state is first
 * saved as `backups/before-restore-<time>.json`; files are written before the state
 * switches in one rename, so a failure half-way leaves the old state in force.
 */
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import type { Clock } from '../../clock.ts';
import { isValidPresetFileName } from '../../domain/led-presets-file.ts';
import { ValidationError } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import { writeFileDurable } from '../../state/durable-write.ts';
import { migrateToCurrent, serializeState } from '../../state/migrations.ts';
import type { Store } from '../../state/store.ts';
import { persistenceError } from '../../state/write-queue.ts';
import type { TaskManager, TaskSnapshot } from '../../tasks/task-manager.ts';
import { validatePresets, type LedPresetsService } from '../led-presets/index.ts';
import { isUploadInfo, sha256, type FirmwareStore, type UploadedFileInfo } from '../ota/index.ts';

export const BACKUP_FORMAT = 'lightnet-backup';

export interface BackupBundle {
  format: typeof BACKUP_FORMAT;
  version: 1;
  created: string;
  state: unknown;
  led_presets: { name: string; text: string }[];
  firmware_index: UploadedFileInfo[];
  /** Only with `?firmware=1`: the uploaded files, base64. */
  firmware_files?: { id: string; data_base64: string }[];
}

const bundleSchema = z.object({
  format: z.literal(BACKUP_FORMAT, { error: 'not a Lightnet backup file' }),
  version: z.literal(1, { error: 'unsupported backup version' }),
  state: z.record(z.string(), z.unknown(), { error: 'missing state' }),
  led_presets: z.array(z.object({ name: z.string(), text: z.string() })).default([]),
  firmware_index: z.array(z.unknown()).default([]),
  firmware_files: z.array(z.object({ id: z.string(), data_base64: z.string() })).default([]),
});

export interface BackupDeps {
  dataDir: string;
  store: Store;
  tasks: TaskManager;
  ledPresets: LedPresetsService;
  firmware: FirmwareStore;
  clock: Clock;
  log: Logger;
  /**
   * Starts a status poll of these devices (the restored ones this host has not heard), or
   * returns null when it cannot now (no gateway link): a restore then shows them offline
   * only until they answer, not until someone thinks of polling.
   */
  pollUnheard?: (addrs: string[]) => TaskSnapshot | null;
}

export class BackupService {
  constructor(private readonly d: BackupDeps) {}

  /** The bundle (state made durable first, so it is what a restart would load). */
  async create(withFirmware: boolean): Promise<BackupBundle> {
    await this.d.store.save();
    const index = this.d.firmware.list();
    const bundle: BackupBundle = {
      format: BACKUP_FORMAT,
      version: 1,
      created: new Date(this.d.clock.now()).toISOString(),
      state: JSON.parse(serializeState(this.d.store.state)) as unknown,
      led_presets: await this.d.ledPresets.exportFiles(),
      firmware_index: index,
    };
    if (withFirmware) {
      bundle.firmware_files = [];
      for (const e of index)
        bundle.firmware_files.push({
          id: e.id,
          data_base64: (await this.d.firmware.readBlob(e)).toString('base64'),
        });
    }
    return bundle;
  }

  /** File name for a download: `lightnet-backup-YYYYMMDD-HHMMSS.json` (UTC). */
  fileName(): string {
    const t = new Date(this.d.clock.now()).toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
    return `lightnet-backup-${t}.json`;
  }

  /**
   * Keeps what is here now as `backups/before-<what>-<time>.json` (a backup bundle, so it
   * can be restored), durably; the path relative to the data dir. Throws PersistenceError.
   */
  async keepCurrent(what: 'restore' | 'import'): Promise<string> {
    const t = this.fileName().slice('lightnet-backup-'.length, -'.json'.length);
    const dir = join(this.d.dataDir, 'backups');
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const taken = new Set(await readdir(dir));
      let keptAs = `before-${what}-${t}.json`;
      for (let n = 1; taken.has(keptAs); n++) keptAs = `before-${what}-${t}-${n}.json`;
      const current = JSON.stringify(await this.create(false));
      await writeFileDurable(join(dir, keptAs), current, { mode: 0o600 });
      return join('backups', keptAs);
    } catch (err) {
      throw persistenceError(err, `current state not saved before the ${what}`);
    }
  }

  async restore(body: unknown): Promise<{
    kept_as: string;
    devices: number;
    groups: number;
    led_presets: number;
    firmware: number;
    status_task: TaskSnapshot | null;
  }> {
    this.d.tasks.assertIdle();
    const parsed = bundleSchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ValidationError(`${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid backup'}`);
    }
    const b = parsed.data;
    let state;
    try {
      state = migrateToCurrent(b.state).state;
    } catch (err) {
      throw new ValidationError(`state: ${(err as Error).message}`);
    }
    const presets = b.led_presets.map((f, i) => {
      if (!isValidPresetFileName(f.name))
        throw new ValidationError(`led_presets.${i}.name: invalid file name`);
      const bytes = Buffer.from(f.text, 'utf8');
      validatePresets(bytes, `led_presets.${i}.text`);
      return { name: f.name, bytes };
    });
    const index = b.firmware_index.map((e, i) => {
      if (!isUploadInfo(e)) throw new ValidationError(`firmware_index.${i}: not an upload entry`);
      return e;
    });
    const blobs = new Map<string, Buffer>();
    b.firmware_files.forEach((f, i) => {
      const e = index.find((x) => x.id === f.id);
      const bytes = Buffer.from(f.data_base64, 'base64');
      if (!e || sha256(bytes) !== e.sha256)
        throw new ValidationError(`firmware_files.${i}: does not match its firmware_index entry`);
      blobs.set(f.id, bytes);
    });

    // Everything checked: keep what is here now, then write files, then switch the state.
    const keptAs = await this.keepCurrent('restore');
    await this.d.ledPresets.restoreFiles(presets);
    const firmware = await this.d.firmware.restore(index, blobs);
    await this.d.store.replace(state);
    await this.d.ledPresets.reloadActive();
    this.d.log.warn({ kept_as: keptAs, devices: state.devices.length }, 'backup restored');
    // Devices this host knew keep their live state (Store.replace); the others are polled.
    const unheard = this.d.store.state.devices.filter((d) => !d.online).map((d) => d.addr);
    const statusTask = unheard.length > 0 ? (this.d.pollUnheard?.(unheard) ?? null) : null;
    return {
      kept_as: keptAs,
      devices: state.devices.length,
      groups: state.groups.length,
      led_presets: presets.length,
      firmware,
      // Extra field: the status poll started for the restored devices not heard yet.
      status_task: statusTask,
    };
  }
}

export function createBackup(d: BackupDeps): BackupService {
  return new BackupService({ ...d, log: d.log.child({ mod: 'backup' }) });
}
