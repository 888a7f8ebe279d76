import { describe, expect, it } from 'vitest';
import { SteppedClock } from '../../../src/clock.ts';
import { createFleets } from '../../../src/sim/fleets.ts';
import { serveFleetOnMemory, type SimOnMemory } from '../../../src/sim/sim-host.ts';
import { withHost, type Harness } from '../harness.ts';
import { bootAnnouncementsOver, devices, runTask } from '../host/helpers.ts';
import { until } from '../../until.ts';

interface GatewayRow {
  mac: string;
  bind_state: string;
  network_id: number | null;
  unknown_heard: number;
  ready: boolean;
  connected: boolean;
}
interface NetRow {
  id: number;
  state: string;
  gateway_mac: string | null;
}

const gateways = async (h: Harness): Promise<GatewayRow[]> =>
  (await h.get<{ gateways: GatewayRow[] }>('/api/gateways')).body.gateways;
type Unassigned = { gateway_mac: string; ready: boolean };
const networks = async (h: Harness): Promise<{ networks: NetRow[]; unassigned: Unassigned[] }> =>
  (await h.get<{ networks: NetRow[]; unassigned: Unassigned[] }>('/api/networks')).body;

describe('one gateway swapped for another on the same port', () => {
  it('old-network-goes-missing-new-gateway-waits-unassigned-then-serves-the-nodes-as-its-replacement', async () => {
    const clock = new SteppedClock(1).start();
    // Two boards on one channel: the spare is the same hardware with another MAC.
    const [fa, fb] = createFleets({
      gateways: 2,
      sameChannel: true,
      nodes: 3,
      seed: 11,
      clock,
      gatewayUp: true,
    });
    const a = serveFleetOnMemory(fa!, { clock, path: 'sim', autoStart: false });
    const b = serveFleetOnMemory(fb!, { clock, path: 'sim', autoStart: false });
    fa!.start();
    // The spare's own nodes stay off (one is switched on later, a stranger).
    fb!.start({ nodes: false });
    // One USB port: whichever board is plugged into it.
    let plugged: SimOnMemory = a;
    const port: SimOnMemory = { ...a, linkFactory: () => plugged.linkFactory() };
    try {
      await withHost({ overrides: { sim: port } }, async (h) => {
        const macA = fa!.gateway.mac.replace(/:/g, '');
        const macB = fb!.gateway.mac.replace(/:/g, '');
        await bootAnnouncementsOver(h);
        await runTask(h, '/api/discover', { newGroupName: 'Gates' });
        const before = await devices(h);
        expect(before.length).toBeGreaterThanOrEqual(2);
        expect((await networks(h)).networks).toMatchObject([{ id: 1, state: 'ready', gateway_mac: macA }]);
        // A pinned node (master persistence on) is listed when the replacement is assigned.
        const pinnedAddr = before[0]!.addr;
        h.host.services.store.mutate(['DEVICES'], (s) => {
          const d = s.devices.find((x) => x.addr === pinnedAddr);
          if (d) d.configByte |= 0x02;
        });

        // The swap: the old board unplugged, the spare plugged into the same port.
        plugged = b;
        fa!.faults.dropLink();
        const rows = await until('the spare to show up unassigned', async () => {
          const g = await gateways(h);
          return g.find((x) => x.mac === macB)?.bind_state === 'unassigned' ? g : null;
        });
        expect(rows.find((x) => x.mac === macA)).toMatchObject({
          bind_state: 'missing',
          network_id: 1,
          ready: false,
          connected: false,
        });
        // Connected but carrying nothing: both lists say so in the same words.
        expect(rows.find((x) => x.mac === macB)).toMatchObject({ ready: false, connected: true });
        const nets = await networks(h);
        expect(nets.networks[0]).toMatchObject({ id: 1, state: 'missing', gateway_mac: macA });
        expect(nets.unassigned).toMatchObject([{ gateway_mac: macB, ready: true }]);
        const gw = (await h.get<{ gateway: { ready: boolean; last_error: string } }>('/api/gateway')).body
          .gateway;
        expect(gw.ready).toBe(false);
        expect(gw.last_error).toMatch(/belongs to no network|not connected/);
        // It carries no traffic: a command to a node fails at once.
        const ctl = await h.post<{ changed: number }>('/api/devices/control', {
          macs: [before[1]!.addr],
          flags: 1,
          presetId: 1,
          brightness: 20,
        });
        expect(ctl.body.changed).toBe(0);
        // A stranger announcing through the spare is counted, not made a device.
        const stranger = fb!.nodes[0]!;
        fa!.air.setHome(stranger.addr, fb!.gateway.addr);
        fb!.sched.runExternal(() => stranger.powerOn());
        await until('the stranger to be counted', async () =>
          (await gateways(h)).find((x) => x.mac === macB && x.unknown_heard >= 1),
        );
        expect((await devices(h)).some((d) => d.addr === stranger.addr)).toBe(false);
        // After the debounce the old network's devices say why they cannot be reached.
        const unreachable = await until('devices unreachable', async () => {
          const d = await devices(h);
          return d.every((x) => (x as unknown as { state: string }).state === 'unreachable') ? d : null;
        });
        expect(unreachable[0]).toMatchObject({
          online: false,
          offline_reason: 'gateway of Network 1 not connected',
        });

        // Assigned as the replacement: the pinned node is named so the UI can warn.
        const bad = await h.post(`/api/gateways/${macB}/assign`, { network_id: 9 });
        expect(bad.status).toBe(404);
        const bad2 = await h.post(`/api/gateways/${macB}/assign`, {});
        expect(bad2.status).toBe(400);
        const assigned = await h.post<{ network: NetRow; gateway: GatewayRow; pinned: string[] }>(
          `/api/gateways/${macB}/assign`,
          { network_id: 1 },
        );
        expect(assigned.status).toBe(200);
        expect(assigned.body.pinned).toEqual([pinnedAddr]);
        expect(assigned.body.network).toMatchObject({ id: 1, state: 'ready', gateway_mac: macB });
        expect(assigned.body.gateway).toMatchObject({ mac: macB, bind_state: 'bound', network_id: 1 });
        expect(
          (await devices(h)).some((x) => (x as unknown as { state: string }).state === 'unreachable'),
        ).toBe(false);
        // The nodes still follow the old board until they forget it (a power cycle): then
        // they announce, the host puts them back in their group through the new board.
        for (const n of fa!.nodes) fa!.air.setHome(n.addr, fb!.gateway.addr);
        fa!.faults.rebootFleet({ spreadMs: 500 });
        const gates = before.filter((d) => d.addr !== pinnedAddr).map((d) => d.addr);
        await until('the nodes to be bound to the new board', async () =>
          gates.every((addr) => {
            const n = fa!.node(addr)?.snapshot();
            return n?.groupId === 1 && n.master === fb!.gateway.addr;
          }),
        );
        // Its second boot announcement would collide with the command (no ACK for CONTROL).
        await bootAnnouncementsOver(h);
        const ok = await h.post<{ changed: number }>('/api/devices/control', {
          macs: [gates[0]],
          flags: 1,
          presetId: 1,
          brightness: 55,
        });
        expect(ok.body).toMatchObject({ changed: 1 });
        await until('the node to apply it', async () => fa!.node(gates[0]!)?.snapshot().bri === 55);
        expect((await gateways(h)).find((x) => x.mac === macA)).toBeUndefined();
      });
    } finally {
      a.stop();
      b.stop();
      clock.stop();
    }
  });
});
