import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { processRunner } from '../../../src/services/wifi/command-runner.ts';
import { withHost } from '../harness.ts';

const fakeBin = fileURLToPath(new URL('../../fixtures/bin', import.meta.url));

describe('tasks and host wifi', () => {
  it('running-task-can-be-cancelled', async () => {
    await withHost({ nodes: 4 }, async (h) => {
      const sse = await h.sse();
      const start = await h.post<{ task: { id: number } }>('/api/discover', {});
      const c = await h.post('/api/task/cancel');
      expect(c.body).toMatchObject({
        ok: true,
        cancelled: true,
        task: { id: start.body.task.id, cancel_requested: true },
      });
      const t = await h.waitTask(start.body.task.id);
      expect(t).toMatchObject({ state: 'error', last_error: 'cancelled' });
      await sse.waitFor('task', (x) => (x as { last_error?: string } | null)?.last_error === 'cancelled');
      expect((await h.post('/api/task/cancel')).body).toMatchObject({ ok: true, cancelled: false });
      const master = await h.get<{ master: { last_event: string; last_error: string } }>('/api/master');
      expect(master.body.master).toMatchObject({
        last_event: 'TASK_DISCOVER_ERROR',
        last_error: 'cancelled',
      });
      // The slot is free again.
      const next = await h.post<{ task: { id: number } }>('/api/status', {});
      expect(next.status).toBe(200);
      await h.waitTask(next.body.task.id);
    });
  });

  it('wifi-interfaces-come-from-nmcli', async () => {
    const runner = processRunner({ ...process.env, PATH: `${fakeBin}:${process.env.PATH ?? ''}` });
    await withHost({ nodes: 1, wifi: 'nmcli', overrides: { runner } }, async (h) => {
      const r = await h.get('/api/wifi/interfaces');
      expect(r.body).toEqual({
        ok: true,
        ifaces: [
          { name: 'wlan0', state: 'connected', type: 'wifi', connection: 'Track: Pit WiFi' },
          { name: 'wlan1', state: 'disconnected', type: 'wifi', connection: null },
        ],
        // NetworkManager runs and WiFi interfaces exist: the host can join node APs.
        backend: 'nmcli',
        canSwitch: true,
        problem: null,
      });
    });
  });
});
