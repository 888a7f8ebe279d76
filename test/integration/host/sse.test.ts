import { describe, expect, it } from 'vitest';
import { withHost } from '../harness.ts';
import { discoverAll, simAddrs } from './helpers.ts';

describe('live events', () => {
  it('connect-before-any-task-gets-master-but-no-null-task-then-keepalive-pings', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      const sse = await h.sse();
      expect(sse.headers.get('content-type')).toMatch(/text\/event-stream/);
      expect(sse.headers.get('connection')).toBe('close');
      const master = await sse.waitFor('master');
      expect(master.data).toMatchObject({ state: expect.any(String), state_byte: expect.any(Number) });
      const seen = sse.comments;
      const start = Date.now();
      while (sse.comments <= seen) {
        await new Promise((r) => setTimeout(r, 100));
        if (Date.now() - start > 5000) throw new Error('no keep-alive within 5 s');
      }
      // Everything sent on connect precedes the first keep-alive: no task has run, so no `task`.
      expect(sse.events.filter((e) => e.event === 'task')).toEqual([]);
    });
  });

  it('connect-after-a-task-gets-its-snapshot', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      await discoverAll(h);
      const sse = await h.sse();
      const task = await sse.waitFor('task');
      expect(task.data).toMatchObject({ name: 'discover', state: 'done', elapsed_s: expect.any(Number) });
    });
  });

  it('every-scope-yields-its-refresh-token', async () => {
    await withHost({ nodes: 2 }, async (h) => {
      const sse = await h.sse();
      const has = (token: string) => (d: unknown) => (d as { what: string[] }).what.includes(token);
      await h.post('/api/groups/create', { name: 'G' });
      await sse.waitFor('refresh', has('groups'));
      await discoverAll(h);
      await sse.waitFor('refresh', has('devices'));
      const [a] = simAddrs(h);
      const before = sse.events.length;
      await h.post('/api/devices/update-meta', { macs: [a], name: 'Renamed' });
      await sse.waitFor('refresh', (d) => has('devices')(d) && sse.events.length > before);
      const t = await sse.waitFor('task', (x) => (x as { state?: string } | null)?.state === 'done');
      expect(t.data).toMatchObject({ name: 'discover', elapsed_s: expect.any(Number) });
    });
  });
});
