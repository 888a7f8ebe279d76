/**
 * Issue 35 item 2: a fresh `--sim-gateways 2` start leaves every node in group 0 (never
 * discovered). Moving such a network used to end "5 of 12 back in their groups, 7 not moved
 * or stranded": a node in group 0 gets no SET_GROUP, and its boot announcements on the new
 * channel went out while the gateway was still verifying on the old one, so nothing was
 * ever heard from it. A node heard on the new channel in the group it had is home.
 */
import { describe, expect, it } from 'vitest';
import { findChannel, sameRf } from '../../../src/domain/rf-channels.ts';
import { snrFloorDb } from '../../../src/sim/air.ts';
import type { TaskSnapshot } from '../../../src/tasks/task-manager.ts';
import { until } from '../../until.ts';
import { withHost } from '../harness.ts';

const CH3 = findChannel('EU868', 3)!.rf;

interface Result {
  summary: { devices: number; rebound: number; stranded: number; not_moved: number };
  stranded: string[];
  not_moved: string[];
  hint: string | null;
}

describe('RF migration of nodes never discovered (group 0)', () => {
  it('every-node-heard-on-the-new-channel-in-group-0-is-home-none-stranded', async () => {
    await withHost({ nodes: 12, seed: 1, simGateways: 2 }, async (h) => {
      const sim = h.host.sims.find((s) => s.fleet.gateway.mac.replace(/:/g, '') === '48CA43102030')!;
      const mac = sim.fleet.gateway.mac.replace(/:/g, '');
      const floor = snrFloorDb(7);
      const healthy = sim.fleet.nodes
        .filter((n) => (sim.fleet.air.qualityOf(n.addr)?.snr ?? -99) >= floor + 1.5)
        .map((n) => n.addr);
      // The nodes announce themselves: known, online, in group 0 — as a fresh start leaves them.
      const id = await until('the healthy nodes known on their network', async () => {
        const nets = (await h.get<{ networks: { id: number; gateway_mac: string }[] }>('/api/networks')).body
          .networks;
        const net = nets.find((n) => n.gateway_mac === mac);
        const rows = (
          await h.get<{ devices: { addr: string; groupId: number; online: boolean; network_id: number }[] }>(
            '/api/devices',
          )
        ).body.devices;
        const known = rows.filter((d) => d.network_id === net?.id && d.online);
        return net && healthy.every((a) => known.some((d) => d.addr === a && d.groupId === 0))
          ? net.id
          : null;
      });

      const res = await h.post<{ task: TaskSnapshot }>(`/api/networks/${id}/migrate`, {
        region: 'EU868',
        channel_id: 3,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const t = await h.waitTask(res.body.task.id, 300_000);
      expect(t.last_error).toBeNull();
      const r = t.result as Result;
      // Every healthy node moved and is reported home; a marginal one may be reported left.
      for (const a of healthy) {
        const node = sim.fleet.nodes.find((n) => n.addr === a)!;
        expect(node.snapshot().rf, a).toEqual(CH3);
        expect(r.stranded, 'a node on the new channel reported stranded').not.toContain(a);
        expect(r.not_moved).not.toContain(a);
      }
      expect(r.summary.rebound).toBeGreaterThanOrEqual(healthy.length);
      expect(r.summary.rebound + r.summary.stranded + r.summary.not_moved).toBe(r.summary.devices);
      if (r.stranded.length === 0 && r.not_moved.length === 0) expect(r.hint).toBeNull();
      expect(sameRf(sim.fleet.gateway.rf, CH3)).toBe(true);
    });
  });
});
