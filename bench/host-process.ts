/**
 * The host under benchmark, as its own process (as `npm start` runs it): spawned with the
 * probe preloaded, timed from spawn to `phase: ready`, and asked for memory and
 * event-loop figures over IPC.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { freePort } from '../test/integration/harness.ts';

export type ServerMode = 'dist' | 'tsx';

export interface ProbeStats {
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
  resetLag(): Promise<void>;
  stop(): Promise<void>;
}

export const DIST_MAIN = 'dist/server/main.js';

export function defaultMode(): ServerMode {
  return existsSync(DIST_MAIN) ? 'dist' : 'tsx';
}

/** Node arguments that start the host in `mode` (dist: the built JS `npm start` runs). */
export function hostArgs(mode: ServerMode): string[] {
  return mode === 'dist' ? [DIST_MAIN] : ['--import', 'tsx', 'src/main.ts'];
}

function ask<T>(child: ChildProcess, msg: string, key: string): Promise<T> {
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

export async function spawnHost(mode: ServerMode, dataDir: string, extra: string[]): Promise<HostProcess> {
  const port = await freePort();
  const args = [
    '--import',
    './bench/probe.mjs',
    ...hostArgs(mode),
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
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
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
    resetLag: async () => {
      await ask(child, 'reset', 'reset');
    },
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
