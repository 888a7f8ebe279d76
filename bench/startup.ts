/**
 * Startup benchmark (issue 29, Pi-class speed): the time from spawn to `/api/health` answering
 * phase:ready, side by side in one run, for each way of starting the host —
 *   node dist/server/main.js   (the built server, with `npm start`'s Node flags)
 *   npm start                  (npm, the staleness check, then the same server)
 *   release bin/lightnet       (the release archive's launcher; built with --out into a temp dir)
 * here and under ../shared/tools/pi-class.sh (a quarter of one core, roughly a Raspberry Pi 4),
 * plus the host's RSS once ready and after a load of list reads. Each way starts once first
 * with no V8 code cache (as after an install; that start writes the cache), then N times. The host starts as in
 * bench/http.ts: the simulator (12 nodes) and a state of 300 devices in 16 groups.
 *
 *   npx tsx bench/startup.ts [--runs N] [--pi-runs N] [--no-pi] [--no-release]
 *   BENCH_HOST_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof" … adds Node flags to the direct start.
 *
 * Targets (issue 29): ready <= 300 ms here and <= 1.5 s under pi-class; RSS after load <= 70 MB.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { serializeState } from '../src/state/migrations.ts';
import { freePort } from '../test/integration/harness.ts';
import { fleetState } from './fleet-state.ts';
import { startEnv, startFlags } from './host-process.ts';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const RUNS = arg('--runs', 7);
const PI_RUNS = arg('--pi-runs', 3);
const PI_CLASS = resolve('..', 'shared', 'tools', 'pi-class.sh');
const withPi = !process.argv.includes('--no-pi') && existsSync(PI_CLASS);
const withRelease = !process.argv.includes('--no-release');
const LISTS = [
  'devices',
  'groups',
  'scenes',
  'native-presets',
  'presets/list',
  'fw/uploads',
  'task',
  'gateway',
];

interface Way {
  name: string;
  cmd: (opts: string[]) => [string, string[]];
  /** Where its dist/server lives: the V8 code cache is written there (scripts/server-main.cjs). */
  serverDir: string;
  /** The start's environment (the direct start gets what the `start` script sets). */
  env?: NodeJS.ProcessEnv;
}

/** The node process serving `port` (under npm or pi-class it is a grandchild). */
function hostPid(port: number): number | null {
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const at = argv.indexOf('--port');
    if (
      at > 0 &&
      argv[at + 1] === String(port) &&
      argv[0]?.endsWith('node') &&
      !argv.some((a) => a.includes('npm'))
    )
      return Number(d);
  }
  return null;
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/**
 * CPU ms (user + system) used so far by the process group `pgid` (the start and everything
 * it ran, npm and pi-class included): unlike wall time, independent of other load.
 */
function groupCpuMs(pgid: number): number {
  let ticks = 0;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const f = readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      // After "(comm) ": state ppid pgrp … utime(11) stime(12) cutime(13) cstime(14).
      if (Number(f[2]) === pgid) ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    } catch {
      /* exited meanwhile */
    }
  }
  return ticks * 10; // USER_HZ = 100
}

interface Sample {
  readyMs: number;
  cpuMs: number;
  rssReady: number;
  rssLoaded: number;
}

const caches = (dir: string): string[] => readdirSync(dir).filter((f) => f.endsWith('.v8cache'));

