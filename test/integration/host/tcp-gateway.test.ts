import { describe, expect, it } from 'vitest';
import { withHost } from '../harness.ts';
import { startSimProcess } from '../sim-process.ts';
import { runTask } from './helpers.ts';

describe('gateway over TCP (ser2net style)', () => {
  it('host-drives-a-simulator-in-another-process-over-tcp', async () => {
    const sim = startSimProcess(4, 11);
    try {
      const port = await sim.port;
      await withHost({ gateway: { kind: 'tcp', host: '127.0.0.1', port } }, async (h) => {
        const gw = await h.get('/api/gateway');
        expect(gw.body.gateway).toMatchObject({ ready: true, transport: 'tcp', port: `127.0.0.1:${port}` });
        const t = await runTask(h, '/api/discover', { newGroupName: 'Remote' });
        expect(t.result).toMatchObject({ found: 4, targetGroupId: 1 });
        const ctl = await h.post('/api/devices/control', {
          groupId: 1,
          flags: 5,
          presetId: 2,
          brightness: 128,
        });
        expect(ctl.body).toEqual({ ok: true, changed: 1 });
      });
    } finally {
      sim.child.kill('SIGTERM');
    }
  });
});
