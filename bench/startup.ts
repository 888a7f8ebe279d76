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
 * Side by side in the same run, interleaved start by start (so the machine's load falls on all
 * of them alike):
 *  - the original Python host (PSi86/RaceLink_Host standalone, bench/original-host.ts) with
 *    the same 300 devices and 16 groups, when a checkout of it is given (--original DIR);
 *  - with --before DIR, the same three ways from another checkout (e.g. a `git worktree` of
 *    main), built there, labelled "before:".
 *
 *   npx tsx bench/startup.ts [--runs N] [--pi-runs N] [--no-pi] [--no-release]
 *                            [--original DIR] [--before DIR]
 *   BENCH_HOST_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof" … adds Node flags to the direct start.
 *
 * Targets (issue 40): ready before the original, and <= 1.5 s under pi-class for bin/lightnet
 * and npm start; RSS after load <= 70 MB.
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
import { findOriginal, ORIGINAL_LISTS, originalCommand, writeOriginalHome } from './original-host.ts';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const argText = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const RUNS = arg('--runs', 7);
const PI_RUNS = arg('--pi-runs', 3);
const PI_CLASS = resolve('..', 'shared', 'tools', 'pi-class.sh');
const withPi = !process.argv.includes('--no-pi') && existsSync(PI_CLASS);
const withRelease = !process.argv.includes('--no-release');
const BEFORE = argText('--before');
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
  /** The command for a start listening on `port` with its data in `dataDir`. */
  cmd: (port: number, dataDir: string) => [string, string[]];
  /** Where its dist/server lives: the V8 code cache is written there (scripts/server-main.cjs). */
  serverDir?: string;
  /** The start's environment (the direct start gets what the `start` script sets). */
  env?: (dataDir: string) => NodeJS.ProcessEnv;
  cwd?: string;
  /** Its API's base path and the lists its console reads on open. */
  api: string;
  lists: string[];
  /** Writes its state (300 devices, 16 groups) into `dataDir` before each start. */
  prepare: (dataDir: string, port: number) => Promise<void>;
  /** The process that serves (under npm or pi-class.sh it is a grandchild). */
  pid: (port: number, child: ChildProcess) => number | null;
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

/** The python process in the process group `pgid` (the original, under pi-class.sh or not). */
function pythonPid(pgid: number): number | null {
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const comm = /\((.*)\)/.exec(stat)?.[1] ?? '';
      const pgrp = Number(stat.split(') ')[1]?.split(' ')[2]);
      if (pgrp === pgid && comm.startsWith('python')) return Number(d);
    } catch {
      /* exited meanwhile */
    }
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
  await way.prepare(dataDir, port);
  const [cmd, args] = way.cmd(port, dataDir);
  const opts = { stdio: 'ignore' as const, detached: true, env: way.env?.(dataDir), cwd: way.cwd };
  const t0 = performance.now();
  const child: ChildProcess = pi ? spawn('bash', [PI_CLASS, cmd, ...args], opts) : spawn(cmd, args, opts);
  const api = `http://127.0.0.1:${port}${way.api}`;
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
    const pid = way.pid(port, child);
    if (!pid) throw new Error(`${way.name}: no process serves ${port}`);
    const rssReady = rssMb(pid);
    // Load: the lists a UI fetches on open, ten times over, then the heap settles.
    for (let i = 0; i < 10; i++)
      await Promise.all(way.lists.map((l) => fetch(`${api}/${l}`).then((r) => r.arrayBuffer())));
    await new Promise((r) => setTimeout(r, 500));
    const sample = { readyMs, cpuMs, rssReady, rssLoaded: rssMb(pid) };
    // A first start writes the code cache a few seconds in: keep it running until it has.
    const dir = way.serverDir;
    for (let i = 0; warmUp && dir && caches(dir).length === 0 && i < 200; i++) {
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

/** The `start` script's environment words and Node flags of the checkout at `root`. */
function startScript(root: string): { env: Record<string, string>; flags: string[] } {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const words = (pkg.scripts.start ?? '').split(/\s+/);
  const env: Record<string, string> = {};
  for (const w of words) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(w);
    if (m) env[m[1]!] = m[2]!;
  }
  return { env, flags: words.filter((w) => w.startsWith('--')) };
}

