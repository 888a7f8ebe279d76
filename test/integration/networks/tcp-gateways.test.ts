import { describe, expect, it } from 'vitest';
import { withHost } from '../harness.ts';
import { startSimProcess } from '../sim-process.ts';
import { runTask } from '../host/helpers.ts';

describe('a --gateway list over TCP', () => {
  it('two-tcp-gateways-become-two-networks-on-an-empty-data-folder', async () => {
    const a = startSimProcess(3, 11, '48:CA:43:10:20:30');
    const b = startSimProcess(3, 12, '48:CA:43:10:21:30');
    try {
      const [pa, pb] = await Promise.all([a.port, b.port]);
      await withHost(
        {
          gateways: [
            { kind: 'tcp', host: '127.0.0.1', port: pa },
            { kind: 'tcp', host: '127.0.0.1', port: pb },
          ],
        },
        async (h) => {
          const poll = async () =>
            (await h.get<{ networks: { id: number; state: string; gateway_mac: string }[] }>('/api/networks'))
              .body.networks;
          const end = Date.now() + 20_000;
          while ((await poll()).filter((n) => n.state === 'ready').length < 2) {
            if (Date.now() > end) throw new Error('the two TCP gateways never became ready');
            await new Promise((r) => setTimeout(r, 50));
          }
          expect((await poll()).map((n) => n.gateway_mac).sort()).toEqual(['48CA43102030', '48CA43102130']);
          const t = await runTask(h, '/api/discover', { newGroupName: 'Remote' });
          expect(t.state, t.last_error ?? '').toBe('done');
          const gw = await h.get<{ gateway: { ready: boolean; networks_total: number; transport: string } }>(
            '/api/gateway',
          );
          expect(gw.body.gateway).toMatchObject({ ready: true, networks_total: 2, transport: 'tcp' });
          const rows = (await h.get<{ devices: { network_id: number }[] }>('/api/devices')).body.devices;
          expect(new Set(rows.map((r) => r.network_id))).toEqual(new Set([1, 2]));
        },
      );
    } finally {
      a.child.kill('SIGTERM');
      b.child.kill('SIGTERM');
    }
  });
});
