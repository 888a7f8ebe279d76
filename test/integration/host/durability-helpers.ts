/**
 * Helpers for the durability tests: the production bundle built once into a temp folder
 * (a bundled host starts in a fraction of a second, so a test can kill and restart it many
 * times), host processes on it, a seeded PRNG and small HTTP calls.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { testTempDir } from '../../temp-dir.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../harness.ts';

export interface Bundle {
  main: string;
  dispose(): Promise<void>;
}

export async function buildBundle(): Promise<Bundle> {
  // Inside the project (dist/ is git-ignored), so the bundle resolves serialport from node_modules.
  await mkdir(join(process.cwd(), 'dist'), { recursive: true });
  const dir = await mkdtemp(join(process.cwd(), 'dist', 'test-durability-'));
  const build = spawnSync(process.execPath, ['scripts/build-server.mjs', '--out', join(dir, 'server')], {
    encoding: 'utf8',
  });
  if (build.status !== 0) throw new Error(`bundle build failed: ${build.stderr}`);
  return { main: join(dir, 'server', 'main.js'), dispose: () => rm(dir, { recursive: true, force: true }) };
}

export interface HostProc {
  child: ChildProcess;
  api: string;
  stderr(): string;
  /** kill -9 and wait for the exit. */
  kill(): Promise<void>;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
}

/** Starts the bundled host on the simulator; resolves when it is ready or rejects when it exits. */
export async function startHostProc(
  main: string,
  dataDir: string,
  extra: string[] = [],
  opts: { expectExit?: boolean } = {},
): Promise<HostProc> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      main,
      ...['--gateway', 'sim', '--sim-nodes', '0', '--wifi', 'none', '--log-level', 'warn'],
      ...['--port', String(port), '--data-dir', dataDir, '--sim-data-dir', dataDir, ...extra],
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let err = '';
  child.stderr?.on('data', (b: Buffer) => (err += b.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const api = `http://127.0.0.1:${port}/lightnet/api`;
  const proc: HostProc = {
    child,
    api,
    stderr: () => err,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
  for (;;) {
    const state = await Promise.race([
      exited.then(() => 'exited' as const),
      fetch(`${api}/health`).then(
        async (r) => ((await r.json()) as { phase?: string }).phase ?? 'none',
        () => 'down',
      ),
    ]);
    if (state === 'exited') {
      if (opts.expectExit) return proc;
      throw new Error(`host exited: ${err}`);
    }
    if (state === 'ready') return proc;
    // Waiting on a process that is still starting: poll its health again.
    await new Promise((r) => setImmediate(r));
  }
}

export async function api<T = Record<string, unknown>>(
  base: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const r = await fetch(base + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, body: (await r.json()) as T };
}

/** mulberry32: a small seeded PRNG, so a failing run can be replayed with its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A data folder removed when the test ends (see test/temp-dir.ts). */
export const tmpData = testTempDir;

export interface Mount {
  dir: string;
  remount(opts: string): void;
  dispose(): Promise<void>;
}

/** A small tmpfs, or the reason there is none. */
export async function tmpfs(size: string): Promise<Mount | string> {
  const dir = await mkdtemp(join(tmpdir(), 'lightnet-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    return `cannot mount a tmpfs here (${(err as Error).message.split('\n')[0]})`;
  }
  return {
    dir,
    remount: (opts) => execFileSync('mount', ['-o', `remount,${opts}`, dir], { stdio: 'pipe' }),
    dispose: async () => {
      execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Fills the filesystem of `dir` until it refuses another byte; returns the filler's path. */
export function fill(dir: string): string {
  const path = join(dir, 'filler');
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(1024, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
  try {
    // The last partial block too.
    const fd2 = openSync(path, 'a');
    try {
      for (;;) writeSync(fd2, Buffer.alloc(1, 1));
    } finally {
      closeSync(fd2);
    }
  } catch {
    /* full */
  }
  return path;
}
