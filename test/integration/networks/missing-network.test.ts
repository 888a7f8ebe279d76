import { describe, expect, it } from 'vitest';
import type { InboundPacket } from '../../../src/gateway/types.ts';
import type { SimOnMemory } from '../../../src/sim/sim-host.ts';
import { withHost, type Harness } from '../harness.ts';
import { bootAnnouncementsOver, devices, runTask } from '../host/helpers.ts';
import { until } from '../../until.ts';

interface NetRow {
  id: number;
  name: string;
  state: string;
  gateway_mac: string | null;
}
type DevRow = {
  addr: string;
  network_id: number;
  state: string;
  online: boolean;
  offline_reason: string | null;
};

const nets = async (h: Harness): Promise<NetRow[]> =>
  (await h.get<{ networks: NetRow[] }>('/api/networks')).body.networks;
const rows = async (h: Harness): Promise<DevRow[]> => (await devices(h)) as unknown as DevRow[];

function simOf(h: Harness, mac: string): SimOnMemory {
  const s = h.host.sims.find((x) => x.fleet.gateway.mac.replace(/:/g, '') === mac);
  if (!s) throw new Error(`no sim ${mac}`);
  return s;
}

describe('a network whose gateway is gone', () => {
  it('its-devices-turn-unreachable-naming-it-after-a-debounce-and-come-back-without-rebinding', async () => {
    await withHost({ nodes: 3, simGateways: 2 }, async (h) => {
      const ui = await h.sse('console=1');
      const plain = await h.sse();
      await bootAnnouncementsOver(h);
      await runTask(h, '/api/discover', { newGroupName: 'Track' });
      const [, n2] = await nets(h);
      const b = simOf(h, n2!.gateway_mac!);
      const masters = () => b.fleet.nodes.map((n) => n.snapshot().master);
      const before = masters();

      b.fleet.faults.dropLink();
      await ui.waitFor('networks', (d) =>
        (d as { networks: NetRow[] }).networks.some((n) => n.id === 2 && n.state === 'not_ready'),
      );
      const off = await until('network 2 devices unreachable', async () => {
        const r = await rows(h);
        const mine = r.filter((d) => d.network_id === 2);
        return mine.length > 0 && mine.every((d) => d.state === 'unreachable') ? r : null;
      });
      for (const d of off.filter((x) => x.network_id === 2))
        expect(d).toMatchObject({ online: false, offline_reason: 'gateway of Network 2 not connected' });
      // The other network's devices are untouched.
      expect(off.filter((d) => d.network_id === 1).every((d) => d.state !== 'unreachable')).toBe(true);

      b.fleet.faults.restoreLink();
      await until('network 2 reachable again', async () => {
        const r = await rows(h);
        return r.filter((d) => d.network_id === 2).every((d) => d.state !== 'unreachable');
      });
      expect((await nets(h))[1]).toMatchObject({ id: 2, state: 'ready' });
      // Nothing was rebound: the nodes kept their master (the same gateway).
      expect(masters()).toEqual(before);
      // The UI stream got the networks news; a contract stream never does.
      expect(plain.events.some((e) => e.event === 'networks')).toBe(false);
      // Coalesced (≤ 4 a second): far fewer events than the bind/readiness changes behind them.
      expect(ui.events.filter((e) => e.event === 'networks').length).toBeGreaterThan(0);
    });
  });

  it('a-restore-brings-back-the-records-and-the-gateways-are-bound-again', async () => {
    await withHost({ nodes: 0, simGateways: 2 }, async (h) => {
      const bundle = (await h.get<Record<string, unknown>>('/api/backup')).body;
      const mac2 = (await nets(h))[1]!.gateway_mac!;
      expect((await h.post(`/api/gateways/${mac2}/release`)).status).toBe(200);
      expect((await nets(h))[1]).toMatchObject({ state: 'no_gateway' });
      // After a reload the released gateway stays released (the record on disk says so).
      expect((await h.post('/api/reload')).status).toBe(200);
      expect((await nets(h))[1]).toMatchObject({ state: 'no_gateway', gateway_mac: null });
      const restored = await h.post('/api/restore', bundle);
      expect(restored.status).toBe(200);
      // The restored record names the gateway again: bound at once, no restart.
      await until('network 2 bound again', async () => (await nets(h))[1]?.state === 'ready');
      expect((await nets(h))[1]).toMatchObject({ gateway_mac: mac2 });
    });
  });
});

describe('identity across networks (alerts)', () => {
  it('an-address-clash-and-a-move-are-alerts-health-and-the-networks-list-show', async () => {
    await withHost({ nodes: 0, simGateways: 2 }, async (h) => {
      const { registry } = h.host.services;
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
      feed(identify('222222ABCDEF', 2));
      const list = await h.get<{ alerts: Record<string, unknown>[] }>('/api/networks');
      expect(list.body.alerts).toMatchObject([
        { kind: 'addr_clash', addr: 'ABCDEF', mac: '111111ABCDEF', other_mac: '222222ABCDEF', to_network: 2 },
      ]);
      const health = await h.get<{ warnings: string[] }>('/api/health');
      expect(health.body.warnings).toContain(
        'address clash: node 222222ABCDEF on Network 2 announces address ABCDEF, which belongs to 111111ABCDEF on Network 1 (not applied)',
      );
      feed(identify('111111ABCDEF', 2));
      const after = (await h.get<{ alerts: Record<string, unknown>[] }>('/api/networks')).body.alerts;
      expect(after.at(-1)).toMatchObject({ kind: 'moved', addr: 'ABCDEF', from_network: 1, to_network: 2 });
      expect((await h.get<{ warnings: string[] }>('/api/health')).body.warnings).toContain(
        'device ABCDEF moved from Network 1 to Network 2',
      );
    });
  });
});
