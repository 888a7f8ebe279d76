/**
 * A full disk and a read-only disk under the real host (production bundle, child process):
 * a change that cannot be written is refused (507 / 500 naming the cause) and never served,
 * the last good files stay intact, /api/health shows the error and clears by itself once
 * writes work again. Needs a mountable tmpfs (root, or a container that allows it); the
 * tests skip with a message where the machine cannot mount one.
 */
import { readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  buildBundle,
  fill,
  startHostProc,
  tmpfs,
  type Bundle,
  type HostProc,
} from './durability-helpers.ts';

type Health = { warnings: string[]; persistence: { error: string | null; alarm: string | null } };

/** Waits (polling /api/health) until `pred` holds; the probe retries with backoff. */
async function healthUntil(host: HostProc, pred: (h: Health) => boolean): Promise<Health> {
  for (let i = 0; i < 600; i++) {
    const h = (await api<Health>(host.api, 'GET', '/health')).body;
    if (pred(h)) return h;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('health never reached the expected state');
}

const groupNames = async (host: HostProc): Promise<string[]> =>
  (await api<{ groups: { name: string }[] }>(host.api, 'GET', '/groups')).body.groups.map((g) => g.name);

describe('durability on a full or read-only disk', () => {
  let bundle: Bundle;
  beforeAll(async () => {
    bundle = await buildBundle();
  }, 120_000);
  afterAll(async () => bundle?.dispose());

  it('full-disk-refuses-changes-keeps-the-last-good-files-and-recovers', async (ctx) => {
    const m = await tmpfs('64k');
    if (typeof m === 'string') {
      console.warn(`skipped: ${m}`);
      ctx.skip();
      return;
    }
    let host: HostProc | null = null;
    try {
      // Time scale 0.1: the write probe (1 s, 2 s, … virtual) retries quickly.
      host = await startHostProc(bundle.main, m.dir, ['--sim-time-scale', '0.1']);
      expect((await api(host.api, 'POST', '/groups/create', { name: 'Kept' })).status).toBe(200);
      expect((await api(host.api, 'POST', '/save')).status).toBe(200);
      const goodMain = await readFile(join(m.dir, 'state.json'), 'utf8');
      const filler = fill(m.dir);

      // Changes until one is refused (appends may still fit the journal's last block).
      const accepted: string[] = [];
      let refused: { status: number; body: { ok: boolean; error: string } } | null = null;
      for (let i = 0; i < 200 && !refused; i++) {
        const label = `scene ${i} ${'x'.repeat(150)}`;
        const r = await api<{ ok: boolean; error: string }>(host.api, 'POST', '/scenes', {
          label,
          actions: [],
        });
        if (r.status === 200) accepted.push(label);
        else refused = r;
      }
      expect(refused?.status).toBe(507);
      expect(refused?.body).toMatchObject({ ok: false });
      expect(refused?.body.error).toMatch(/ENOSPC/);
      const scenes = (await api<{ scenes: { label: string }[] }>(host.api, 'GET', '/scenes')).body.scenes;
      // The refused change is not served; every accepted one is.
      expect(scenes.map((s) => s.label)).toEqual(accepted);
      const h = (await api<Health>(host.api, 'GET', '/health')).body;
      expect(h.persistence.error).toMatch(/ENOSPC/);
      expect(h.warnings.join(' ')).toMatch(/ENOSPC/);

      // A save on the full disk fails loudly and damages nothing.
      const save = await api<{ ok: boolean; error: string }>(host.api, 'POST', '/save');
      expect(save.status).toBe(507);
      expect(save.body.error).toMatch(/ENOSPC/);
      expect(await readFile(join(m.dir, 'state.json'), 'utf8')).toBe(goodMain);
      JSON.parse(await readFile(join(m.dir, 'state.json'), 'utf8'));

      // Space again: the error clears by itself, and changes work.
      await unlink(filler);
      await healthUntil(host, (x) => x.persistence.error === null);
      expect((await api(host.api, 'POST', '/groups/create', { name: 'After' })).status).toBe(200);
      await host.kill();
      host = await startHostProc(bundle.main, m.dir);
      expect(await groupNames(host)).toEqual(['Unconfigured', 'Kept', 'After']);
      const again = (await api<{ scenes: { label: string }[] }>(host.api, 'GET', '/scenes')).body.scenes;
      expect(again.map((s) => s.label)).toEqual(accepted);
      expect((await api<Health>(host.api, 'GET', '/health')).body.persistence).toEqual({
        error: null,
        alarm: null,
      });
    } finally {
      await host?.kill();
      await m.dispose();
    }
  }, 120_000);

  it('read-only-data-dir-refuses-changes-and-kill-9-loses-nothing-acknowledged', async (ctx) => {
    const m = await tmpfs('4m');
    if (typeof m === 'string') {
      console.warn(`skipped: ${m}`);
      ctx.skip();
      return;
    }
    let host: HostProc | null = null;
    try {
      host = await startHostProc(bundle.main, m.dir);
      expect((await api(host.api, 'POST', '/groups/create', { name: 'Before' })).status).toBe(200);
      // A filesystem with files open for writing cannot be remounted: stop, remount, start.
      expect(await host.stop()).toBe(0);
      m.remount('ro');
      host = await startHostProc(bundle.main, m.dir);
      let acknowledged = 0;
      for (let i = 0; i < 10; i++) {
        const r = await api<{ error: string }>(host.api, 'POST', '/groups/create', { name: `RO ${i}` });
        if (r.status === 200) acknowledged++;
        else {
          expect(r.status).toBe(500);
          expect(r.body.error).toMatch(/EROFS/);
        }
      }
      expect(acknowledged).toBe(0);
      expect(await groupNames(host)).toEqual(['Unconfigured', 'Before']);
      expect((await api<Health>(host.api, 'GET', '/health')).body.persistence.error).toMatch(/EROFS/);
      await host.kill();
      m.remount('rw');
      host = await startHostProc(bundle.main, m.dir);
      expect(await groupNames(host)).toEqual(['Unconfigured', 'Before']);
    } finally {
      await host?.kill();
      await m.dispose();
    }
  }, 120_000);
});
