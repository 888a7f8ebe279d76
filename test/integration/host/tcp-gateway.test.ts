import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { withHost } from '../harness.ts';
import { runTask } from './helpers.ts';

/** Starts `npm run sim -- --listen 127.0.0.1:0 …` and resolves with the port it printed. */
function startSimProcess(nodes: number, seed: number) {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/sim/cli.ts',
      '--listen',
      '127.0.0.1:0',
      '--sim-nodes',
      String(nodes),
      '--sim-seed',
      String(seed),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const port = new Promise<number>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.on('line', (line) => {
      try {
        const j = JSON.parse(line) as { port?: number };
        if (typeof j.port === 'number') resolve(j.port);
      } catch {
        /* not a JSON line */
      }
    });
    child.once('exit', (c) => reject(new Error(`sim exited with ${c}`)));
  });
  return { child, port };
}

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