/** The three ways of starting Lightnet from the checkout at `root` (built there first). */
async function lightnetWays(root: string, label: string, releaseDirs: string[]): Promise<Way[]> {
  const b = spawnSync(process.execPath, ['scripts/build-server.mjs', '--if-stale'], {
    stdio: 'inherit',
    cwd: root,
  });
  if (b.status !== 0) throw new Error(`server build failed in ${root}`);
  const { env, flags } = startScript(root);
  const state = serializeState(fleetState(300, 16));
  // On the simulator the host keeps its state in the data dir's simulator/ folder.
  const prepare = async (dataDir: string): Promise<void> => {
    await mkdir(join(dataDir, 'simulator'), { recursive: true });
    await writeFile(join(dataDir, 'simulator', 'state.json'), state);
  };
  const opts = (port: number, dataDir: string): string[] => [
    ...['--port', String(port), '--data-dir', dataDir, '--log-level', 'silent', '--wifi', 'none'],
    ...['--gateway', 'sim'],
  ];
  const common = { api: '/lightnet/api', lists: LISTS, prepare, pid: (port: number) => hostPid(port) };
  const ways: Way[] = [
    {
      ...common,
      name: `${label}node dist/server/main.js`,
      cmd: (port, dataDir) => [
        process.execPath,
        [
          ...flags,
          ...(process.env.BENCH_HOST_FLAGS ?? '').split(/\s+/).filter(Boolean),
          join(root, 'dist/server/main.js'),
          ...opts(port, dataDir),
        ],
      ],
      serverDir: join(root, 'dist/server'),
      env: () => ({ ...process.env, ...env }),
    },
    {
      ...common,
      name: `${label}npm start`,
      cmd: (port, dataDir) => ['npm', ['start', '--', ...opts(port, dataDir)]],
      serverDir: join(root, 'dist/server'),
      cwd: root,
    },
  ];
  if (withRelease) {
    const releaseDir = await mkdtemp(join(tmpdir(), 'lightnet-bench-release-'));
    releaseDirs.push(releaseDir);
    const r = spawnSync(process.execPath, ['scripts/release.mjs', '--out', releaseDir], {
      stdio: 'ignore',
      cwd: root,
    });
    if (r.status !== 0) throw new Error(`npm run release failed in ${root}`);
    const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string })
      .version;
    const bin = join(releaseDir, `lightnet-${version}`, 'bin', 'lightnet');
    ways.push({
      ...common,
      name: `${label}release bin/lightnet`,
      cmd: (port, dataDir) => [bin, opts(port, dataDir)],
      serverDir: join(releaseDir, `lightnet-${version}`, 'dist', 'server'),
    });
  }
  return ways;
}

async function main(): Promise<void> {
  const load0 = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  const releaseDirs: string[] = [];
  const ways: Way[] = [];
  if (BEFORE) ways.push(...(await lightnetWays(resolve(BEFORE), 'before: ', releaseDirs)));
  ways.push(...(await lightnetWays(process.cwd(), BEFORE ? 'after: ' : '', releaseDirs)));
  const original = findOriginal();
  if (typeof original === 'string') console.log(`The original host is left out: ${original}.`);
  else {
    const state = fleetState(300, 16);
    const [cmd, args] = originalCommand(original);
    ways.push({
      name: 'original (Python, RaceLink_Host)',
      cmd: () => [cmd, args],
      cwd: original.dir,
      env: (dataDir) => ({ ...process.env, HOME: dataDir }),
      api: '/racelink/api',
      lists: ORIGINAL_LISTS,
      prepare: (dataDir, port) => writeOriginalHome(dataDir, state, port),
      pid: (_port, child) => pythonPid(child.pid ?? 0),
    });
  }
  const dataDirs = new Map<Way, string>();
  for (const way of ways) dataDirs.set(way, await mkdtemp(join(tmpdir(), 'lightnet-bench-startup-')));
  const rows: string[][] = [];
  try {
    // The first start after an install or build: no code cache yet (it writes one).
    const first = new Map<Way, Sample>();
    for (const way of ways) {
      const dir = way.serverDir;
      if (dir) for (const f of caches(dir)) await rm(join(dir, f));
      first.set(way, await once(way, dataDirs.get(way)!, false, true));
    }
    for (const pi of withPi ? [false, true] : [false]) {
      const samples = new Map<Way, Sample[]>(ways.map((w) => [w, []]));
      // Interleaved, start by start: a change in the machine's load falls on every way alike.
      for (let i = 0; i < (pi ? PI_RUNS : RUNS); i++)
        for (const way of ways) samples.get(way)!.push(await once(way, dataDirs.get(way)!, pi));
      for (const way of ways) {
        const s = samples.get(way)!;
        const ready = s.map((x) => x.readyMs);
        const f = first.get(way)!;
        rows.push([
          way.name,
          pi ? 'pi-class' : 'here',
          median(ready).toFixed(0),
          `${Math.min(...ready).toFixed(0)}–${Math.max(...ready).toFixed(0)}`,
          median(s.map((x) => x.cpuMs)).toFixed(0),
          median(s.map((x) => x.rssReady)).toFixed(1),
          median(s.map((x) => x.rssLoaded)).toFixed(1),
          String(s.length),
          pi ? '' : `${f.readyMs.toFixed(0)} (CPU ${f.cpuMs})`,
        ]);
      }
    }
  } finally {
    for (const d of [...dataDirs.values(), ...releaseDirs]) await rm(d, { recursive: true, force: true });
  }
  const load1 = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  console.log(
    `\nStartup: spawn → /api/health phase:ready; Lightnet on its simulator (12 nodes), every host with ` +
      `300 devices / 16 groups in state; load average ${load0} at start, ${load1} at the end; ` +
      `pi-class = ${withPi ? '0.25 of one core' : 'not available'}\n`,
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
    '\nTargets (issue 40): ready before the original, <= 1500 ms under pi-class for bin/lightnet and npm start; ' +
      'RSS after load <= 70 MB. CPU ms is the whole start (npm, pi-class.sh included): on a loaded machine wall ' +
      'time waits for a core, CPU time does not. The original starts with no gateway (it has no simulator).',
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
