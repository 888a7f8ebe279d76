/**
 * Simulated devices in a real data folder: older versions saved the simulated fleet into
 * `./data`. On a real gateway (here: another fleet behind a TCP gateway, which the host
 * cannot tell from hardware) the host finds them by the simulator's seeded addresses and
 * says so in /api/health; a host on the simulator keeps its own folder.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScaledClock } from '../../../src/clock.ts';
import { createFleet } from '../../../src/sim/fleet.ts';
import { startSimTcpServer } from '../../../src/sim/sim-host.ts';
import { withHost } from '../harness.ts';
import { discoverAll } from './helpers.ts';

interface Health {
  warnings: string[];
  data: { dir: string; simulated: boolean; simulated_leftovers: string[] };
}

describe('simulated devices in a real data folder', () => {
  it('a-real-gateway-host-names-the-simulators-devices-left-in-its-folder', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-leftovers-'));
    const fleet = createFleet({ nodes: 3, seed: 99, clock: new ScaledClock(1) });
    fleet.start();
    await fleet.gateway.whenBooted();
    const tcp = await startSimTcpServer({ host: '127.0.0.1', port: 0, fleet });
    try {
      // What an older version did: the simulator (seed 1, 4 nodes) saving into this folder.
      let simAddrs: string[] = [];
      await withHost({ nodes: 4, seed: 1, dataDir }, async (h) => {
        simAddrs = (await discoverAll(h)).map((d) => d.addr).sort();
        expect(simAddrs).toHaveLength(4);
      });
      // Now with a real gateway on the same folder (the host's --sim-* options unchanged).
      await withHost(
        { nodes: 4, seed: 1, dataDir, gateway: { kind: 'tcp', host: '127.0.0.1', port: tcp.port } },
        async (h) => {
          const health = (await h.get<Health>('/api/health')).body;
          expect(health.data.simulated).toBe(false);
          expect([...health.data.simulated_leftovers].sort()).toEqual(simAddrs);
          expect(health.warnings).toContain('data: 4 simulated device(s) saved here by an older version');
          // The real devices are not among them.
          const real = fleet.nodes.map((n) => n.addr);
          expect(health.data.simulated_leftovers.filter((a) => real.includes(a))).toEqual([]);
          // The warning's advice works: forgotten, they are no longer left-overs.
          const forgot = await h.post('/api/devices/forget', { macs: health.data.simulated_leftovers });
          expect(forgot.status).toBe(200);
          const after = (await h.get<Health>('/api/health')).body;
          expect(after.data.simulated_leftovers).toEqual([]);
          expect(after.warnings.filter((w) => w.startsWith('data:'))).toEqual([]);
        },
      );
    } finally {
      await tcp.close();
      fleet.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
