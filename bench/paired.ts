/**
 * Paired before/after: the host before issue 10 (TypeScript via tsx, a checkout of the
 * commit before the work in --before-dir) and after (this checkout's built JS) run side by
 * side; the same autocannon cells alternate between them, so both see the same machine
 * load. Prints the median req/s per cell and the ratio. Asserts nothing.
 *
 *   npx tsx bench/paired.ts --before-dir /tmp/lightnet-before [--runs 3 --duration 3]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { freePort } from '../test/integration/harness.ts';
import { hostArgs } from './host-process.ts';
import { fleetState } from './fleet-state.ts';
import { serializeState } from '../src/state/migrations.ts';

const arg = (n: string): string | undefined => {
  const i = process.argv.indexOf(`--${n}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const beforeDir = arg('before-dir');
const runs = Number(arg('runs')) || 3;
const duration = Number(arg('duration')) || 3;
if (!beforeDir) throw new Error('--before-dir <checkout of the commit before the issue-10 work> is required');

async function start(
  cwd: string,
  args: string[],
  dataDir: string,
): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      ...args,
      '--gateway',
      'sim',
      '--sim-nodes',
      '0',
      '--port',
      String(port),
      '--data-dir',
      dataDir,
      '--log-level',
      'silent',
      '--wifi',
      'none',
    ],
    { cwd, stdio: 'ignore' },
  );
  const url = `http://127.0.0.1:${port}/lightnet`;
  for (;;) {
    try {
      const h = (await (await fetch(`${url}/api/health`)).json()) as { phase: string };
      if (h.phase === 'ready') return { child, url };
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function main(): Promise<void> {
  const load0 = loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  const dirs = [await mkdtemp(join(tmpdir(), 'ln-pb-')), await mkdtemp(join(tmpdir(), 'ln-pa-'))];
  for (const d of dirs) await writeFile(join(d, 'state.json'), serializeState(fleetState(300, 16)));
  const before = await start(beforeDir as string, ['--import', 'tsx', 'src/main.ts'], dirs[0] as string);
  const after = await start(process.cwd(), hostArgs('dist'), dirs[1] as string);
  console.log(
    `\nPaired before/after, 300 devices / 16 groups, autocannon ${duration} s, median of ${runs}, load average at start ${load0}\n`,
  );
  console.log('cell                | before req/s | after req/s | ratio');
  for (const path of ['/api/devices', '/api/groups']) {
    for (const connections of [2, 32]) {
      const b: number[] = [];
      const a: number[] = [];
      for (let i = 0; i < runs; i++) {
        b.push((await autocannon({ url: before.url + path, connections, duration })).requests.average);
        a.push((await autocannon({ url: after.url + path, connections, duration })).requests.average);
      }
      const mb = median(b);
      const ma = median(a);
      console.log(
        `${`${path} @${connections}`.padEnd(19)} | ${mb.toFixed(0).padStart(12)} | ${ma.toFixed(0).padStart(11)} | ${(ma / mb).toFixed(1)}x`,
      );
    }
  }
  console.log(
    `load average at end ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}\n`,
  );
  before.child.kill('SIGTERM');
  after.child.kill('SIGTERM');
  for (const d of dirs) await rm(d, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
