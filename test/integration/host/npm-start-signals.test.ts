/**
 * `npm start` owns the server's lifetime: SIGTERM to the npm process (what a service
 * manager or the timing plugin's supervisor sends to the process it started) stops the
 * host and frees its port — no orphaned node server.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../harness.ts';

const answers = async (url: string): Promise<boolean> => {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
};

describe('npm start', () => {
  it('sigterm-to-npm-start-stops-the-server-and-frees-the-port', { timeout: 180_000 }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-npm-start-'));
    const port = await freePort();
    const npm = process.env.npm_execpath;
    const args = [
      'start',
      '--',
      '--port',
      String(port),
      '--data-dir',
      dataDir,
      '--gateway',
      'sim',
      '--sim-nodes',
      '2',
    ];
    const child = npm
      ? spawn(process.execPath, [npm, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('npm', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const health = `http://127.0.0.1:${port}/lightnet/api/health`;
    try {
      // Up once "lightnet ready" is logged (a rebuild of dist/ may come first).
      await new Promise<void>((resolve, reject) => {
        const check = () => /lightnet ready/.test(out) && (child.stdout.off('data', check), resolve());
        child.stdout.on('data', check);
        child.once('exit', () => reject(new Error(`npm start exited early:\n${out}`)));
        check();
      });
      expect(await answers(health)).toBe(true);
      child.kill('SIGTERM');
      await exited;
      // The server went with it: the log says so and nothing answers on the port.
      expect(out).toMatch(/shutting down/);
      expect(out).toMatch(/lightnet stopped/);
      expect(await answers(health)).toBe(false);
      // Not a terminal: the log stays JSON lines for machines.
      // The printed address is the one that works (with the trailing slash).
      expect(out).toContain(`"msg":"lightnet ready — open http://127.0.0.1:${port}/lightnet/"`);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
