import { describe, expect, it } from 'vitest';
import { withHost } from '../harness.ts';
import { discoverAll } from './helpers.ts';

describe('gateway link', () => {
  it('gateway-unplugged-mid-status-poll', async () => {
    await withHost({ nodes: 6 }, async (h) => {
      await discoverAll(h, { newGroupName: 'G' });
      const sse = await h.sse();
      const start = await h.post<{ task: { id: number } }>('/api/status', {});
      h.host.sim?.fleet.faults.dropLink();
      const down = await sse.waitFor('gateway', (g) => (g as { ready: boolean }).ready === false);
      expect(down.data).toMatchObject({ ready: false, last_error: expect.any(String) });
      const t = await h.waitTask(start.body.task.id);
      // The poll ends either way; it never hangs and never claims replies it did not get.
      expect(['done', 'error']).toContain(t.state);
      const gw = await h.get<{ gateway: { ready: boolean; failure_count: number } }>('/api/gateway');
      expect(gw.body.gateway.ready).toBe(false);
      const q = await h.post('/api/gateway/query-state');
      expect(q.status).toBe(503);
      expect(q.body).toMatchObject({
        ok: false,
        state: 'UNKNOWN',
        state_byte: 255,
        error: 'gateway_service unavailable',
      });
      const ctl = await h.post('/api/devices/control', { groupId: 1, flags: 5, presetId: 1, brightness: 10 });
      expect(ctl.body).toMatchObject({ ok: true, changed: 0 });

      h.host.sim?.fleet.faults.restoreLink();
      await sse.waitFor('gateway', (g) => (g as { ready: boolean }).ready === true);
      const after = await h.post('/api/devices/control', {
        groupId: 1,
        flags: 5,
        presetId: 1,
        brightness: 10,
      });
      expect(after.body).toEqual({ ok: true, changed: 1 });
      const poll = await h.post<{ task: { id: number } }>('/api/status', {});
      const again = await h.waitTask(poll.body.task.id);
      expect(again.result).toMatchObject({ updated: 6 });
    });
  });
});
