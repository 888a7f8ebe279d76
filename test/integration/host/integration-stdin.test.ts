/**
 * A host serving the RotorHazard plugin, as real processes. Run by hand or as a service in
 * attach mode, its stdin is /dev/null (systemd's default): it must stay up — an exit 0 is
 * not restarted by Restart=on-failure. Only the plugin's child, started with
 * --exit-on-stdin-close and a stdin pipe the plugin holds, ends when that pipe closes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../harness.ts';

const SECRET = 'stdin-test-secret-0123456789';
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
  port: number;
}

/** Starts `src/main.ts --integration rotorhazard` and waits for its listening line. */
async function start(stdin: 'ignore' | 'pipe', extra: string[] = []): Promise<Started> {
  const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-stdin-'));
  dirs.push(dataDir);
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      ...['--import', 'tsx', 'src/main.ts', '--gateway', 'sim', '--sim-nodes', '1', '--wifi', 'none'],
      ...['--port', String(port), '--data-dir', dataDir, '--sim-data-dir', dataDir],
      ...['--integration', 'rotorhazard', ...extra],
    ],
    // 'ignore' gives the child /dev/null as stdin, as systemd does.
    { stdio: [stdin, 'pipe', 'pipe'], env: { ...process.env, LIGHTNET_INTEGRATION_SECRET: SECRET } },
  );
  children.push(child);
  let out = '';
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  await new Promise<void>((resolve, reject) => {
    const onData = (b: Buffer): void => {
      out += b.toString();
      if (out.includes('"lightnet":"listening"')) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then((code) => reject(new Error(`host exited (${code}) before listening:\n${out}`)));
  });
  return { child, output: () => out, exited, port };
}

const shutdownSignal = (out: string): string | null =>
  /"signal":"([^"]+)"[^\n]*shutting down/.exec(out)?.[1] ?? null;

describe('integration host and its stdin', () => {
  it(
    'a-host-with-stdin-dev-null-stays-up-and-answers-the-plugin-until-sigterm',
    { timeout: 60_000 },
    async () => {
      const h = await start('ignore');
      // It answers, the plugin routes included (the heat feed with the shared secret).
      const base = `http://127.0.0.1:${h.port}/lightnet/api`;
      const heat = await fetch(`${base}/integration/heat`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'x-lightnet-integration': SECRET },
        body: JSON.stringify({ heat_id: 1, seats: [{ seat: 0, callsign: 'Ace' }] }),
      });
      expect(heat.status).toBe(200);
      const view = (await (await fetch(`${base}/integration`)).json()) as { mode: string };
      expect(view.mode).toBe('rotorhazard');
      // Still running, and what stops it is our SIGTERM — not its stdin ending.
      expect(h.child.exitCode).toBeNull();
      h.child.kill('SIGTERM');
      expect(await h.exited).toBe(0);
      expect(shutdownSignal(h.output())).toBe('SIGTERM');
    },
  );

  it('the-plugin-managed-host-exits-when-the-stdin-pipe-closes', { timeout: 60_000 }, async () => {
    const h = await start('pipe', ['--exit-on-stdin-close']);
    expect((await fetch(`http://127.0.0.1:${h.port}/lightnet/api/health`)).ok).toBe(true);
    // The plugin (RotorHazard) goes away: its end of the pipe closes.
    h.child.stdin?.end();
    expect(await h.exited).toBe(0);
    expect(shutdownSignal(h.output())).toBe('stdin closed');
  });
});
