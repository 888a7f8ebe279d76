import { describe, expect, it } from 'vitest';
import { SteppedClock } from '../../../src/clock.ts';
import type { Radio } from '../../../src/gateway/radio/radio.ts';
import { createFleets } from '../../../src/sim/fleets.ts';
import { serveFleetOnMemory } from '../../../src/sim/sim-host.ts';
import type { LinkFactory } from '../../../src/transport/link.ts';
import { MemoryEndpoint } from '../../../src/transport/memory-link.ts';
import { withHost, type Harness } from '../harness.ts';
import { devices, runTask } from '../host/helpers.ts';
import { until } from '../../until.ts';

interface NetRow {
  id: number;
  name: string;
  state: string;
  gateway_mac: string | null;
}
interface GatewayRow {
  mac: string;
  port: string | null;
  bind_state: string;
  network_id: number | null;
}
type DevRow = { addr: string; network_id: number; group_id: number; state: string };

const nets = async (h: Harness): Promise<NetRow[]> =>
  (await h.get<{ networks: NetRow[] }>('/api/networks')).body.networks;
const gateways = async (h: Harness): Promise<GatewayRow[]> =>
  (await h.get<{ gateways: GatewayRow[] }>('/api/gateways')).body.gateways;

describe('a gateway unplugged mid-race and plugged into another socket', () => {
  it('is-re-attached-by-itself-from-a-port-that-appeared-its-nodes-keep-their-group-and-old-ports-stay-closed', async () => {
    const clock = new SteppedClock(1).start();
    const [fa, fb] = createFleets({ gateways: 2, nodes: 2, seed: 11, clock, gatewayUp: true });
    const a = serveFleetOnMemory(fa!, { clock, path: 'sim', autoStart: false });
    const b = serveFleetOnMemory(fb!, { clock, path: 'sim:usb1', autoStart: false });
    fa!.start();
    fb!.start();
    // Sockets: 'sim' is board A; 'sim:usb1' holds board B until it is pulled out; 'sim:usb2'
    // is where it is plugged in again; 'sim:other' is somebody else's device that was
    // plugged in all along (opening it would reset it).
    let usb1Empty = false;
    const empty = new MemoryEndpoint(() => undefined, { path: 'sim:usb1' });
    empty.unplug();
    const socket = (path: string): LinkFactory =>
      path === 'sim'
        ? a.linkFactory
        : path === 'sim:other'
          ? empty.factory
          : () => (path === 'sim:usb1' && usb1Empty ? empty.factory() : b.linkFactory());
    let ports = ['sim', 'sim:usb1'];
    let opened: string[] = [];
    let portEvent = null as (() => void) | null;
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
              watch: (fn) => {
                portEvent = fn;
                return () => (portEvent = null);
              },
            },
          },
        },
        async (h) => {
          // Board B joins as network "Track B" (operator: rescan + assign), its nodes are found.
          const macB = fb!.gateway.mac.replace(/:/g, '');
          const connections = b.endpoint.connectionCount;
          const found = await h.post<{ attached: { mac: string }[] }>('/api/gateways/rescan');
          expect(found.body.attached).toMatchObject([{ mac: macB }]);
          await until('B unassigned', async () =>
            (await gateways(h)).find((g) => g.mac === macB && g.bind_state === 'unassigned'),
          );
          // The probe's open link went to the driver: board B's port was opened once.
          expect(b.endpoint.connectionCount - connections).toBe(1);
          await h.post(`/api/gateways/${macB}/assign`, { new_network: { name: 'Track B' } });
          await until('B ready', async () => (await nets(h))[1]?.state === 'ready');
          await clock.sleep(6000); // both fleets' boot announcements are over
          await runTask(h, '/api/discover', { newGroupName: 'Track' });
          const onB = ((await devices(h)) as unknown as DevRow[]).filter((d) => d.network_id === 2);
          expect(onB.length).toBe(2);
          const groupsBefore = fb!.nodes.map((n) => n.snapshot().groupId);
          const mastersBefore = fb!.nodes.map((n) => n.snapshot().master);
          expect(groupsBefore.every((g) => g > 0)).toBe(true);

          // Somebody else's device is plugged in before B is lost: it must never be opened.
          ports = ['sim', 'sim:usb1', 'sim:other'];
          opened = [];
          const radio = h.host.services.driver as Radio;
          const setGroups: string[] = [];
          const realSetGroup = radio.setGroup.bind(radio);
          radio.setGroup = (addr, ...rest) => {
            setGroups.push(addr);
            return realSetGroup(addr, ...rest);
          };

          const lines: { msg: string; fields: Record<string, unknown> }[] = [];
          h.host.services.logs.onEntry((e) => {
            if (e.msg.startsWith('gateway re-attached')) lines.push(e);
          });

          // Pulled out mid-race: its socket is empty, the network is not ready.
          usb1Empty = true;
          ports = ['sim', 'sim:other'];
          fb!.faults.dropLink();
          await until('network 2 not ready', async () => (await nets(h))[1]?.state === 'not_ready');
          fb!.faults.restoreLink();
          // A poll of the port list sees the socket gone (nothing is opened for that).
          await clock.sleep(2500);
          expect(opened).toEqual([]);

          // Plugged into another socket: the port event starts a listing, the new port is
          // probed and board B takes its network over from there — no operator step.
          ports = ['sim', 'sim:other', 'sim:usb2'];
          const beforePlug = b.endpoint.connectionCount;
          portEvent?.();
          await until('network 2 served from the new port', async () => {
            const g = (await gateways(h)).find((x) => x.mac === macB && x.bind_state === 'bound');
            return g?.port === 'sim:usb2' && (await nets(h))[1]?.state === 'ready';
          });
          expect(opened).toEqual(['sim:usb2']);
          // Probed and driven on one opening of the port (no second reset of the board).
          expect(b.endpoint.connectionCount - beforePlug).toBe(1);
          // One info line naming the port, the gateway and its network.
          expect(lines).toMatchObject([
            {
              msg: 'gateway re-attached on a new port: Track B served again',
              fields: { port: 'sim:usb2', gateway_mac: macB, network: 2 },
            },
          ]);
          expect((await gateways(h)).filter((g) => g.mac === macB)).toMatchObject([
            { port: 'sim:usb2', bind_state: 'bound', network_id: 2 },
          ]);
          // Its nodes are served again without rebinding: same master, same group, no SET_GROUP.
          const status = await runTask(h, '/api/status', {});
          expect(status.state).toBe('done');
          const after = ((await devices(h)) as unknown as DevRow[]).filter((d) => d.network_id === 2);
          expect(after.map((d) => [d.addr, d.group_id])).toEqual(onB.map((d) => [d.addr, d.group_id]));
          expect(after.every((d) => d.state !== 'unreachable')).toBe(true);
          expect(fb!.nodes.map((n) => n.snapshot().groupId)).toEqual(groupsBefore);
          expect(fb!.nodes.map((n) => n.snapshot().master)).toEqual(mastersBefore);
          expect(setGroups).toEqual([]);

          // Everything attached again: the watch is over, later port changes open nothing.
          ports = ['sim', 'sim:other', 'sim:usb2', 'sim:usb3'];
          portEvent?.();
          await clock.sleep(2500);
          expect(opened).toEqual(['sim:usb2']);
        },
      );
    } finally {
      a.stop();
      b.stop();
      clock.stop();
    }
  }, 120_000);

  it('a-gateway-back-in-its-own-socket-is-reconnected-at-once-instead-of-after-its-backoff', async () => {
    const clock = new SteppedClock(1).start();
    const [fa, fb] = createFleets({ gateways: 2, nodes: 0, seed: 12, clock, gatewayUp: true });
    const a = serveFleetOnMemory(fa!, { clock, path: 'sim', autoStart: false });
    const b = serveFleetOnMemory(fb!, { clock, path: 'sim:usb1', autoStart: false });
    fa!.start();
    fb!.start({ nodes: false });
    let unplugged = false;
    const empty = new MemoryEndpoint(() => undefined, { path: 'sim:usb1' });
    empty.unplug();
    const socket = (path: string): LinkFactory =>
      path === 'sim' ? a.linkFactory : () => (unplugged ? empty.factory() : b.linkFactory());
    let ports = ['sim', 'sim:usb1'];
    const opened: string[] = [];
    let portEvent = null as (() => void) | null;
    try {
      await withHost(
        {
          overrides: {
            sim: a,
            // A backoff far longer than the test: only the port event can bring B back in time.
            driverOptions: { reconnectInitialMs: 600_000, reconnectMaxMs: 600_000 },
            detect: {
              candidates: () => Promise.resolve(ports.map((path) => ({ path }))),
              open: (path) => {
                opened.push(path);
                return socket(path)();
              },
              linkFactory: socket,
              identify: { settleMs: 0 },
              watch: (fn) => {
                portEvent = fn;
                return () => (portEvent = null);
              },
            },
          },
        },
        async (h) => {
          const macB = fb!.gateway.mac.replace(/:/g, '');
          await h.post('/api/gateways/rescan');
          await until('B attached', async () => (await gateways(h)).find((g) => g.mac === macB));
          await h.post(`/api/gateways/${macB}/assign`, { new_network: { name: 'Track B' } });
          await until('B ready', async () => (await nets(h))[1]?.state === 'ready');
          opened.length = 0;

          unplugged = true;
          ports = ['sim'];
          fb!.faults.dropLink();
          await until('network 2 not ready', async () => (await nets(h))[1]?.state === 'not_ready');
          fb!.faults.restoreLink();
          portEvent?.();
          await clock.sleep(2500);

          unplugged = false;
          ports = ['sim', 'sim:usb1'];
          const t0 = clock.now();
          portEvent?.();
          await until('network 2 ready on its own port', async () => (await nets(h))[1]?.state === 'ready');
          // Virtual time: well inside the 600 s its backoff would have waited.
          expect(clock.now() - t0).toBeLessThan(60_000);
          // Its own driver reconnected: no probe, no second driver.
          expect(opened).toEqual([]);
          expect((await gateways(h)).filter((g) => g.mac === macB)).toMatchObject([
            { port: 'sim:usb1', bind_state: 'bound', network_id: 2 },
          ]);
        },
      );
    } finally {
      a.stop();
      b.stop();
      clock.stop();
    }
  }, 120_000);

  it('one-gateway-back-on-another-socket-keeps-every-single-gateway-field-as-it-was', async () => {
    const clock = new SteppedClock(1).start();
    const [fa] = createFleets({ gateways: 1, nodes: 2, seed: 13, clock, gatewayUp: true });
    const a = serveFleetOnMemory(fa!, { clock, path: 'sim', autoStart: false });
    fa!.start();
    // The one gateway's socket empties when it is pulled out; 'sim:usb5' is where it goes.
    let pulled = false;
    const empty = new MemoryEndpoint(() => undefined, { path: 'sim' });
    empty.unplug();
    const socket = (path: string): LinkFactory =>
      path === 'sim' ? () => (pulled ? empty.factory() : a.linkFactory()) : a.linkFactory;
    let ports = ['sim'];
    const opened: string[] = [];
    let portEvent = null as (() => void) | null;
    try {
      await withHost(
        {
          overrides: {
            sim: { ...a, linkFactory: socket('sim') },
            detect: {
              candidates: () => Promise.resolve(ports.map((path) => ({ path }))),
              open: (path) => {
                opened.push(path);
                return socket(path)();
              },
              linkFactory: socket,
              identify: { settleMs: 0 },
              watch: (fn) => {
                portEvent = fn;
                return () => (portEvent = null);
              },
            },
          },
        },
        async (h) => {
          await clock.sleep(6000);
          await runTask(h, '/api/discover', { newGroupName: 'Gates' });
          const gwBefore = (await h.get<{ gateway: Record<string, unknown> }>('/api/gateway')).body.gateway;
          const devBefore = (await devices(h)) as unknown as DevRow[];
          expect(devBefore.length).toBe(2);

          pulled = true;
          ports = [];
          fa!.faults.dropLink();
          await until('gateway not ready', async () => (await nets(h))[0]?.state === 'not_ready');
          fa!.faults.restoreLink();
          portEvent?.();
          await clock.sleep(2500);
          ports = ['sim:usb5'];
          portEvent?.();
          await until('network 1 served from the new socket', async () => {
            const g = (await gateways(h)).find((x) => x.bind_state === 'bound');
            return g?.port === 'sim:usb5' && (await nets(h))[0]?.state === 'ready';
          });
          expect(opened).toEqual(['sim:usb5']);
          // Still one gateway to the contract: the same fields as before, no per-network extras.
          const gwAfter = (await h.get<{ gateway: Record<string, unknown> }>('/api/gateway')).body.gateway;
          expect(Object.keys(gwAfter).sort()).toEqual(Object.keys(gwBefore).sort());
          expect(gwAfter).toMatchObject({ ready: true, port: 'sim:usb5' });
          const status = await runTask(h, '/api/status', {});
          expect(status.state).toBe('done');
          const devAfter = (await devices(h)) as unknown as DevRow[];
          expect(devAfter.map((d) => [d.addr, d.group_id, d.network_id])).toEqual(
            devBefore.map((d) => [d.addr, d.group_id, d.network_id]),
          );
        },
      );
    } finally {
      a.stop();
      clock.stop();
    }
  }, 120_000);
});
