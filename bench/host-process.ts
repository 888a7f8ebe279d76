/**
 * The host under benchmark, as its own process (as `npm start` runs it): spawned with the
 * probe preloaded, timed from spawn to `phase: ready`, and asked for memory and
 * event-loop figures over IPC.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { freePort } from '../test/integration/harness.ts';

export type ServerMode = 'dist' | 'tsx';

export interface ProbeStats {
  /** CPU time (user + system) the host process used so far. */
  cpuMs: number;
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  lag: { p50: number; p99: number; max: number; mean: number };
}

export interface HostProcess {
  child: ChildProcess;
  url: string;
  /** Wall ms from spawn to the first /api/health answering phase:ready. */
  readyMs: number;
  stats(): Promise<ProbeStats>;
  /** Writes a heap snapshot of the host to `file` (investigations). */
  snapshot(file: string): Promise<string>;
  resetLag(): Promise<void>;
  stop(): Promise<void>;
}

export const DIST_MAIN = 'dist/server/main.js';

export function defaultMode(): ServerMode {
  return existsSync(DIST_MAIN) ? 'dist' : 'tsx';
}

/** The Node flags of the `start` script (`node <flags> scripts/start.cjs`): the same memory settings. */
export function startFlags(): string[] {
  return startWords().filter((w) => w.startsWith('--'));
}

/** The environment the `start` script sets (`NAME=value … exec node …`), e.g. MALLOC_ARENA_MAX. */
export function startEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const w of startWords()) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(w);
    if (m) env[m[1]!] = m[2]!;
  }
  return env;
}

function startWords(): string[] {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
  return (pkg.scripts.start ?? '').split(/\s+/);
}

/** Node arguments that start the host in `mode` (dist: the built JS, as `npm start` runs it). */
export function hostArgs(mode: ServerMode, extra: string[] = []): string[] {
  // Extra flags come after the start script's own, so they override them.
  return mode === 'dist'
    ? [...startFlags(), ...extra, DIST_MAIN]
    : [...extra, '--import', 'tsx', 'src/main.ts'];
}

/** BENCH_HOST_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/p": extra Node flags for the host (profiling a bench run). */
export function extraNodeFlags(): string[] {
  return (process.env.BENCH_HOST_FLAGS ?? '').split(/\s+/).filter(Boolean);
}

export function ask<T>(child: ChildProcess, msg: string, key: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`probe did not answer ${msg}`)), 10_000);
    const onMsg = (m: unknown): void => {
      if (typeof m === 'object' && m !== null && key in m) {
        clearTimeout(timer);
        child.off('message', onMsg);
        resolve(m as T);
      }
    };
    child.on('message', onMsg);
    child.send(msg);
  });
}

/**
 * Spawns the host; `viaNpm` runs `npm start -- …` instead (its own process group, no
 * probe: only the time to ready is measured, including npm and the staleness check).
 */
export async function spawnHost(
  mode: ServerMode,
  dataDir: string,
  extra: string[],
  viaNpm = false,
): Promise<HostProcess> {
  const port = await freePort();
  const hostOpts = [
    '--port',
    String(port),
    '--data-dir',
    dataDir,
    '--log-level',
    'silent',
    '--wifi',
    'none',
    ...extra,
  ];
  const t0 = performance.now();
  const child = viaNpm
    ? spawn('npm', ['start', '--', ...hostOpts], { stdio: 'ignore', detached: true })
    : spawn(
        process.execPath,
        ['--import', './bench/probe.mjs', ...hostArgs(mode, extraNodeFlags()), ...hostOpts],
        {
          stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
          env: { ...process.env, ...startEnv() },
        },
      );
  const url = `http://127.0.0.1:${port}/lightnet`;
  let readyMs = -1;
  for (let i = 0; i < 6000 && readyMs < 0; i++) {
    if (child.exitCode !== null) throw new Error(`host exited with ${child.exitCode}`);
    try {
      const r = await fetch(`${url}/api/health`);
      if (r.ok && ((await r.json()) as { phase: string }).phase === 'ready') readyMs = performance.now() - t0;
    } catch {
      /* not listening yet */
    }
    if (readyMs < 0) await new Promise((r) => setTimeout(r, 2));
  }
  if (readyMs < 0) {
    child.kill('SIGKILL');
    throw new Error('host did not become ready');
  }
  return {
    child,
    url,
    readyMs,
    stats: () => ask<ProbeStats>(child, 'stats', 'rss'),
    snapshot: async (file) =>
      (await ask<{ snapshot: string }>(child, `snapshot:${file}`, 'snapshot')).snapshot,
    resetLag: async () => {
      await ask(child, 'reset', 'reset');
    },
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        if (viaNpm && child.pid) process.kill(-child.pid, 'SIGTERM');
        else child.kill('SIGTERM');
      }),
  };
}
