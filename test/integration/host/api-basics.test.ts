import { describe, expect, it } from 'vitest';
import { withHost } from '../harness.ts';

describe('API basics against the simulated fleet', () => {
  it('health-master-task-gateway-options-and-wifi-snapshots', async () => {
    // No simulated nodes: on the stepped test clock their boot announcements can arrive within
    // a few HTTP round trips, and this test checks the empty lists.
    await withHost({ nodes: 0 }, async (h) => {
      expect((await h.get('/api/devices')).body).toEqual({ ok: true, devices: [] });
      const groups = await h.get<{ groups: unknown[] }>('/api/groups');
      expect(groups.body.groups).toEqual([
        { id: 0, name: 'Unconfigured', static: true, dev_type: 0, device_count: 0, caps_in_group: {} },
      ]);
      const health = await h.get('/api/health');
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({ ok: true, phase: 'ready' });
      expect(typeof health.body.ts).toBe('number');
      expect(health.body.warnings).toEqual(expect.arrayContaining([expect.stringMatching(/simulated/)]));

      const master = await h.get('/api/master');
      expect(master.body).toMatchObject({ ok: true, task: null, gateway: { ready: true, transport: 'sim' } });
      expect(master.body.master).toMatchObject({ state: expect.any(String), state_byte: expect.any(Number) });

      expect((await h.get('/api/task')).body).toEqual({ ok: true, task: null });
      const gw = await h.get('/api/gateway');
      expect(gw.body).toMatchObject({
        ok: true,
        gateway: { ready: true, last_error: null, failure_count: 0, transport: 'sim' },
      });
      expect((await h.get('/api/options')).body).toEqual({ ok: true, presets: [] });
      expect((await h.get('/api/wifi/interfaces')).body).toMatchObject({
        ok: true,
        ifaces: [],
        backend: 'none',
        canSwitch: false,
      });
    });
  });

  it('unknown-routes-and-wrong-methods-answer-json', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      const nf = await h.get('/api/nope');
      expect(nf.status).toBe(404);
      expect(nf.body).toMatchObject({ ok: false, error: expect.stringContaining('/api/nope') });
      const wm = await h.get('/api/discover');
      expect(wm.status).toBe(405);
      expect(wm.body).toMatchObject({ ok: false });
      expect(wm.headers.get('allow')).toContain('POST');
      expect(wm.body).toMatchObject({
        error: 'method GET not allowed for /lightnet/api/discover: it answers POST',
      });
      // A POST meant for a sub-route names it (and the methods the path does answer).
      const groups = await h.post('/api/groups', { name: 'Gates' });
      expect(groups.status).toBe(405);
      expect(groups.headers.get('allow')).toBe('GET, HEAD');
      expect(groups.body).toMatchObject({
        ok: false,
        error:
          'method POST not allowed for /lightnet/api/groups: it answers GET, HEAD; to create one: ' +
          'POST /lightnet/api/groups/create (POST also goes to /lightnet/api/groups/delete, ' +
          '/lightnet/api/groups/force, /lightnet/api/groups/rename)',
      });
      const outside = await fetch(h.url.replace('/lightnet', '') + '/other');
      expect(outside.status).toBe(404);
      expect(await outside.json()).toMatchObject({ ok: false });
    });
  });

  it('empty-bodies-are-empty-objects-and-non-json-bodies-are-refused', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      const r1 = await h.post('/api/groups/create', 'not json', {
        headers: { 'content-type': 'text/plain' },
      });
      expect(r1.status).toBe(415);
      expect(r1.body).toEqual({
        ok: false,
        error: 'content-type: expected application/json, got text/plain',
      });
      const r2 = await h.post('/api/groups/force', '');
      expect(r2.status).toBe(200);
      await h.waitTask((r2.body.task as { id: number }).id);
      // More in request-bodies.test.ts.
    });
  });

  it('gateway-query-state-and-retry', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      const q = await h.post('/api/gateway/query-state');
      expect(q.status).toBe(200);
      expect(q.body).toMatchObject({
        ok: true,
        state: expect.any(String),
        state_byte: expect.any(Number),
        state_metadata_ms: 0,
      });
      const r = await h.post('/api/gateway/retry');
      expect(r.body).toMatchObject({ ok: true, gateway: { ready: true } });
    });
  });

  it('oversized-bodies-are-refused-with-413', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) });
      const r = await h.post('/api/groups/create', big);
      expect(r.status).toBe(413);
      expect(r.body).toMatchObject({ ok: false, error: expect.stringMatching(/too large/) });
    });
  });
});
