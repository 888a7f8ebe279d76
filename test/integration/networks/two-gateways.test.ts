import { describe, expect, it } from 'vitest';
import { decodeLoraPacket } from '../../../src/protocol/packets.ts';
import { OPC } from '../../../src/protocol/types.ts';
import { snrFloorDb } from '../../../src/sim/air.ts';
import type { InboundPacket } from '../../../src/gateway/types.ts';
import type { SimOnMemory } from '../../../src/sim/sim-host.ts';
import { withHost, type Harness } from '../harness.ts';
import { devices, runTask } from '../host/helpers.ts';

interface NetworkRow {
  id: number;
  name: string;
  gateway_mac: string;
  state: string;
  device_count: number;
  online_count: number;
  rf: { freqHz: number };
}

const networks = async (h: Harness): Promise<NetworkRow[]> =>
  (await h.get<{ networks: NetworkRow[] }>('/api/networks')).body.networks;

/** Polls a condition the simulated nodes reach after a frame is on the air (generous deadline). */
async function until(check: () => boolean, what: string, state?: () => string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${state ? ` (${state()})` : ''}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** network id → its simulated gateway's fleet, by gateway MAC. */
function fleetsByNetwork(h: Harness, rows: readonly NetworkRow[]): Map<number, SimOnMemory> {
  const out = new Map<number, SimOnMemory>();
  for (const s of h.host.sims) {
    const mac = s.fleet.gateway.mac.replace(/:/g, '');
    const n = rows.find((r) => r.gateway_mac === mac);
    if (n) out.set(n.id, s);
  }
  return out;
}

describe('two simulated gateways (networks)', () => {
  it('each-gateway-becomes-a-network-its-nodes-join-it-and-the-aggregate-is-honest', async () => {
    await withHost({ nodes: 4, simGateways: 2 }, async (h) => {
      expect(h.host.sims).toHaveLength(2);
      const before = await networks(h);
      expect(before.map((n) => [n.id, n.name, n.state])).toEqual([
        [1, 'Network 1', 'ready'],
        [2, 'Network 2', 'ready'],
      ]);
      // Radio settings read from each gateway: two separate channels.
      expect(before[0]?.rf.freqHz).not.toBe(before[1]?.rf.freqHz);
      const fleets = fleetsByNetwork(h, before);
      expect(fleets.size).toBe(2);

      const t = await runTask(h, '/api/discover', { newGroupName: 'Track' });
      expect(t.state, t.last_error ?? '').toBe('done');
      const rows = await devices(h);
      // Nodes at the edge of their gateway's range may or may not be heard; healthy ones must.
      const healthy = (sim: SimOnMemory) =>
        sim.fleet.nodes.filter((n) => (sim.fleet.air.qualityOf(n.addr)?.snr ?? -99) >= snrFloorDb(7) + 1.5);
      expect(t.result).toMatchObject({ found: rows.length });
      for (const [id, sim] of fleets) {
        const addrs = sim.fleet.nodes.map((n) => n.addr);
        // Every node belongs to the network of the gateway that hears it, and is bound.
        for (const r of rows.filter((x) => addrs.includes(x.addr))) expect(r.network_id).toBe(id);
        for (const n of healthy(sim)) {
          expect(rows.find((r) => r.addr === n.addr)?.network_id).toBe(id);
          expect(n.snapshot().groupId).toBe(1);
        }
        expect(healthy(sim).length).toBeGreaterThanOrEqual(3);
      }
      const after = await networks(h);
      for (const n of after) {
        const mine = rows.filter((r) => r.network_id === n.id);
        expect([n.device_count, n.online_count]).toEqual([mine.length, mine.filter((r) => r.online).length]);
      }

      // A status poll runs per network and hears every healthy node of both.
      const poll = await runTask(h, '/api/status', {});
      const answered = (poll.result as { updated: number }).updated;
      expect(answered).toBeGreaterThanOrEqual(
        [...fleets.values()].reduce((n, s) => n + healthy(s).length, 0),
      );

      const gw = (await h.get<{ gateway: Record<string, unknown> }>('/api/gateway')).body.gateway;
      expect(gw).toMatchObject({ ready: true, last_error: null, networks_ready: 2, networks_total: 2 });
      expect((gw.gateways as { network: string }[]).map((g) => g.network)).toEqual([
        'Network 1',
        'Network 2',
      ]);
      const m = (await h.get<{ master: Record<string, unknown> }>('/api/master')).body.master;
      expect((m.networks as { network_id: number }[]).map((x) => x.network_id)).toEqual([1, 2]);
    });
  });

  it('unicast-goes-through-the-owning-gateway-a-group-send-reaches-both-and-a-missing-gateway-fails-at-once', async () => {
    await withHost({ nodes: 3, simGateways: 2 }, async (h) => {
      await runTask(h, '/api/discover', { newGroupName: 'Track' });
      const fleets = fleetsByNetwork(h, await networks(h));
      const a = fleets.get(1)!;
      const b = fleets.get(2)!;
      const strongest = (sim: SimOnMemory) =>
        [...sim.fleet.nodes].sort(
          (x, y) =>
            (sim.fleet.air.qualityOf(y.addr)?.snr ?? -99) - (sim.fleet.air.qualityOf(x.addr)?.snr ?? -99),
        )[0]!;
      const nodeB = strongest(b);
      // Frames for node B from network 1's gateway (the air is shared; other traffic aside).
      let sentA = 0;
      let sentB = 0;
      const offTx = a.fleet.air.events.on('tx', (e) => {
        if (decodeLoraPacket(e.bytes)?.receiver !== nodeB.addr) return;
        if (e.sender === a.fleet.gateway.addr) sentA++;
        if (e.sender === b.fleet.gateway.addr) sentB++;
      });
      const one = await h.post('/api/devices/control', {
        macs: [nodeB.addr],
        flags: 1,
        presetId: 1,
        brightness: 33,
      });
      expect(one.body).toMatchObject({ ok: true, changed: 1 });
      await until(() => nodeB.snapshot().bri === 33, 'the node on network 2 to apply the control');
      offTx();
      // Nothing went out on network 1's gateway for it.
      expect(sentA).toBe(0);
      expect(sentB).toBeGreaterThan(0);

      // A group with members on both networks: one frame on each gateway, at once.
      const txBy = new Map<string, number>();
      const offs = [a, b].map((s) =>
        s.fleet.air.events.on('tx', (e) => {
          const p = decodeLoraPacket(e.bytes);
          const preset = p?.receiver === 'FFFFFF' && (p.typeFull & 0x7f) === OPC.PRESET;
          if (preset && e.sender === s.fleet.gateway.addr) txBy.set(e.sender, (txBy.get(e.sender) ?? 0) + 1);
        }),
      );
      const group = await h.post('/api/devices/control', {
        groupId: 1,
        flags: 1,
        presetId: 1,
        brightness: 77,
      });
      expect(group.body).toMatchObject({ ok: true, changed: 1 });
      for (const off of offs) off();
      expect([...txBy.values()]).toEqual([1, 1]);
      // A broadcast has no ACK: a node at the edge may miss it; most nodes of each network apply it.
      for (const s of [a, b]) {
        await until(
          () => s.fleet.nodes.filter((n) => n.snapshot().bri === 77).length >= 2,
          'the nodes of each network to apply the group send',
          () => s.fleet.nodes.map((n) => `${n.addr}:${n.snapshot().bri}`).join(' '),
        );
      }

      // Network 2's gateway unplugged: its traffic fails at once, naming it; network 1 goes on.
      b.fleet.faults.dropLink();
      await until(() => !h.host.services.driver.readiness().ready, 'the aggregate to go not ready');
      const gw = (await h.get<{ gateway: { ready: boolean; last_error: string } }>('/api/gateway')).body
        .gateway;
      expect(gw.ready).toBe(false);
      expect(gw.last_error).toMatch(/^Network 2: /);
      const t0 = h.host.services.clock.now();
      const failed = await h.post<{ changed: number; errors: Record<string, string> }>(
        '/api/devices/control',
        {
          macs: [nodeB.addr],
          flags: 1,
          presetId: 1,
          brightness: 10,
        },
      );
      expect(failed.body.changed).toBe(0);
      expect(Object.values(failed.body.errors).join(' ')).toMatch(/Network 2/);
      // Failed at once: far below the send queue's deadline.
      expect(h.host.services.clock.now() - t0).toBeLessThan(1000);
      const nodeA = strongest(a);
      const ok = await h.post('/api/devices/control', {
        macs: [nodeA.addr],
        flags: 1,
        presetId: 1,
        brightness: 44,
      });
      expect(ok.body).toMatchObject({ ok: true, changed: 1 });
      await until(() => nodeA.snapshot().bri === 44, 'the node on network 1');
      const listed = await networks(h);
      expect(listed.find((n) => n.id === 2)?.state).toBe('not_ready');
      const health = await h.get<{ warnings: string[] }>('/api/health');
      expect(health.body.warnings).toContain('network Network 2: gateway not ready');
      b.fleet.faults.restoreLink();
      await until(() => h.host.services.driver.readiness().ready, 'network 2 to come back');
    });
  });
});

describe('two networks sharing a 6-hex address', () => {
  it('another-full-mac-never-takes-over-the-row-the-same-node-is-followed-foreign-replies-are-ignored', async () => {
    await withHost({ nodes: 0, simGateways: 2 }, async (h) => {
      const { registry } = h.host.services;
      // The inbound pipeline as the router feeds it: every packet tagged with its network.
      const feed = (p: InboundPacket): void =>
        (registry as unknown as { handlePacket(p: InboundPacket): void }).handlePacket(p);
      const identify = (mac: string, network: number): InboundPacket => ({
        packet: { sender: 'ABCDEF', receiver: 'FFFFFF', typeFull: 0x81, body: new Uint8Array(0) },
        reply: { kind: 'IDENTIFY_REPLY', fw: 1, devType: 10, groupId: 0, mac },
        rssi: -60,
        snr: 8,
        ts: 0,
        network_id: network,
      });
      feed(identify('111111ABCDEF', 1));
      expect(registry.find('ABCDEF')).toMatchObject({ full_mac: '111111ABCDEF', network_id: 1 });
      // Another node with the same address on network 2: the row stays network 1's node's.
      feed(identify('222222ABCDEF', 2));
      expect(registry.find('ABCDEF')).toMatchObject({ full_mac: '111111ABCDEF', network_id: 1 });
      // A STATUS reply heard on network 2 proves nothing about network 1's node.
      const status: InboundPacket = {
        packet: { sender: 'ABCDEF', receiver: '102030', typeFull: 0x83, body: new Uint8Array(0) },
        reply: {
          kind: 'STATUS_REPLY',
          flags: 1,
          configByte: 0,
          effectId: 0,
          brightness: 12,
          vbatMv: 0,
          rssi: -50,
          snr: 9,
          legacy: false,
        },
        rssi: -99,
        snr: -3,
        ts: 0,
        network_id: 2,
      };
      feed(status);
      expect(registry.find('ABCDEF')?.host_rssi).toBe(-60);
      // The same node (same full MAC) now heard on network 2: it moved there.
      feed(identify('111111ABCDEF', 2));
      expect(registry.find('ABCDEF')).toMatchObject({ full_mac: '111111ABCDEF', network_id: 2 });
      feed(status);
      expect(registry.find('ABCDEF')?.host_rssi).toBe(-99);
    });
  });
});
