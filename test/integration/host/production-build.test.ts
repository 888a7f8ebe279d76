/**
 * `npm start` runs the esbuild bundle, not the TypeScript sources: build it into a temp
 * folder, start it as its own process on the simulator and use it like an operator.
 */
import { existsSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../harness.ts';

async function json(url: string, init?: RequestInit): Promise<Record<string, unknown>> {
  return (await (await fetch(url, init)).json()) as Record<string, unknown>;
}

describe('production build', () => {
  it('the-bundled-server-starts-serves-and-stops-cleanly', async () => {
    // Inside the project (dist/ is git-ignored), so the bundle resolves serialport from node_modules.
    await mkdir(join(process.cwd(), 'dist'), { recursive: true });
    const dir = await mkdtemp(join(process.cwd(), 'dist', 'test-build-'));
    try {
      const build = spawnSync(process.execPath, ['scripts/build-server.mjs', '--out', join(dir, 'server')], {
        encoding: 'utf8',
      });
      expect(build.status, build.stderr).toBe(0);
      const port = await freePort();
      const child = spawn(
        process.execPath,
        [
          join(dir, 'server', 'main.js'),
          ...['--gateway', 'sim', '--sim-nodes', '3', '--sim-time-scale', '0.1'],
          ...[
            '--port',
            String(port),
            '--data-dir',
            join(dir, 'data'),
            '--wifi',
            'none',
            '--log-level',
            'warn',
          ],
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      const api = `http://127.0.0.1:${port}/lightnet/api`;
      let ready = false;
      for (let i = 0; i < 1500 && !ready && child.exitCode === null; i++) {
        ready = await json(`${api}/health`).then(
          (h) => h.phase === 'ready',
          () => false,
        );
        if (!ready) await new Promise((r) => setTimeout(r, 20));
      }
      expect(ready, stderr).toBe(true);

      const jsonType = { 'content-type': 'application/json' };
      const task = (await json(`${api}/discover`, { method: 'POST', headers: jsonType, body: '{}' }))
        .task as {
        id: number;
      };
      for (let i = 0; i < 1500; i++) {
        const t = (await json(`${api}/task`)).task as { id: number; state: string };
        if (t.id === task.id && t.state !== 'running') break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const list = await fetch(`${api}/devices`, { headers: { 'accept-encoding': 'gzip' } });
      expect(list.headers.get('etag')).toMatch(/^W\//);
      expect(((await list.json()) as { devices: unknown[] }).devices).toHaveLength(3);
      expect((await json(`${api}/groups`)).ok).toBe(true);
      expect((await json(`${api}/gateway`)).gateway).toMatchObject({ transport: 'sim', ready: true });
      expect((await fetch(`${api}/nope`)).status).toBe(404);

      // Writes to disk work in the bundle (CommonJS dependencies need __filename there).
      const form = new FormData();
      form.append('file', new Blob(['{"0":{},"1":{"n":"Red"}}'], { type: 'application/json' }), 'red.json');
      const up = await json(`${api}/presets/upload`, { method: 'POST', body: form });
      expect(up, JSON.stringify(up)).toMatchObject({ ok: true });
      expect(await json(`${api}/save`, { method: 'POST' })).toEqual({ ok: true });
      const saved = JSON.parse(await readFile(join(dir, 'data', 'simulator', 'state.json'), 'utf8')) as {
        devices: unknown[];
      };
      expect(saved.devices).toHaveLength(3);
      // Simulated devices live in the simulator's own folder, never in the real one.
      expect(existsSync(join(dir, 'data', 'state.json'))).toBe(false);
      expect(await json(`${api}/health`)).toMatchObject({
        data: { dir: join(dir, 'data', 'simulator'), simulated: true },
      });
      const bad = await fetch(`${api}/scenes`, {
        method: 'POST',
        headers: jsonType,
        body: JSON.stringify({ label: '' }),
      });
      expect(bad.status).toBe(400);

      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(stderr).not.toMatch(/error/i);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
