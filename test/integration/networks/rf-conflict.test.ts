import { describe, expect, it } from 'vitest';
import { SteppedClock } from '../../../src/clock.ts';
import type { Radio } from '../../../src/gateway/radio/radio.ts';
import type { GatewayDriver } from '../../../src/gateway/types.ts';
import { findChannel } from '../../../src/domain/rf-channels.ts';
import { createFleets } from '../../../src/sim/fleets.ts';
import { serveFleetOnMemory } from '../../../src/sim/sim-host.ts';
import type { LinkFactory } from '../../../src/transport/link.ts';
import { MemoryEndpoint } from '../../../src/transport/memory-link.ts';
import { withHost, type Harness } from '../harness.ts';
import { devices, runTask } from '../host/helpers.ts';
import { until } from '../../until.ts';

interface GatewayRow {
  mac: string;
  port: string | null;
  bind_state: string;
  network_id: number | null;
  rf_actual: { freqHz: number } | null;
  rf_expected: { freqHz: number } | null;
  conflict_fields: string[];
}
interface NetRow {
  id: number;
  name: string;
  state: string;
  gateway_mac: string | null;
  rf: { freqHz: number } | null;
  conflict: { gateway_rf: { freqHz: number }; fields: string[] } | null;
}

const gateways = async (h: Harness): Promise<GatewayRow[]> =>
  (await h.get<{ gateways: GatewayRow[] }>('/api/gateways')).body.gateways;
const nets = async (h: Harness): Promise<NetRow[]> =>
  (await h.get<{ networks: NetRow[] }>('/api/networks')).body.networks;

/** The driver of the gateway with this MAC (a test stands in for someone retuning the board). */
function driverOf(h: Harness, mac: string): GatewayDriver {
  const radio = h.host.services.driver as Radio;
  const g = radio.gateways.find((x) => x.driver.readiness().gateway_mac?.replace(/:/g, '') === mac);
  if (!g) throw new Error(`no driver for ${mac}`);
  return g.driver;
}

const ch4 = findChannel('EU868', 4)!.rf;

