/**
 * Blackout and the red flag reach a node that missed their first broadcast (no ACK exists
 * for PRESET/CONTROL broadcasts, wire §5.2): the host repeats them a little later — and
 * never after a later command, which a repeat would undo. The device rows follow a flag's
 * look as the frame goes out, and a later command's rows win.
 */
import { describe, expect, it } from 'vitest';
import { withHost, type Harness } from '../harness.ts';
import { discoverAll } from './helpers.ts';
import { until } from '../../until.ts';
import type { SimNode } from '../../../src/sim/node/node.ts';

const STARTBLOCK = [50, 51];
const leds = (h: Harness): SimNode[] =>
  (h.host.sim?.fleet.nodes ?? []).filter((n) => !STARTBLOCK.includes(n.devType));
const look = (n: SimNode): string => {
  const s = n.snapshot();
  return `${s.bri}:${[...(s.segment.colors[0] ?? [])].join(',')}`;
};
const showing = (h: Harness, want: (n: SimNode) => boolean) => leds(h).filter(want).length;
const dark = (n: SimNode) => n.snapshot().bri === 0;
const red = (n: SimNode) => look(n) === '255:255,0,0';
const green = (n: SimNode) => look(n) === '255:0,255,0';

/**
 * Every node misses the host's next `frames` frames (a burst of interference over the whole
 * field): the air loses everything until the host's frame after them starts.
 */
function loseNextFrames(h: Harness, frames: number): void {
  const fleet = h.host.sim!.fleet;
  const nodes = new Set(fleet.nodes.map((n) => n.addr));
  let seen = 0;
  fleet.air.lossRate = 1;
  const off = fleet.air.events.on('tx', (t) => {
    if (nodes.has(t.sender)) return;
    // Reception is decided when a frame ends: the earlier ones are lost, this one is heard.
    if (++seen > frames) {
      fleet.air.lossRate = 0;
      off();
    }
  });
}

async function fieldShows(h: Harness, action: 'green' | 'clear'): Promise<void> {
  expect((await h.post(`/api/flags/${action}`, {})).status).toBe(200);
  await until(
    `every node shows ${action}`,
    () => showing(h, action === 'green' ? green : dark) === leds(h).length,
  );
  await h.host.services.safetyRepeats.idle();
}

describe('safety repeats', () => {
  it('blackout-and-red-reach-every-node-when-the-first-broadcast-was-lost', async () => {
    await withHost({ nodes: 8, seed: 5 }, async (h) => {
      await discoverAll(h);
      await fieldShows(h, 'green');
      // Blackout's pair (plain and OFFSET_MODE) is lost by every node.
      loseNextFrames(h, 2);
      const off = await h.post<{ sent: number }>('/api/blackout');
      expect(off.status).toBe(200);
      expect(off.body.sent).toBe(2);
      await h.host.services.safetyRepeats.idle();
      expect(showing(h, dark)).toBe(leds(h).length);

      await fieldShows(h, 'clear');
      loseNextFrames(h, 2);
      expect((await h.post('/api/flags/red', {})).status).toBe(200);
      await h.host.services.safetyRepeats.idle();
      expect(showing(h, red)).toBe(leds(h).length);
    });
  });

  it('a-node-that-missed-every-round-is-sent-the-look-when-its-status-reply-says-so', async () => {
    await withHost({ nodes: 6, seed: 5, overrides: { safetyRepeats: { gapsMs: [200] } } }, async (h) => {
      await discoverAll(h);
      await fieldShows(h, 'green');
      // Blackout's two rounds (four frames) are lost by every node: they still show green.
      loseNextFrames(h, 4);
      expect((await h.post('/api/blackout')).status).toBe(200);
      await h.host.services.safetyRepeats.idle();
      expect(showing(h, dark)).toBe(0);
      // The next status poll hears them lit: each is sent Blackout alone.
      const poll = await h.post<{ task: { id: number } }>('/api/status', {});
      expect(poll.status).toBe(200);
      await h.waitTask(poll.body.task.id);
      await until('every node is dark', () => showing(h, dark) === leds(h).length, 20_000);

      // Red the same way, from the clear look: a reply tells brightness and effect, not the
      // colour, so a node still green (solid at 255, as red) cannot be told apart.
      await fieldShows(h, 'clear');
      loseNextFrames(h, 4);
      expect((await h.post('/api/flags/red', {})).status).toBe(200);
      await h.host.services.safetyRepeats.idle();
      expect(showing(h, red)).toBe(0);
      const again = await h.post<{ task: { id: number } }>('/api/status', {});
      await h.waitTask(again.body.task.id);
      await until('every node is red', () => showing(h, red) === leds(h).length, 20_000);
    });
  });

  it('a-repeat-never-undoes-a-later-command', async () => {
    // A long gap: the operator's command is certainly handed over before the repeat is due.
    await withHost(
      { nodes: 6, seed: 5, overrides: { safetyRepeats: { gapsMs: [3000, 3000] } } },
      async (h) => {
        const rows = await discoverAll(h);
        const gid = rows[0]!.groupId;
        await fieldShows(h, 'green');
        expect((await h.post('/api/blackout')).status).toBe(200);
        await until('every node is dark', () => showing(h, dark) === leds(h).length);
        // The operator turns one group back on before Blackout's repeat is due.
        const on = await h.post('/api/devices/control', {
          groupId: gid,
          flags: 0,
          presetId: 2,
          brightness: 150,
        });
        expect(on.status).toBe(200);
        await h.host.services.safetyRepeats.idle();
        const group = leds(h).filter((n) => rows.find((r) => r.addr === n.addr)?.groupId === gid);
        expect(group.length).toBeGreaterThan(0);
        for (const n of group) expect(n.snapshot().bri).toBe(150);
      },
    );
  });

  it('the-device-rows-show-red-as-it-goes-out-and-a-later-command-wins', async () => {
    await withHost({ nodes: 4, seed: 2 }, async (h) => {
      const rows = await discoverAll(h);
      const gid = rows[0]!.groupId;
      expect((await h.post('/api/flags/red', {})).status).toBe(200);
      type Row = { addr: string; groupId: number; brightness: number; effectId: number };
      const devices = async () => (await h.get<{ devices: Row[] }>('/api/devices')).body.devices;
      // At once, not after the next poll: what the nodes show.
      for (const d of await devices())
        expect({ bri: d.brightness, fx: d.effectId }).toEqual({ bri: 255, fx: 0 });
      // Clear, and a control in the same moment: whichever frame the air carried last, the
      // rows say what the nodes show (the flag's rows are no longer written after its disk save).
      const [clear, on] = await Promise.all([
        h.post('/api/flags/clear', {}),
        h.post('/api/devices/control', { groupId: gid, flags: 0, presetId: 3, brightness: 90 }),
      ]);
      expect(clear.status).toBe(200);
      expect(on.status).toBe(200);
      await h.host.services.safetyRepeats.idle();
      const nodes = new Map((h.host.sim?.fleet.nodes ?? []).map((n) => [n.addr, n.snapshot().bri]));
      const after = await devices();
      expect(after.filter((d) => d.groupId === gid).length).toBeGreaterThan(0);
      for (const d of after)
        expect({ addr: d.addr, bri: d.brightness }).toEqual({ addr: d.addr, bri: nodes.get(d.addr) });
    });
  });
});