async function once(way: Way, dataDir: string, pi: boolean, warmUp = false): Promise<Sample> {
  const port = await freePort();
  const opts = ['--port', String(port), '--data-dir', dataDir, '--log-level', 'silent', '--wifi', 'none'];
  const [cmd, args] = way.cmd([...opts, '--gateway', 'sim']);
  const t0 = performance.now();
  const child: ChildProcess = pi
    ? spawn('bash', [PI_CLASS, cmd, ...args], { stdio: 'ignore', detached: true, env: way.env })
    : spawn(cmd, args, { stdio: 'ignore', detached: true, env: way.env });
  const api = `http://127.0.0.1:${port}/lightnet/api`;
  let readyMs = -1;
  try {
    while (readyMs < 0) {
      if (child.exitCode !== null) throw new Error(`${way.name} exited with ${child.exitCode}`);
      if (performance.now() - t0 > 60_000) throw new Error(`${way.name} not ready in 60 s`);
      const phase = await fetch(`${api}/health`).then(
        async (r) => ((await r.json()) as { phase?: string }).phase,
        () => undefined,
      );
      if (phase === 'ready') readyMs = performance.now() - t0;
      else await new Promise((r) => setTimeout(r, 3));
    }
    const cpuMs = groupCpuMs(child.pid ?? 0);
    const pid = hostPid(port);
    if (!pid) throw new Error(`no node process listens on ${port}`);
    const rssReady = rssMb(pid);
    // Load: the lists a UI fetches on open, ten times over, then the heap settles.
    for (let i = 0; i < 10; i++)
      await Promise.all(LISTS.map((l) => fetch(`${api}/${l}`).then((r) => r.arrayBuffer())));
    await new Promise((r) => setTimeout(r, 500));
    const sample = { readyMs, cpuMs, rssReady, rssLoaded: rssMb(pid) };
    // A first start writes the code cache a few seconds in: keep it running until it has.
    for (let i = 0; warmUp && caches(way.serverDir).length === 0 && i < 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    return sample;
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGTERM');
    await exited;
    // pi-class.sh can exit before the host has finished shutting down: wait for the group.
    for (let i = 0; child.pid && groupAlive(child.pid); i++) {
      if (i === 600) process.kill(-child.pid, 'SIGKILL');
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
};

async function main(): Promise<void> {
  const load0 = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  // Built artifacts: the server bundle (as npm start would) and, when asked, a release.
  const b = spawnSync(process.execPath, ['scripts/build-server.mjs', '--if-stale'], { stdio: 'inherit' });
  if (b.status !== 0) throw new Error('server build failed');
  const ways: Way[] = [
    {
      name: 'node dist/server/main.js',
      cmd: (o) => [
        process.execPath,
        [
          ...startFlags(),
          ...(process.env.BENCH_HOST_FLAGS ?? '').split(/\s+/).filter(Boolean),
          'dist/server/main.js',
          ...o,
        ],
      ],
      serverDir: 'dist/server',
      env: { ...process.env, ...startEnv() },
    },
    { name: 'npm start', cmd: (o) => ['npm', ['start', '--', ...o]], serverDir: 'dist/server' },
  ];
  let releaseDir: string | null = null;
  if (withRelease) {
    releaseDir = await mkdtemp(join(tmpdir(), 'lightnet-bench-release-'));
    const r = spawnSync(process.execPath, ['scripts/release.mjs', '--out', releaseDir], { stdio: 'ignore' });
    if (r.status !== 0) throw new Error('npm run release failed');
    const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
    const bin = join(releaseDir, `lightnet-${version}`, 'bin', 'lightnet');
    ways.push({
      name: 'release bin/lightnet',
      cmd: (o) => [bin, o],
      serverDir: join(releaseDir, `lightnet-${version}`, 'dist', 'server'),
    });
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-bench-startup-'));
  // On the simulator the host keeps its state in the data dir's simulator/ folder.
  const stateFile = join(dataDir, 'simulator', 'state.json');
  await mkdir(join(dataDir, 'simulator'));
  const state = serializeState(fleetState(300, 16));
  const rows: string[][] = [];
  try {
    for (const way of ways) {
      // The first start after an install or build: no code cache yet (it writes one).
      for (const f of caches(way.serverDir)) await rm(join(way.serverDir, f));
      await writeFile(stateFile, state);
      const first = await once(way, dataDir, false, true);
      for (const pi of withPi ? [false, true] : [false]) {
        const samples: Sample[] = [];
        const n = pi ? PI_RUNS : RUNS;
        for (let i = 0; i < n; i++) {
          await writeFile(stateFile, state);
          samples.push(await once(way, dataDir, pi));
        }
        const ready = samples.map((s) => s.readyMs);
        rows.push([
          way.name,
          pi ? 'pi-class' : 'here',
          median(ready).toFixed(0),
          `${Math.min(...ready).toFixed(0)}–${Math.max(...ready).toFixed(0)}`,
          median(samples.map((s) => s.cpuMs)).toFixed(0),
          median(samples.map((s) => s.rssReady)).toFixed(1),
          median(samples.map((s) => s.rssLoaded)).toFixed(1),
          String(n),
          pi ? '' : `${first.readyMs.toFixed(0)} (CPU ${first.cpuMs})`,
        ]);
      }
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
    if (releaseDir) await rm(releaseDir, { recursive: true, force: true });
  }
  console.log(
    `\nStartup: spawn → /api/health phase:ready, simulator (12 nodes), 300 devices / 16 groups in state; ` +
      `load average at start ${load0}; pi-class = ${withPi ? '0.25 of one core' : 'not available'}\n`,
  );
  const head = [
    'start',
    'where',
    'ready ms (median)',
    'min–max',
    'CPU ms to ready',
    'RSS ready MB',
    'RSS loaded MB',
    'runs',
    'first start ms (no code cache)',
  ];
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (r: string[]): string => r.map((c, i) => c.padEnd(width[i] ?? 0)).join('  ');
  console.log(line(head));
  for (const r of rows) console.log(line(r));
  console.log(
    '\nTargets: ready <= 300 ms here, <= 1500 ms under pi-class; RSS after load <= 70 MB. CPU ms is the whole ' +
      'start (npm, pi-class.sh included): on a loaded machine wall time waits for a core, CPU time does not.',
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