describe('a gateway on other radio settings than its network (conflict)', () => {
  it('is-shown-with-the-fields-carries-no-traffic-and-each-resolution-works', async () => {
    await withHost({ nodes: 2, simGateways: 2 }, async (h) => {
      await runTask(h, '/api/discover', {});
      const [n1, n2] = await nets(h);
      expect(n2).toMatchObject({ id: 2, state: 'ready', conflict: null });
      const mac2 = n2!.gateway_mac!;
      const recorded = n2!.rf!.freqHz;

      // Someone retunes network 2's board (a reflash, another laptop): a conflict.
      const r = await driverOf(h, mac2).setGatewayRf(ch4, true);
      expect(r.ok).toBe(true);
      const row = await until('the conflict', async () =>
        (await gateways(h)).find((g) => g.mac === mac2 && g.bind_state === 'conflict'),
      );
      expect(row).toMatchObject({
        network_id: 2,
        conflict_fields: ['freqHz'],
        rf_actual: { freqHz: ch4.freqHz },
        rf_expected: { freqHz: recorded },
      });
      expect((await nets(h))[1]).toMatchObject({
        state: 'conflict',
        conflict: { gateway_rf: { freqHz: ch4.freqHz }, fields: ['freqHz'] },
      });
      const health = await h.get<{ warnings: string[] }>('/api/health');
      expect(health.body.warnings.join('\n')).toMatch(/Network 2: its gateway is on other radio settings/);
      // No traffic through it: a command to network 2's device fails at once, naming it.
      const dev2 = (await devices(h)).find((d) => (d as unknown as { network_id: number }).network_id === 2);
      expect(dev2).toBeDefined();
      const ctl = await h.post<{ changed: number; errors: Record<string, string> }>('/api/devices/control', {
        macs: [dev2!.addr],
        flags: 1,
        presetId: 1,
        brightness: 9,
      });
      expect(ctl.body.changed).toBe(0);
      expect(Object.values(ctl.body.errors).join(' ')).toMatch(/Network 2/);
      // Network 1 is not affected.
      expect((await nets(h))[0]).toMatchObject({ id: n1!.id, state: 'ready' });

      // Resolution 1: retune the gateway to the network (answered once it is back).
      const retuned = await h.post<{ network: NetRow; gateway: GatewayRow }>(
        '/api/networks/2/retune-gateway',
      );
      expect(retuned.status).toBe(200);
      expect(retuned.body.network).toMatchObject({ state: 'ready', conflict: null });
      expect(retuned.body.gateway).toMatchObject({ bind_state: 'bound', rf_actual: { freqHz: recorded } });
      expect(driverOf(h, mac2).radioSettings().rf.freqHz).toBe(recorded);
      // Nothing to resolve any more.
      expect((await h.post('/api/networks/2/adopt-gateway-rf', { confirm: true })).status).toBe(409);

      // Resolution 3: adopt the gateway's settings — refused without the confirmation.
      await driverOf(h, mac2).setGatewayRf(ch4, true);
      await until('the conflict again', async () =>
        (await gateways(h)).find((g) => g.mac === mac2 && g.bind_state === 'conflict'),
      );
      const unconfirmed = await h.post('/api/networks/2/adopt-gateway-rf', {});
      expect(unconfirmed.status).toBe(400);
      expect(unconfirmed.body.error).toMatch(/^confirm: .*strands/);
      const adopted = await h.post<{ network: NetRow; warning: string; stranded: number }>(
        '/api/networks/2/adopt-gateway-rf',
        { confirm: true },
      );
      expect(adopted.status).toBe(200);
      expect(adopted.body.network).toMatchObject({
        state: 'ready',
        rf: { freqHz: ch4.freqHz },
        channel_id: 4,
      });
      expect(adopted.body.stranded).toBeGreaterThan(0);
      expect(adopted.body.warning).toMatch(/cannot be reached/);

      // Adopting settings that would share the air with network 1 is refused naming both.
      await driverOf(h, mac2).setGatewayRf({ ...ch4, freqHz: n1!.rf!.freqHz + 200_000 }, true);
      await until('a third conflict', async () =>
        (await gateways(h)).find((g) => g.mac === mac2 && g.bind_state === 'conflict'),
      );
      const close = await h.post('/api/networks/2/adopt-gateway-rf', { confirm: true });
      expect(close.status).toBe(400);
      expect(close.body.error).toMatch(/Network 2 .* and Network 1 .* 200 kHz apart/);
      expect((await h.post('/api/networks/9/retune-gateway')).status).toBe(404);

      // Released, the board is unassigned; assigned as a new network it takes its own settings.
      expect((await h.post(`/api/gateways/${mac2}/release`)).status).toBe(200);
      await driverOf(h, mac2).setGatewayRf(findChannel('EU868', 3)!.rf, true);
      await until('unassigned on channel 3', async () =>
        (await gateways(h)).find(
          (g) => g.mac === mac2 && g.bind_state === 'unassigned' && g.rf_actual?.freqHz === 868_700_000,
        ),
      );
      // Network 1's own gateway cannot be replaced while it serves it.
      expect((await h.post(`/api/gateways/${mac2}/assign`, { network_id: 1 })).status).toBe(409);
      const taken = await h.post(`/api/gateways/${mac2}/assign`, { new_network: { name: 'network 2' } });
      expect(taken.status).toBe(400);
      expect(taken.body.error).toMatch(/^new_network\.name/);
      const pit = await h.post<{ network: NetRow; pinned: string[] }>(`/api/gateways/${mac2}/assign`, {
        new_network: { name: 'Pit' },
      });
      expect(pit.status).toBe(200);
      expect(pit.body.network).toMatchObject({
        id: 3,
        name: 'Pit',
        state: 'ready',
        channel_id: 3,
        gateway_mac: mac2,
      });
      expect(pit.body.pinned).toEqual([]);
      expect((await nets(h)).find((n) => n.id === 2)).toMatchObject({
        state: 'no_gateway',
        gateway_mac: null,
      });
    });
  }, 120_000);
});

