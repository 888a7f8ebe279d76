/**
 * One request must not flood the radio: duplicated and unknown addresses cost no
 * airtime, and a client that hangs up stops the unicasts it asked for. Checked by
 * counting the frames the simulated gateway puts on the air.
 */
import { describe, expect, it } from 'vitest';
import { withHost, type Harness } from '../harness.ts';
import { discoverAll, simAddrs } from './helpers.ts';

const OPC_PRESET = 0x04;
const OPC_INDICATE = 0x0c;

const hex = (b: Uint8Array, from: number): string =>
  [...b.subarray(from, from + 3)].map((x) => x.toString(16).padStart(2, '0').toUpperCase()).join('');

/** Receivers of M2N frames with this opcode, as they go on the air. */
function onAir(h: Harness, opcode: number): string[] {
  const seen: string[] = [];
  h.host.sim?.fleet.air.events.on('tx', ({ bytes }) => {
    if (bytes[6] === opcode) seen.push(hex(bytes, 3));
  });
  return seen;
}

describe('radio floods', () => {
  it('indicate-and-control-send-each-known-device-once', async () => {
    await withHost({ nodes: 3 }, async (h) => {
      await discoverAll(h);
      const [a, b, c] = simAddrs(h) as [string, string, string];
      const unknown = Array.from({ length: 200 }, (_, i) => (0xa00000 + i).toString(16).toUpperCase());
      const macs = [
        ...Array<string>(300).fill(a),
        b,
        b.toLowerCase(),
        `24:6f:28:${b.slice(0, 2)}:${b.slice(2, 4)}:${b.slice(4)}`,
        ...unknown,
      ];

      const indicates = onAir(h, OPC_INDICATE);
      const r = await h.post<{ count: number; errors: Record<string, string> }>('/api/devices/indicate', {
        macs,
      });
      expect(r.status).toBe(200);
      expect(r.body.count).toBe(2);
      expect(Object.keys(r.body.errors)).toHaveLength(200);
      expect(indicates.sort()).toEqual([a, b].sort());

      const presets = onAir(h, OPC_PRESET);
      const ctl = await h.post<{ changed: number }>('/api/devices/control', {
        macs: [c, c, c, a, ...unknown, a],
        flags: 1,
        presetId: 2,
        brightness: 3,
      });
      expect(ctl.status).toBe(200);
      expect(ctl.body.changed).toBe(2);
      expect(presets).toEqual([c, a]);
    });
  });

  it('a-client-that-hangs-up-stops-its-queued-unicasts', async () => {
    await withHost({ nodes: 10 }, async (h) => {
      const rows = await discoverAll(h);
      expect(rows.length).toBe(10);
      const addrs = rows.map((r) => r.addr);
      const [last] = addrs.slice(-1) as [string];
      const listed = addrs.slice(0, -1);
      const indicates = onAir(h, OPC_INDICATE);
      const abort = new AbortController();
      const first = new Promise<void>((resolve) =>
        h.host.sim?.fleet.air.events.on('tx', ({ bytes }) => {
          if (bytes[6] === OPC_INDICATE) resolve();
        }),
      );
      const hungUp = fetch(h.url + '/api/devices/indicate', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ macs: listed, duration_sec: 1 }),
        signal: abort.signal,
      }).catch((e: unknown) => e);
      await first;
      abort.abort();
      expect(await hungUp).toBeInstanceOf(Error);
      // Interactive frames go first come, first served: had the hung-up request gone on,
      // it would have sent all its nine frames while these nine are sent one by one.
      for (let i = 0; i < listed.length; i++) {
        const r = await h.post<{ count: number }>('/api/devices/indicate', { macs: [last] });
        expect(r.body.count).toBe(1);
      }
      const forHungUp = indicates.filter((a) => a !== last);
      expect(forHungUp.length).toBeGreaterThanOrEqual(1);
      expect(forHungUp.length).toBeLessThanOrEqual(2);
      expect(listed.length).toBe(9);
    });
  });
});
