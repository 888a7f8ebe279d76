/**
 * `npm run import -- <racelink-dir> [--data-dir DIR] [--dry-run] [--backup ID]` (in a release:
 * `bin/lightnet import <racelink-dir> …`, bundled as dist/server/import.cjs): moves a
 * RaceLink user's data folder into a Lightnet data dir. It opens the data dir with the
 * host's own Store and persistence (the same load, journal, fsync and atomic snapshot as a
 * running host), keeps a backup of what was there and prints the report. It refuses when a
 * host is running on that data dir: the web UI's import is the way then.
 */
import { Command, CommanderError } from 'commander';
import { ScaledClock } from './clock.ts';
import { EventBus } from './events.ts';
import { createStderrLogger } from './logger.ts';
import { createBackup } from './services/backup/index.ts';
import {
  createRaceLinkImport,
  formatReport,
  RaceLinkImportError,
  readRaceLinkFolder,
} from './services/import/index.ts';
import { DataDirLock, DataDirLockedError, lockedText } from './state/data-lock.ts';
import { createLedPresets } from './services/led-presets/index.ts';
import { FirmwareStore } from './services/ota/index.ts';
import { FileStatePersistence } from './state/persistence.ts';
import { Store } from './state/store.ts';
import { TaskManager } from './tasks/task-manager.ts';
import { ValidationError } from './errors.ts';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { nextSteps, simulatorFolderOf } from './import-next-steps.ts';

interface Args {
  racelinkDir: string;
  dataDir: string;
  dryRun: boolean;
  backup?: string;
  json: boolean;
}

function parseArgs(argv: string[]): Args {
  // bin/lightnet (a release) names itself `lightnet import`; a clone runs `npm run import --`.
  const cmd = new Command(process.env.LIGHTNET_CLI_NAME ?? 'npm run import --')
    .description('Import a RaceLink data folder (~/.racelink) into a Lightnet data dir')
    .argument('<racelink-dir>', 'the RaceLink data folder (e.g. ~/.racelink)')
    .option('--data-dir <dir>', 'the Lightnet data dir (default ./data, or LIGHTNET_DATA_DIR)')
    .option('--dry-run', 'only print what would be imported; write nothing')
    .option('--backup <id>', 'import this snapshot from rl_state_backups/ instead of the current state')
    .option('--json', 'print the report as JSON')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  cmd.parse(argv, { from: 'user' });
  const o = cmd.opts<{ dataDir?: string; dryRun?: boolean; backup?: string; json?: boolean }>();
  return {
    racelinkDir: cmd.args[0] ?? '',
    dataDir: o.dataDir ?? process.env.LIGHTNET_DATA_DIR ?? './data',
    dryRun: o.dryRun === true,
    backup: o.backup,
    json: o.json === true,
  };
}

