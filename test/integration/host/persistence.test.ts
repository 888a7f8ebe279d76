import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort, startCli, withHost } from '../harness.ts';
import { discoverAll, runTask } from './helpers.ts';
import { testTempDir } from '../../temp-dir.ts';

const CLI_ARGS = ['--sim-nodes', '3', '--sim-time-scale', '0.1', '--log-level', 'warn'];

describe('persistence', () => {
  it('kill-9-right-after-save-loses-nothing', async () => {
    const dataDir = await testTempDir('lightnet-kill-');
    const port = await freePort();
    const base = `http://127.0.0.1:${port}/lightnet/api`;
    const post = (path: string, body: unknown) =>
      fetch(base + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    let child = await startCli(dataDir, port, CLI_ARGS);
    try {
      expect((await post('/groups/create', { name: 'Survivor' })).status).toBe(200);
      const save = await post('/save', {});
      expect(await save.json()).toEqual({ ok: true });
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      child = await startCli(dataDir, port, CLI_ARGS);
      const groups = (await (await fetch(base + '/groups')).json()) as { groups: { name: string }[] };
      expect(groups.groups.map((g) => g.name)).toContain('Survivor');
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('clean-shutdown-flushes-pending-writes', async () => {
    const dataDir = await testTempDir('lightnet-flush-');
    await withHost({ nodes: 2, dataDir }, async (h) => {
      await discoverAll(h);
      await h.post('/api/groups/create', { name: 'Late' });
    });
    const state = JSON.parse(await readFile(join(dataDir, 'state.json'), 'utf8')) as {
      groups: { name: string }[];
      devices: unknown[];
    };
    expect(state.groups.map((g) => g.name)).toEqual(['Late']);
    expect(state.devices).toHaveLength(2);
    await withHost({ nodes: 2, dataDir }, async (h) => {
      const rows = (await h.get<{ devices: { online: boolean }[] }>('/api/devices')).body.devices;
      expect(rows).toHaveLength(2);
      // Nobody is online after a restart until heard from.
      expect(rows.every((r) => !r.online)).toBe(true);
    });
  });

  it('corrupt-state-file-falls-back-to-backup-with-a-health-warning', async () => {
    const dataDir = await testTempDir('lightnet-corrupt-');
    await withHost({ nodes: 1, dataDir }, async (h) => {
      await h.post('/api/groups/create', { name: 'First' });
      await h.post('/api/save');
      await h.post('/api/groups/create', { name: 'Second' });
      await h.post('/api/save');
    });
    await writeFile(join(dataDir, 'state.json'), '{"schema_version":2,"devi');
    await withHost({ nodes: 1, dataDir }, async (h) => {
      const health = await h.get<{ warnings: string[] }>('/api/health');
      expect(health.body.warnings.join(' ')).toMatch(/corrupt.*backup/);
      const groups = (await h.get<{ groups: { name: string }[] }>('/api/groups')).body.groups;
      // The backup is the last good copy before the corrupted write: it has at least the first save.
      expect(groups.map((g) => g.name)).toContain('First');
    });
  });

  it('both-files-unusable-raises-an-alarm-that-stays-until-acknowledged', async () => {
    const dataDir = await testTempDir('lightnet-alarm-');
    await writeFile(join(dataDir, 'state.json'), 'garbage');
    await writeFile(join(dataDir, 'state.json.bak'), '{"schema_version":2,"dev');
    type Health = { warnings: string[]; persistence: { alarm: string | null } };
    await withHost({ nodes: 0, dataDir }, async (h) => {
      const health = (await h.get<Health>('/api/health')).body;
      expect(health.persistence.alarm).toMatch(/STARTED EMPTY/);
      expect(health.warnings.join(' ')).toMatch(/STARTED EMPTY/);
      await h.post('/api/groups/create', { name: 'New' });
    });
    // The next start says it again (the first start wrote a fresh state.json meanwhile).
    await withHost({ nodes: 0, dataDir }, async (h) => {
      expect((await h.get<Health>('/api/health')).body.persistence.alarm).toMatch(/STARTED EMPTY/);
      expect((await h.post('/api/health/acknowledge')).status).toBe(200);
      expect((await h.get<Health>('/api/health')).body.persistence.alarm).toBeNull();
    });
    await withHost({ nodes: 0, dataDir }, async (h) => {
      expect((await h.get<Health>('/api/health')).body.persistence.alarm).toBeNull();
      const groups = (await h.get<{ groups: { name: string }[] }>('/api/groups')).body.groups;
      expect(groups.map((g) => g.name)).toEqual(['Unconfigured', 'New']);
    });
  });

  it('reload-rereads-the-file-and-emits-a-full-refresh', async () => {
    // No nodes: nothing on the radio may change state between the edit and the reload.
    await withHost({ nodes: 0 }, async (h) => {
      const sse = await h.sse();
      await h.post('/api/groups/create', { name: 'Kept' });
      expect((await h.post('/api/save')).body).toEqual({ ok: true });
      const state = JSON.parse(await readFile(join(h.dataDir, 'state.json'), 'utf8')) as {
        groups: unknown[];
      };
      state.groups.push({ id: 2, name: 'Edited on disk', dev_type: 0 });
      await writeFile(join(h.dataDir, 'state.json'), JSON.stringify(state));
      expect((await h.post('/api/reload')).body).toEqual({ ok: true });
      const groups = (await h.get<{ groups: { name: string }[] }>('/api/groups')).body.groups;
      expect(groups.map((g) => g.name)).toEqual(['Unconfigured', 'Kept', 'Edited on disk']);
      await sse.waitFor(
        'refresh',
        (d) => JSON.stringify((d as { what: string[] }).what) === '["groups","devices"]',
      );
      await runTask(h, '/api/groups/force', {});
    });
  });
});

describe('shutdown', () => {
  it('sigterm-flushes-state-and-exits-cleanly', async () => {
    const dataDir = await testTempDir('lightnet-term-');
    const port = await freePort();
    const base = `http://127.0.0.1:${port}/lightnet/api`;
    let child = await startCli(dataDir, port, CLI_ARGS);
    try {
      const r = await fetch(base + '/groups/create', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Unsaved but flushed' }),
      });
      expect(r.status).toBe(200);
      child.kill('SIGTERM');
      const code = await new Promise((res) => child.once('exit', (c) => res(c)));
      expect(code).toBe(0);
      child = await startCli(dataDir, port, CLI_ARGS);
      const groups = (await (await fetch(base + '/groups')).json()) as { groups: { name: string }[] };
      expect(groups.groups.map((g) => g.name)).toContain('Unsaved but flushed');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
