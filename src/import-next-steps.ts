/**
 * What the import CLI prints after it wrote a data folder: how to see the import. Without
 * it a user who imports into ./data and runs `npm start` with no gateway plugged in lands
 * on the simulator, whose own folder (./data/simulator/) does not hold the import, and is
 * left guessing where it went.
 */
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';

/** Where the service's state lives (packaging/lightnet.service). */
export const SERVICE_DATA_DIR = '/var/lib/lightnet';

/** A path or word as one shell argument (quoted only when it needs to be). */
export function shellWord(s: string): string {
  return /^[\w@%+=:,./~-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export interface NextStepsInput {
  /** The data folder as the user named it. */
  dataDir: string;
  /** The RaceLink folder as the user named it. */
  racelinkDir: string;
  /** In a release: how the user ran bin/lightnet (`$0`); a clone runs npm. */
  bin: string | undefined;
  cwd: string;
}

/** The folder the simulator uses for a host started with `--data-dir dataDir` (config.ts). */
export const simulatorFolderOf = (dataDir: string): string => join(dataDir, 'simulator');

export function nextSteps(o: NextStepsInput): string {
  const abs = resolve(o.cwd, o.dataDir);
  const bin = o.bin === undefined ? null : shellWord(o.bin);
  const shownOf = (p: string): string =>
    isAbsolute(o.dataDir) ? p : `./${relative(o.cwd, resolve(o.cwd, p)) || '.'}`;
  const shown = shownOf(o.dataDir);
  const startOn = (dir: string): string =>
    bin
      ? `${bin} --data-dir ${shellWord(dir)}`
      : resolve(o.cwd, dir) === resolve(o.cwd, 'data')
        ? 'npm start'
        : `npm start -- --data-dir ${shellWord(dir)}`;
  if (bin && abs === SERVICE_DATA_DIR) {
    return [
      '',
      `Next: start the service, which runs on ${SERVICE_DATA_DIR}, and open its web UI:`,
      '  sudo systemctl start lightnet',
      '',
    ].join('\n');
  }
  if (basename(abs) === 'simulator') {
    // A practice import into the simulator's own folder.
    const parent = shownOf(dirname(o.dataDir));
    return [
      '',
      `Next: ${shown} is the simulator's folder of a host started on ${parent}; start it with no`,
      'gateway plugged in (it then runs the simulator) to practise with this import:',
      `  ${startOn(parent)}`,
      '',
    ].join('\n');
  }
  const sim = shownOf(simulatorFolderOf(o.dataDir));
  return [
    '',
    `Next: start Lightnet on ${shown} with the radio gateway plugged in; the web UI then shows this import:`,
    `  ${startOn(shown)}`,
    `With no gateway plugged in it runs the simulator instead, which keeps its own state in ${sim}`,
    `and does not show this import (its banner says what ${shown} holds). To practise with this setup`,
    'on the simulator, import the same folder there: in its web UI (Settings → Import from RaceLink), or',
    `  ${bin ? `${bin} import` : 'npm run import --'} ${shellWord(o.racelinkDir)} --data-dir ${shellWord(sim)}`,
    '',
  ].join('\n');
}