async function main(): Promise<number> {
  let args: Args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    return err instanceof CommanderError && err.exitCode === 0 ? 0 : 2;
  }
  // A real import holds the host's own data-folder lock while it writes: a running host
  // refuses it, and no host can start on the folder half-way through.
  let locks: DataDirLock[] = [];
  if (!args.dryRun) {
    const taken = await lockFolders(args.dataDir);
    if ('refused' in taken) {
      console.error(`import refused: ${taken.refused}`);
      return 3;
    }
    locks = taken.locks;
  }
  // Loading a data dir that has no state yet writes a fresh one: a dry run (which writes
  // nothing) then compares against an empty state in a temporary folder instead.
  const scratch =
    args.dryRun && !existsSync(join(args.dataDir, 'state.json'))
      ? await mkdtemp(join(tmpdir(), 'lightnet-import-dry-'))
      : null;
  try {
    return await importInto(scratch ? { ...args, dataDir: scratch } : args);
  } finally {
    for (const l of locks.reverse()) await l.release();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * Takes the data folder's lock and, when it has one, its simulator folder's: a host on the
 * simulator (`npm start` with no gateway) owns `<data-dir>/simulator/`, not the folder
 * itself, yet it is the host the user runs "on ./data" — an import then would not show on
 * it (its state is the simulator's), so it is refused while that host runs too, and no such
 * host can start half-way through.
 */
async function lockFolders(dataDir: string): Promise<{ locks: DataDirLock[] } | { refused: string }> {
  const locks: DataDirLock[] = [];
  try {
    locks.push(await DataDirLock.acquire(dataDir));
    const sim = simulatorFolderOf(dataDir);
    if (existsSync(sim)) locks.push(await DataDirLock.acquire(sim));
    return { locks };
  } catch (err) {
    for (const l of locks.reverse()) await l.release();
    if (!(err instanceof DataDirLockedError)) throw err;
    if (locks.length === 0) {
      return {
        refused: lockedText(err.dir, err.owner, 'import in its web UI (Settings → Import from RaceLink)'),
      };
    }
    const who = err.owner
      ? `pid ${err.owner.pid}${err.owner.port === null ? '' : `, port ${err.owner.port}`}`
      : 'starting right now';
    return {
      refused:
        `a Lightnet host on the simulator (${who}) runs on the data folder ${resolve(dataDir)}; its state ` +
        `is the simulator's own, in ${err.dir}, so this import would not show on it. Stop that host, ` +
        `import, then start it with the gateway plugged in to use the import (or, to practise on the ` +
        `simulator, import in its web UI: Settings → Import from RaceLink).`,
    };
  }
}

async function importInto(args: Args): Promise<number> {
  const files = await readRaceLinkFolder(args.racelinkDir);
  const log = createStderrLogger(process.env.LIGHTNET_LOG_LEVEL ?? 'warn');
  const clock = new ScaledClock(1);
  const bus = new EventBus();
  const store = new Store({ persistence: new FileStatePersistence(args.dataDir), bus, clock, log });
  const loaded = await store.load();
  if (loaded.warning) console.error(`note: ${loaded.warning}`);
  try {
    const ledPresets = createLedPresets({ dataDir: args.dataDir, store, bus, clock, log });
    const firmware = new FirmwareStore(args.dataDir, clock, log);
    const tasks = new TaskManager(bus, clock, log);
    if (!args.dryRun) {
      await ledPresets.init();
      await firmware.init();
    }
    const backup = createBackup({ dataDir: args.dataDir, store, tasks, ledPresets, firmware, clock, log });
    const service = createRaceLinkImport({ store, tasks, ledPresets, backup, clock, log });
    const started = performance.now();
    const result = await service.run({
      files,
      dryRun: args.dryRun,
      backup: args.backup,
      label: args.racelinkDir,
    });
    const ms = performance.now() - started;
    if (args.json) process.stdout.write(`${JSON.stringify({ ok: true, ...result }, null, 2)}\n`);
    else {
      process.stdout.write(formatReport(result.report, args.dryRun ? 'dry-run' : 'written'));
      if (result.kept_as)
        process.stdout.write(`The state before the import is kept in ${args.dataDir}/${result.kept_as}\n`);
      else if (result.nothing_to_keep)
        process.stdout.write(
          `${args.dataDir} held no earlier state (no devices, groups, scenes or LED presets): nothing to keep, so no backup was written.\n`,
        );
      process.stdout.write(`(${ms.toFixed(0)} ms)\n`);
      if (!args.dryRun) {
        process.stdout.write(
          nextSteps({
            dataDir: args.dataDir,
            racelinkDir: args.racelinkDir,
            bin: process.env.LIGHTNET_BIN,
            cwd: process.cwd(),
          }),
        );
      }
    }
    return 0;
  } finally {
    await store.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    const msg =
      err instanceof RaceLinkImportError || err instanceof ValidationError ? err.message : String(err);
    console.error(`import failed: ${msg}`);
    console.error('The Lightnet state was not changed.');
    process.exit(1);
  },
);
