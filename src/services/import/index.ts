/**
 * Importing a RaceLink data folder into the running state (`POST /api/import/racelink`, and
 * the `npm run import` CLI, which builds the same service over the data dir). The mapping is
 * the pure planner (domain/racelink); this service only reads what is stored, keeps a backup
 * of it, writes the LED preset files and commits the state through the Store (so the change
 * is journalled and fsynced like any operator change, and SSE refreshes go out). A dry run
 * writes nothing. A bad folder throws before anything is written.
 */
import type { Clock } from '../../clock.ts';
import { isoSeconds } from '../../domain/scenes/keys.ts';
import { planImport } from '../../domain/racelink/plan.ts';
import type { ImportReport, RaceLinkFile } from '../../domain/racelink/types.ts';
import type { StateModel } from '../../domain/model.ts';
import type { Logger } from '../../logger.ts';
import type { Store } from '../../state/store.ts';
import type { Scope } from '../../state/scopes.ts';
import type { TaskManager } from '../../tasks/task-manager.ts';
import type { BackupService } from '../backup/index.ts';
import type { LedPresetsService } from '../led-presets/index.ts';

export { formatReport } from '../../domain/racelink/report.ts';
export { readRaceLinkFolder } from './read-folder.ts';
export { RaceLinkImportError, type ImportReport, type RaceLinkFile } from '../../domain/racelink/types.ts';

export interface ImportDeps {
  store: Store;
  tasks: Pick<TaskManager, 'assertIdle'>;
  ledPresets: LedPresetsService;
  backup: Pick<BackupService, 'keepCurrent'>;
  clock: Clock;
  log: Logger;
}

export interface ImportRequest {
  files: readonly RaceLinkFile[];
  dryRun: boolean;
  /** Import this snapshot of `rl_state_backups/` instead of the current state. */
  backup?: string;
  /** The folder in messages (a path, or "the upload"). */
  label?: string;
}

export interface ImportResult {
  dry_run: boolean;
  report: ImportReport;
  /** Where the state before the import was kept (relative to the data dir); null when nothing was written. */
  kept_as: string | null;
  /**
   * True when the import wrote, yet there was nothing to keep: the state before held no
   * device, group, preset, scene or LED preset file (a fresh data folder), so no backup of
   * it was written — a backup of nothing would only claim a safety net that is not there.
   */
  nothing_to_keep: boolean;
}

/**
 * Whether the parts of the state an import changes (its SCOPES) hold nothing yet. Networks
 * and console settings are not changed by an import, so they need no backup either.
 */
function importsOntoNothing(s: StateModel, storedLedFiles: number): boolean {
  return (
    s.devices.length === 0 &&
    s.groups.length === 0 &&
    s.native_presets.length === 0 &&
    s.scenes.length === 0 &&
    s.settings.led_presets_file === null &&
    storedLedFiles === 0
  );
}

const SCOPES: Scope[] = ['DEVICES', 'DEVICE_MEMBERSHIP', 'GROUPS', 'NATIVE_PRESETS', 'SCENES', 'LED_PRESETS'];

export class RaceLinkImportService {
  /** One import at a time: a second would plan against a state the first is changing. */
  private running: Promise<unknown> = Promise.resolve();

  constructor(private readonly d: ImportDeps) {}

  run(req: ImportRequest): Promise<ImportResult> {
    const next = this.running.then(
      () => this.runLocked(req),
      () => this.runLocked(req),
    );
    this.running = next.catch(() => undefined);
    return next;
  }

  private async runLocked(req: ImportRequest): Promise<ImportResult> {
    if (!req.dryRun) this.d.tasks.assertIdle();
    const stored = await this.storedLedFiles();
    const opts = { now: isoSeconds(this.d.clock.now()), backup: req.backup, label: req.label };
    const plan = planImport(req.files, this.d.store.state, stored, opts);
    if (req.dryRun || !plan.report.changes)
      return { dry_run: req.dryRun, report: plan.report, kept_as: null, nothing_to_keep: false };

    const nothingToKeep = importsOntoNothing(this.d.store.state, stored.length);
    const keptAs = nothingToKeep ? null : await this.d.backup.keepCurrent('import');
    await this.d.ledPresets.restoreFiles(
      plan.ledFiles.map((f) => ({ name: f.name, bytes: Buffer.from(f.bytes) })),
    );
    // Planned again against the live state at the moment of the commit (synchronously), so a
    // change made meanwhile (a rename, a heard device) is merged, not overwritten.
    const written = [...stored, ...plan.ledFiles];
    await this.d.store.commit(SCOPES, (s) => {
      const again = planImport(req.files, s, written, opts).state;
      s.devices = again.devices;
      s.groups = again.groups;
      s.native_presets = again.native_presets;
      s.scenes = again.scenes;
      s.next_ids = again.next_ids;
      s.settings = again.settings;
    });
    if (plan.ledFiles.length || this.d.ledPresets.current() !== this.d.store.state.settings.led_presets_file)
      await this.d.ledPresets.reloadActive();
    const c = plan.report.counts;
    this.d.log.warn(
      {
        kept_as: keptAs,
        devices: c.device,
        groups: c.group,
        native_presets: c.native_preset,
        scenes: c.scene,
        led_files: plan.ledFiles.length,
      },
      'RaceLink data imported',
    );
    return { dry_run: false, report: plan.report, kept_as: keptAs, nothing_to_keep: nothingToKeep };
  }

  private async storedLedFiles(): Promise<{ name: string; bytes: Uint8Array }[]> {
    return (await this.d.ledPresets.exportFiles()).map((f) => ({
      name: f.name,
      bytes: Buffer.from(f.text, 'utf8'),
    }));
  }
}

export function createRaceLinkImport(d: ImportDeps): RaceLinkImportService {
  return new RaceLinkImportService({ ...d, log: d.log.child({ mod: 'import' }) });
}
