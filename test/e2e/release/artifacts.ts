/**
 * Builds the release artifacts (`npm run release`, into a temp folder instead of release/)
 * and runs the packaged host, for the release tests. Child processes get argument arrays.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from '../../integration/harness.ts';

export const VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

export interface Release {
  dir: string;
  tarball: string;
  zip: string;
  cleanup(): Promise<void>;
}

export async function buildRelease(): Promise<Release> {
  const dir = await mkdtemp(join(tmpdir(), 'lightnet-release-'));
  const r = spawnSync(process.execPath, ['scripts/release.mjs', '--out', dir], { encoding: 'utf8' });
  if (r.status !== 0) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`npm run release failed:\n${r.stderr}\n${r.stdout}`);
  }
  return {
    dir,
    tarball: join(dir, `lightnet-${VERSION}.tar.gz`),
    zip: join(dir, `lightnet-rotorhazard-${VERSION}.zip`),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

export function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...opts });
  if (r.error) throw r.error;
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** PATH with this Node and the base system only (no npm, tsx or project tools). */
export function bareEnv(): NodeJS.ProcessEnv {
  return { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: tmpdir(), LANG: 'C.UTF-8' };
}

export interface Running {
  child: ChildProcess;
  api: string;
  output(): string;
  /** SIGTERM and the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `bin/lightnet` on a small simulated fleet and waits for /api/health phase ready. */
export async function startPackaged(bin: string, dataDir: string, env = bareEnv()): Promise<Running> {
  const port = await freePort();
  const child = spawn(
    bin,
    ['--gateway', 'sim', '--sim-nodes', '3', '--port', String(port), '--data-dir', dataDir, '--wifi', 'none'],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const api = `http://127.0.0.1:${port}/lightnet/api`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`bin/lightnet exited ${child.exitCode}:\n${out}`);
    const phase = await fetch(`${api}/health`).then(
      async (r) => ((await r.json()) as { phase?: string }).phase,
      () => undefined,
    );
    if (phase === 'ready') break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`bin/lightnet never became ready:\n${out}`);
    }
    // Poll the health route: the host answers as soon as it is up.
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    child,
    api,
    output: () => out,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
