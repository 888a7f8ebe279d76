/**
 * Issue 35 item 1: `--sim-gateways 2` on a data folder that already has one network (the
 * README's own suggestion after the set-up commands). The known gateway binds and carries
 * the whole fleet; the second waits unassigned. Nothing in the API may call that fleet down.
 */
import { describe, expect, it } from 'vitest';
import { testTempDir } from '../../temp-dir.ts';
import { until } from '../../until.ts';
import { withHost } from '../harness.ts';

interface Readiness {
  ready: boolean;
  last_error: string | null;
  gateway_mac: string | null;
  networks_ready?: number;
  networks_total?: number;
  gateways?: { network_id: number | null; network: string; gateway_mac: string | null }[];
}
interface MasterBody {
  master: { state: string; last_error: string | null; networks?: { network_id: number | null }[] };
  gateway: Readiness;
}

describe('a spare gateway beside a working network', () => {
  it('the-network-it-does-not-belong-to-stays-ready-and-the-spare-is-listed-as-unassigned', async () => {
    const dataDir = await testTempDir('lightnet-spare-');
    let macA = '';
    // First start: one gateway, one network (what `npm start` leaves behind).
    await withHost({ dataDir, nodes: 3 }, async (h) => {
      const n = await until('network 1 bound', async () => {
        const r = await h.get<{ networks: { id: number; state: string; gateway_mac: string }[] }>(
          '/api/networks',
        );
        return r.body.networks[0]?.state === 'ready' ? r.body.networks : null;
      });
      expect(n).toHaveLength(1);
      macA = n[0]!.gateway_mac;
    });

    // Then `--sim-gateways 2` on the same folder: the known gateway and a spare one.
    await withHost({ dataDir, nodes: 3, simGateways: 2 }, async (h) => {
      const macB = h.host.sims[1]!.fleet.gateway.mac.replace(/:/g, '');
      const nets = await until('the spare gateway unassigned', async () => {
        const r = await h.get<{
          networks: { id: number; state: string }[];
          unassigned: { gateway_mac: string | null; ready: boolean }[];
        }>('/api/networks');
        return r.body.unassigned.some((g) => g.gateway_mac === macB && g.ready) ? r.body : null;
      });
      expect(nets.networks).toMatchObject([{ id: 1, state: 'ready' }]);

      const gw = (await h.get<{ gateway: Readiness }>('/api/gateway')).body.gateway;
      expect(gw).toMatchObject({
        ready: true,
        last_error: null,
        gateway_mac: macA.match(/.{2}/g)!.join(':'),
        networks_ready: 1,
        networks_total: 1,
      });
      // Listed as what it is: a gateway in no network.
      expect(gw.gateways?.map((g) => [g.network_id, g.gateway_mac?.replace(/:/g, '')])).toEqual([
        [1, macA],
        [null, macB],
      ]);

      const m = (await h.get<MasterBody>('/api/master')).body;
      expect(m.gateway.ready).toBe(true);
      expect(m.master.state).not.toBe('UNKNOWN');
      expect(m.master.last_error).toBeNull();
      // Only networks in the master's per-network list (the UI reloads the list when they differ).
      expect(m.master.networks?.map((x) => x.network_id)).toEqual([1]);

      const health = (await h.get<{ phase: string; warnings: string[] }>('/api/health')).body;
      expect(health.phase).toBe('ready');
      expect(health.warnings.join('\n')).toMatch(new RegExp(`gateway ${macB} .*belongs to no network`));
      expect(health.warnings.join('\n')).not.toMatch(/not connected|down/i);
    });
  });
});
