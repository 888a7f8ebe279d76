/**
 * The lease with several gateways: a channel scan on network 2 takes only network 2's
 * gateway off its channel — network 2's traffic fails at once `offchannel` naming it,
 * network 1 keeps working — and the scan says which nodes it cannot hear (bound to the
 * other network's gateway).
 */
import { describe, expect, it } from 'vitest';
import { channelOf, sameRf } from '../../../src/domain/rf-channels.ts';
import type { TaskSnapshot } from '../../../src/tasks/task-manager.ts';
import { until } from '../../until.ts';
import { withHost } from '../harness.ts';
import { devices, runTask } from '../host/helpers.ts';

describe('RF moves with two gateways', () => {
  it('a scan leases only its own network; the other network carries on', async () => {
    await withHost({ nodes: 3, simGateways: 2 }, async (h) => {
      const t = await runTask(h, '/api/discover', { newGroupName: 'Track' });
      expect(t.state).toBe('done');
      const rows = (await devices(h)) as unknown as { addr: string; network_id: number; online: boolean }[];
      const one = rows.find((d) => d.network_id === 1 && d.online)!;
      const two = rows.find((d) => d.network_id === 2 && d.online)!;
      expect(one && two).toBeTruthy();
      const gw2 = h.host.sims.find(
        (s) => s.fleet.gateway.mac.replace(/:/g, '') === h.host.services.store.state.networks[1]!.gateway_mac,
      )!;
      const home2 = { ...gw2.fleet.gateway.rf };
      const scan = await h.post<{ task: TaskSnapshot }>('/api/networks/2/channel-scan', {
        region: 'EU868',
        channel_ids: [3, 4, 5],
      });
      expect(scan.status).toBe(200);
      const end = Date.now() + 30_000;
      while (sameRf(gw2.fleet.gateway.rf, home2)) {
        if (Date.now() > end) throw new Error('gateway 2 never left its channel');
        await new Promise((r) => setTimeout(r, 5));
      }
      const d = h.host.services.driver;
      const r2 = await d.statusUnicast(two.addr, 1, { attempts: 1 });
      expect(r2).toMatchObject({ ok: false, reason: 'offchannel' });
      expect(r2.ok ? '' : r2.detail).toContain('Network 2');
      const r1 = await d.statusUnicast(one.addr, 1, { attempts: 3 });
      expect(r1.ok).toBe(true);
      const done = await h.waitTask(scan.body.task.id);
      expect(done.last_error).toBeNull();
      const res = done.result as {
        returned_home: boolean;
        cannot_hear: { networks: { id: number; devices: number }[] };
      };
      expect(res.returned_home).toBe(true);
      expect(res.cannot_hear.networks.map((n) => n.id)).toEqual([1]);
      expect(sameRf(gw2.fleet.gateway.rf, home2)).toBe(true);
    });
  }, 120_000);
  it('a scan on the other network channel hears its unbound group-0 nodes and does not count them as unhearable', async () => {
    // A fresh start: every node announced itself and sits in group 0, bound to no gateway
    // (no SET_GROUP yet), so it answers any gateway's DEVICES — also network 2's.
    await withHost({ nodes: 3, simGateways: 2 }, async (h) => {
      const nets = h.host.services.store.state.networks;
      const ch1 = channelOf(nets[0]!.rf!)!;
      const mine = (): string[] =>
        h.host.services.store.state.devices.filter((d) => d.network_id === 1).map((d) => d.addr);
      await until('a node of network 1 announced itself', async () => mine().length > 0);
      const done = await runTask(h, '/api/networks/2/channel-scan', {
        region: ch1.region,
        channel_ids: [ch1.id],
      });
      expect(done.last_error).toBeNull();
      const res = done.result as {
        channels: { heard: { addr: string; known: boolean; network_id: number | null }[] }[];
        cannot_hear: { note: string; networks: { id: number; devices: number; heard: number }[] };
      };
      const heardOf1 = new Set(
        res.channels.flatMap((c) => c.heard.filter((x) => x.network_id === 1).map((x) => x.addr)),
      );
      expect(heardOf1.size).toBeGreaterThan(0);
      const total = mine().length;
      const one = res.cannot_hear.networks.find((n) => n.id === 1);
      // Those heard are not listed as unhearable; the rest are (or none remain).
      if (heardOf1.size === total) expect(one).toBeUndefined();
      else expect(one).toMatchObject({ devices: total - heardOf1.size, heard: heardOf1.size });
      expect(res.cannot_hear.note).toContain('Nodes no gateway has bound yet');
    });
  }, 120_000);
});