describe('a gateway plugged in while the host runs', () => {
  it('rescan-probes-only-free-ports-and-the-new-gateway-waits-unassigned-for-the-operator', async () => {
    const clock = new SteppedClock(1).start();
    const [fa, fb] = createFleets({ gateways: 2, nodes: 1, seed: 5, clock, gatewayUp: true });
    const a = serveFleetOnMemory(fa!, { clock, path: 'sim', autoStart: false });
    const b = serveFleetOnMemory(fb!, { clock, path: 'sim:usb1', autoStart: false });
    fa!.start();
    fb!.start({ nodes: false });
    const opened: string[] = [];
    // Ports: 'sim' is board A; 'sim:usb1' is board B until it is pulled out of that socket,
    // after which the socket is empty; 'sim:usb2' is the socket it is plugged into again.
    let usb1Empty = false;
    const empty = new MemoryEndpoint(() => undefined, { path: 'sim:usb1' });
    empty.unplug();
    const socket = (path: string): LinkFactory =>
      path === 'sim'
        ? a.linkFactory
        : () => (path === 'sim:usb1' && usb1Empty ? empty.factory() : b.linkFactory());
    let ports = ['sim', 'sim:usb1'];
    try {
      await withHost(
        {
          overrides: {
            sim: a,
            detect: {
              candidates: () => Promise.resolve(ports.map((path) => ({ path }))),
              open: (path) => {
                opened.push(path);
                return socket(path)();
              },
              linkFactory: socket,
              identify: { settleMs: 0 },
            },
          },
        },
        async (h) => {
          const res = await h.post<{
            attached: { mac: string; port: string }[];
            tried: { path: string; result: string }[];
            skipped: string[];
          }>('/api/gateways/rescan');
          expect(res.status).toBe(200);
          const macB = fb!.gateway.mac.replace(/:/g, '');
          expect(res.body.attached).toEqual([{ mac: macB, port: 'sim:usb1' }]);
          // The port a driver owns was never opened (opening resets a real board).
          expect(res.body.skipped).toEqual(['sim']);
          expect(opened).toEqual(['sim:usb1']);
          const row = await until('the new gateway unassigned', async () =>
            (await gateways(h)).find((g) => g.mac === macB && g.bind_state === 'unassigned'),
          );
          expect(row.port).toBe('sim:usb1');
          // A second rescan finds nothing new: both ports are owned now.
          const again = await h.post<{ attached: unknown[]; skipped: string[] }>('/api/gateways/rescan');
          expect(again.body).toMatchObject({ attached: [], skipped: ['sim', 'sim:usb1'] });
          // Assigned, it is a second network, and the Radio routes per network from now on.
          const made = await h.post<{ network: NetRow }>(`/api/gateways/${macB}/assign`, {
            new_network: { name: 'Track B' },
          });
          expect(made.body.network).toMatchObject({ id: 2, name: 'Track B', state: 'ready' });
          const gw = (await h.get<{ gateway: Record<string, unknown> }>('/api/gateway')).body.gateway;
          expect(gw).toMatchObject({ ready: true, networks_ready: 2, networks_total: 2 });

          // Board B pulled out and plugged into another socket: its driver keeps retrying the
          // empty one; a rescan finds it on the new port and the network is served from there.
          usb1Empty = true;
          fb!.faults.dropLink();
          await until('network 2 not ready', async () => (await nets(h))[1]?.state === 'not_ready');
          fb!.faults.restoreLink();
          ports = ['sim', 'sim:usb1', 'sim:usb2'];
          const moved = await h.post<{ attached: { port: string }[] }>('/api/gateways/rescan');
          expect(moved.body.attached).toEqual([{ mac: macB, port: 'sim:usb2' }]);
          await until(
            'network 2 served from the new port',
            async () => (await nets(h))[1]?.state === 'ready',
          );
          const all = await gateways(h);
          expect(all.filter((g) => g.mac === macB)).toMatchObject([
            { port: 'sim:usb2', bind_state: 'bound' },
          ]);
          const agg = (await h.get<{ gateway: Record<string, unknown> }>('/api/gateway')).body.gateway;
          expect(agg).toMatchObject({ ready: true, networks_ready: 2, networks_total: 2 });
        },
      );
    } finally {
      a.stop();
      b.stop();
      clock.stop();
    }
  });
});

describe('the activity log while a gateway is in conflict', () => {
  it('says why the devices are unreachable: other radio settings, not "not connected"', async () => {
    await withHost({ nodes: 2, simGateways: 2 }, async (h) => {
      await runTask(h, '/api/discover', {});
      const mac2 = (await nets(h))[1]!.gateway_mac!;
      expect((await driverOf(h, mac2).setGatewayRf(ch4, true)).ok).toBe(true);
      const line = await until('the unreachable line', async () =>
        h.host.services.logs
          .query({ q: 'its devices are unreachable' })
          .find((e) => e.msg.includes('Network 2')),
      );
      // The gateway is connected all along: only tuned elsewhere.
      expect(line.msg).toBe(
        'gateway of Network 2 is on other radio settings (conflict): its devices are unreachable',
      );
      expect((await gateways(h)).find((g) => g.mac === mac2)).toMatchObject({ bind_state: 'conflict' });
    });
  });
});
