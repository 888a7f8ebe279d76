/**
 * One host per data folder, with real processes: a second host on the same folder exits
 * at once (code 3) naming the folder and the owner's pid and port; after the owner is
 * killed with -9 a new host takes the stale lock over; two hosts starting at once over a
 * stale lock end with exactly one running; a clean shutdown removes the lock. The import
 * CLI is refused while a host on the simulator holds the folder's `simulator/` subfolder.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { CLUB } from '../../unit/import/racelink-files.ts';
import { freePort, startCli } from '../harness.ts';

const ARGS = ['--sim-nodes', '1', '--wifi', 'none', '--log-level', 'warn'];
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function tmp(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'lightnet-lock-'));
  dirs.push(d);
  return d;
}

/** Starts the CLI and waits for its exit (a host that must refuse to start). */
function runToExit(
  dataDir: string,
  port: number,
): { child: ChildProcess; done: Promise<{ code: number | null; stderr: string }> } {
  const child = spawn(
    process.execPath,
    [
      ...['--import', 'tsx', 'src/main.ts', '--gateway', 'sim', ...ARGS],
      ...['--port', String(port), '--data-dir', dataDir, '--sim-data-dir', dataDir],
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
  const done = new Promise<{ code: number | null; stderr: string }>((r) =>
    child.once('exit', (code) => r({ code, stderr })),
  );
  return { child, done };
}

const exited = (c: ChildProcess): Promise<number | null> =>
  c.exitCode !== null || c.signalCode !== null
    ? Promise.resolve(c.exitCode)
    : new Promise((r) => c.once('exit', (code) => r(code)));

async function lockOwner(dataDir: string): Promise<{ pid: number; port: number | null; host: string }> {
  return JSON.parse(await readFile(join(dataDir, 'lightnet.lock'), 'utf8')) as {
    pid: number;
    port: number | null;
    host: string;
  };
}

/** Answers at all (`ready`: and has finished starting). */
async function healthy(port: number, ready = false): Promise<boolean> {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/lightnet/api/health`);
    return r.ok && (!ready || ((await r.json()) as { phase: string }).phase === 'ready');
  } catch {
    return false;
  }
}

describe('data folder lock', () => {
  it('a-second-host-on-the-same-folder-exits-at-once-naming-the-owner', { timeout: 120_000 }, async () => {
    const dataDir = await tmp();
    const port1 = await freePort();
    const first = await startCli(dataDir, port1, ARGS);
    children.push(first);
    const owner = await lockOwner(dataDir);
    expect(owner).toMatchObject({ pid: first.pid, port: port1, host: hostname() });

    const port2 = await freePort();
    const second = await runToExit(dataDir, port2).done;
    expect(second.code).toBe(3);
    expect(second.stderr).toContain(`the data folder ${dataDir} is in use by another Lightnet host`);
    expect(second.stderr).toContain(`pid ${first.pid}, port ${port1}`);
    // It never listened, and the owner is untouched (its lock too).
    expect(await healthy(port2)).toBe(false);
    expect(await healthy(port1)).toBe(true);
    expect((await lockOwner(dataDir)).pid).toBe(first.pid);

    // A clean shutdown releases the folder.
    first.kill('SIGTERM');
    expect(await exited(first)).toBe(0);
    expect(existsSync(join(dataDir, 'lightnet.lock'))).toBe(false);
  });

  it('after-kill-9-a-new-host-takes-the-stale-lock-over', { timeout: 120_000 }, async () => {
    const dataDir = await tmp();
    const first = await startCli(dataDir, await freePort(), ARGS);
    children.push(first);
    const deadPid = first.pid;
    first.kill('SIGKILL');
    await exited(first);
    // The crashed host left its lock behind.
    expect((await lockOwner(dataDir)).pid).toBe(deadPid);

    const port = await freePort();
    const next = await startCli(dataDir, port, ARGS);
    children.push(next);
    expect(await lockOwner(dataDir)).toMatchObject({ pid: next.pid, port });
    next.kill('SIGTERM');
    expect(await exited(next)).toBe(0);
  });

  it(
    'two-hosts-starting-at-once-over-a-stale-lock-end-with-exactly-one-running',
    { timeout: 120_000 },
    async () => {
      const dataDir = await tmp();
      // A stale lock: a process of this machine that no longer exists (a just-exited child's pid).
      const gone = spawn(process.execPath, ['-e', '0']);
      await exited(gone);
      await writeFile(
        join(dataDir, 'lightnet.lock'),
        JSON.stringify({ pid: gone.pid, host: hostname(), port: 1, started: '2026-01-01T00:00:00.000Z' }),
      );
      const ports = [await freePort(), await freePort()];
      const a = runToExit(dataDir, ports[0] ?? 0);
      const b = runToExit(dataDir, ports[1] ?? 0);
      // One of them exits with the lock message; the other becomes the owner and stays up.
      const loser = await Promise.race([a.done, b.done]);
      expect(loser.code, loser.stderr).toBe(3);
      expect(loser.stderr).toContain('is in use by another Lightnet host');
      const winner = a.child.exitCode === null ? a : b;
      const winnerPort = winner === a ? ports[0] : ports[1];
      for (let i = 0; i < 1500 && !(await healthy(winnerPort ?? 0, true)); i++) {
        if (winner.child.exitCode !== null)
          throw new Error(`both hosts exited: ${(await winner.done).stderr}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      expect((await lockOwner(dataDir)).pid).toBe(winner.child.pid);
      winner.child.kill('SIGTERM');
      expect((await winner.done).code).toBe(0);
    },
  );

  it(
    'an-import-is-refused-while-a-simulator-host-runs-on-the-folder-and-then-named-by-it',
    { timeout: 120_000 },
    async () => {
      // The layout of `npm start` with no gateway: --data-dir ./data, the simulator in ./data/simulator.
      const dataDir = await tmp();
      const simDir = join(dataDir, 'simulator');
      const asUsual = [...ARGS, '--sim-data-dir', simDir];
      const port = await freePort();
      const host = await startCli(dataDir, port, asUsual);
      children.push(host);
      expect((await lockOwner(simDir)).pid).toBe(host.pid);

      const importCli = () =>
        promisify(execFile)(process.execPath, [
          '--import',
          'tsx',
          'src/import-cli.ts',
          CLUB,
          '--data-dir',
          dataDir,
        ]);
      const refused = await importCli().then(
        () => null,
        (e: { code: number; stderr: string }) => e,
      );
      expect(refused?.code).toBe(3);
      expect(refused?.stderr).toContain(
        `import refused: a Lightnet host on the simulator (pid ${host.pid}, port ${port}) runs on the data folder ${dataDir}`,
      );
      // Nothing written, and the folder is free again for the host that owns neither lock.
      expect(existsSync(join(dataDir, 'state.json'))).toBe(false);
      expect(existsSync(join(dataDir, 'lightnet.lock'))).toBe(false);

      host.kill('SIGTERM');
      expect(await exited(host)).toBe(0);
      const done = await importCli();
      expect(done.stdout).toContain('Imported and saved.');
      expect(done.stdout).toContain(`Next: start Lightnet on ${dataDir} with the radio gateway plugged in`);

      // The simulator host started again says what the real folder now holds.
      const again = await startCli(dataDir, port, asUsual);
      children.push(again);
      const health = (await (await fetch(`http://127.0.0.1:${port}/lightnet/api/health`)).json()) as {
        data: { dir: string; real: unknown };
      };
      expect(health.data).toMatchObject({
        dir: simDir,
        real: { dir: dataDir, devices: 24, groups: 4, scenes: 5 },
      });
      again.kill('SIGTERM');
      expect(await exited(again)).toBe(0);
    },
  );
});
