/**
 * DMX in on the simulator, fed by real senders: the `sacn` library's Sender (unicast to
 * 127.0.0.1) and `dmxnet`'s Art-Net sender. A 44 Hz fade ends with the group at the last
 * value on the nodes with far fewer frames on air than packets; a stopped stream holds the
 * group for 3 s, then lets go (the operator is refused before, accepted after); a red flag
 * and Blackout outrank DMX; bad packets are counted; an ArtPoll gets an ArtPollReply naming
 * Lightnet. Every host listens on free ports (0), so these tests run beside any other.
 */
import { createSocket } from 'node:dgram';
import { dmxnet } from 'dmxnet';
import { Sender } from 'sacn';
import { describe, expect, it } from 'vitest';
import { withHost, type Harness } from '../harness.ts';
import { discoverAll, runTask } from './helpers.ts';
import { until } from '../../until.ts';
import type { SimNode } from '../../../src/sim/node/node.ts';

const STARTBLOCK = [50, 51];
const leds = (h: Harness): SimNode[] =>
  (h.host.sim?.fleet.nodes ?? []).filter((n) => !STARTBLOCK.includes(n.devType));
const look = (n: SimNode): string => {
  const s = n.snapshot();
  return `${s.bri}:${[...(s.segment.colors[0] ?? [])].join(',')}`;
};
const port = (h: Harness, p: 'sacn' | 'artnet'): number => h.host.dmx?.ports[p] ?? 0;

interface Universe {
  key: string;
  state: string;
  packets: number;
  frames_changed: number;
  commands_sent: number;
  dropped_for_rate: number;
  refused: { held: number; rate_limited: number; disabled: number };
  malformed: number;
  oversized: number;
  last_packet_ms_ago: number | null;
  last_source: { name: string; id: string; priority: number } | null;
  last_error: string | null;
  values: number[];
}
interface DmxView {
  enabled: boolean;
  universes: Universe[];
  unmatched: { unknown_universe: number; malformed: number; oversized: number };
}
const view = async (h: Harness): Promise<DmxView> => (await h.get<DmxView>('/api/dmx')).body;
const universe = async (h: Harness, key: string): Promise<Universe> =>
  (await view(h)).universes.find((u) => u.key === key) as Universe;

/** The frames the host hands the simulated gateway. */
function airCount(h: Harness): () => number {
  let n = 0;
  h.host.sim?.fleet.gateway.events.on('m2n', () => n++);
  return () => n;
}

/** Every LED node into group 1 ("Gates"); returns them. */
async function gates(h: Harness): Promise<SimNode[]> {
  await discoverAll(h);
  expect((await h.post('/api/groups/create', { name: 'Gates' })).status).toBe(200);
  const nodes = leds(h);
  await runTask(h, '/api/devices/update-meta', { macs: nodes.map((n) => n.addr), groupId: 1 });
  return nodes;
}

function sacnSender(h: Harness, priority = 100, name = 'Test desk'): Sender {
  return new Sender({
    universe: 1,
    port: port(h, 'sacn'),
    useUnicastDestination: '127.0.0.1',
    // Each console has its own CID (the library's default is one fixed CID for every sender).
    defaultPacketOptions: {
      sourceName: name,
      priority,
      useRawDmxValues: true,
      cid: Buffer.from(name.padEnd(16, '.').slice(0, 16), 'latin1'),
    },
  });
}

/** Channels 1.. of a fixture as an sACN payload (1-based). */
const payload = (start: number, ch: number[]): Record<number, number> =>
  Object.fromEntries(ch.map((v, i) => [start + i, v]));

/** Sends `n` frames at 44 Hz (a console's pace); `frame(i)` gives each payload. */
async function stream(s: Sender, n: number, frame: (i: number) => Record<number, number>): Promise<void> {
  for (let i = 0; i < n; i++) {
    await s.send({ payload: frame(i) });
    await new Promise((r) => setTimeout(r, 1000 / 44));
  }
}

describe('dmx', () => {
  it('an-sacn-fade-at-44-hz-ends-at-its-last-value-with-far-fewer-frames-on-air-than-packets', async () => {
    await withHost({ nodes: 4, seed: 3, dmx: ['sacn:1'] }, async (h) => {
      const nodes = await gates(h);
      const put = await h.put('/api/dmx/patch', {
        fixtures: [{ group: 1, universe: 'sacn:1', address: 1, fixture: 'full' }],
      });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      const air = airCount(h);
      const s = sacnSender(h);
      try {
        const frames = 88;
        const t0 = Date.now();
        await stream(s, frames + 1, (i) =>
          payload(1, [Math.round((200 * i) / frames), 255, 0, 0, 0, 128, 128, 0]),
        );
        await until('every gate at the last value', () => nodes.every((n) => look(n) === '200:255,0,0'));
        const u = await universe(h, 'sacn:1');
        expect(u.packets).toBe(frames + 1);
        expect(u.last_source).toMatchObject({ name: 'Test desk', priority: 100 });
        expect(u.values.slice(0, 8)).toEqual([200, 255, 0, 0, 0, 128, 128, 0]);
        // A frame per group (not per node, not per packet), within 30 % of the air: a
        // brightness-only CONTROL is 41 ms at SF7/125 kHz, so ≤ 7.3 a second plus the 300 ms burst.
        const seconds = (Date.now() - t0) / 1000;
        expect(u.commands_sent).toBeGreaterThan(1);
        expect(u.commands_sent).toBeLessThanOrEqual(Math.ceil(seconds * 7.4) + 8);
        expect(u.commands_sent).toBeLessThan(frames / 2);
        expect(air()).toBeLessThan(frames / 2);
        expect(u.dropped_for_rate).toBeGreaterThan(frames / 2);
      } finally {
        s.close();
      }
    });
  });

  it('a-stopped-stream-holds-its-group-for-3-s-then-lets-go-and-the-operator-gets-it', async () => {
    await withHost({ nodes: 3, seed: 4, dmx: ['sacn:1'] }, async (h) => {
      await gates(h);
      await h.put('/api/dmx/patch', {
        fixtures: [{ group: 1, universe: 'sacn:1', address: 5, fixture: 'rgb' }],
      });
      const s = sacnSender(h);
      try {
        await stream(s, 10, () => payload(5, [150, 0, 255, 0]));
        await until('DMX holds group 1', async () => (await universe(h, 'sacn:1')).commands_sent > 0);
        const refused = await h.post<{ error: string }>('/api/devices/control', {
          groupId: 1,
          flags: 0,
          presetId: 1,
          brightness: 10,
        });
        expect(refused.status).toBe(409);
        expect(refused.body.error).toMatch(/DMX/);
        const released = await until(
          'released',
          async () => {
            const u = await universe(h, 'sacn:1');
            return u.state === 'released' ? u : null;
          },
          15_000,
        );
        expect(released.last_packet_ms_ago).toBeGreaterThanOrEqual(3000);
        const ok = await h.post('/api/devices/control', {
          groupId: 1,
          flags: 0,
          presetId: 1,
          brightness: 10,
        });
        expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      } finally {
        s.close();
      }
    });
  });

  it('a-red-flag-and-blackout-outrank-dmx-and-a-higher-sacn-priority-wins-the-merge', async () => {
    await withHost({ nodes: 3, seed: 5, dmx: ['sacn:1'] }, async (h) => {
      const nodes = await gates(h);
      await h.put('/api/dmx/patch', {
        fixtures: [{ group: 1, universe: 'sacn:1', address: 1, fixture: 'rgb' }],
      });
      const low = sacnSender(h, 100, 'Main desk');
      const high = sacnSender(h, 150, 'Backup desk');
      try {
        await stream(low, 5, () => payload(1, [180, 0, 0, 255]));
        await stream(high, 5, () => payload(1, [90, 0, 255, 0]));
        await stream(low, 5, () => payload(1, [180, 0, 0, 255]));
        await until('the higher priority shows', () => nodes.every((n) => look(n) === '90:0,255,0'), 20_000);
        expect((await universe(h, 'sacn:1')).last_source?.name).toBe('Main desk');

        expect((await h.post('/api/flags/red')).status).toBe(200);
        await until('every gate red', () => nodes.every((n) => look(n) === '255:255,0,0'));
        await stream(high, 10, (i) => payload(1, [100 + i, 0, 255, 0]));
        await until('DMX refused under the flag', async () => (await universe(h, 'sacn:1')).refused.held > 0);
        expect(nodes.every((n) => look(n) === '255:255,0,0')).toBe(true);
        expect((await universe(h, 'sacn:1')).last_error).toMatch(/Race flag|flag/i);
        await h.post('/api/flags/clear');

        await stream(high, 5, () => payload(1, [120, 0, 255, 0]));
        await until('DMX has the gates back', () => nodes.every((n) => look(n) === '120:0,255,0'));
        expect((await h.post('/api/blackout')).status).toBe(200);
        await until('every gate dark', () => nodes.every((n) => n.snapshot().bri === 0));
        const sent = (await universe(h, 'sacn:1')).commands_sent;
        // The console still streams the same look: Blackout stays until the console changes it.
        await stream(high, 20, () => payload(1, [120, 0, 255, 0]));
        expect((await universe(h, 'sacn:1')).commands_sent).toBe(sent);
        expect(nodes.every((n) => n.snapshot().bri === 0)).toBe(true);
      } finally {
        low.close();
        high.close();
      }
    });
  });

  it('art-net-from-dmxnet-drives-a-group-an-artpoll-is-answered-and-bad-packets-are-counted', async () => {
    await withHost({ nodes: 3, seed: 6, dmx: ['sacn:1', 'artnet:0.1.2'] }, async (h) => {
      const nodes = await gates(h);
      const bad = await h.put<{ error: string }>('/api/dmx/patch', {
        fixtures: [
          { group: 1, universe: 'artnet:0.1.2', address: 10, fixture: 'full' },
          { group: 0, universe: 'artnet:0.1.2', address: 12, fixture: 'rgb' },
        ],
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatch(/^fixtures\[1\]\.address: 12–15 overlaps fixtures\[0\]/);
      const range = await h.put<{ error: string }>('/api/dmx/patch', {
        fixtures: [{ group: 1, universe: 'artnet:0.1.2', address: 513, fixture: 'full' }],
      });
      expect(range.status).toBe(400);
      expect(range.body.error).toMatch(/^fixtures\[0\]\.address: must be a DMX address 1–512/);
      const unknown = await h.put<{ error: string }>('/api/dmx/patch', {
        fixtures: [{ group: 7, universe: 'artnet:0.1.2', address: 1, fixture: 'full' }],
      });
      expect(unknown.body.error).toBe('fixtures[0].group: no group 7');
      expect(
        (
          await h.put('/api/dmx/patch', {
            fixtures: [{ group: 1, universe: 'artnet:0.1.2', address: 10, fixture: 'full' }],
          })
        ).status,
      ).toBe(200);

      const net = new dmxnet({ listen: 0x10000 - 1, hosts: ['127.0.0.1'], log: { level: 'error' } });
      const sender = net.newSender({
        ip: '127.0.0.1',
        port: port(h, 'artnet'),
        net: 0,
        subnet: 1,
        universe: 2,
      });
      try {
        for (const [i, v] of [200, 0, 128, 255, 0, 0, 0, 0].entries()) sender.prepChannel(9 + i, v);
        sender.transmit();
        await until('the gates follow Art-Net', () => nodes.every((n) => look(n) === '200:0,128,255'));
        const art = await universe(h, 'artnet:0.1.2');
        expect(art.last_source?.name).toBe('Art-Net 127.0.0.1');

        // An ArtPoll from a controller: the reply names Lightnet and the universe it outputs.
        const ctl = createSocket('udp4');
        await new Promise<void>((r) => ctl.bind(0, '127.0.0.1', () => r()));
        const reply = new Promise<Buffer>((r) => ctl.once('message', (m) => r(m)));
        const poll = Buffer.concat([
          Buffer.from('Art-Net\0', 'latin1'),
          Buffer.from([0x00, 0x20, 0, 14, 0, 0]),
        ]);
        ctl.send(poll, port(h, 'artnet'), '127.0.0.1');
        const r = await reply;
        expect(r.subarray(0, 8).toString('latin1')).toBe('Art-Net\0');
        expect(r.readUInt16LE(8)).toBe(0x2100);
        expect(r.subarray(26, 44).toString('latin1').replace(/\0+$/, '')).toBe('Lightnet');
        expect(r[19]).toBe(1); // SubSwitch
        expect(r[190]).toBe(2); // SwOut: universe 2

        // A packet that is not sACN, an oversized ArtDmx, a UDP flood of junk: counted, nothing sent.
        const before = (await universe(h, 'artnet:0.1.2')).commands_sent;
        ctl.send(Buffer.from('not dmx at all'), port(h, 'sacn'), '127.0.0.1');
        const big = Buffer.alloc(18 + 600);
        Buffer.from('Art-Net\0', 'latin1').copy(big);
        big.writeUInt16LE(0x5000, 8);
        big.writeUInt16BE(14, 10);
        big[14] = 0x12;
        big.writeUInt16BE(600, 16);
        ctl.send(big, port(h, 'artnet'), '127.0.0.1');
        ctl.send(Buffer.alloc(4000, 7), port(h, 'artnet'), '127.0.0.1');
        await until('counted', async () => {
          const v = await view(h);
          return v.unmatched.malformed >= 1 && v.unmatched.oversized >= 2;
        });
        expect((await universe(h, 'artnet:0.1.2')).commands_sent).toBe(before);
        ctl.close();
      } finally {
        sender.stop();
        net.listener4.close();
        net.socket.close();
      }
    });
  });
});
