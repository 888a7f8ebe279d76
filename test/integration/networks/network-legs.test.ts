/**
 * Fleet work per network (issue 26): the race-morning recovery and group pushes run one
 * leg per network, in parallel, each through its own gateway; a network whose gateway is
 * unplugged fails its leg at once with an error naming it while the other completes.
 * Stepped clock (the harness's default): simulated time moves with the event loop only.
 */
import { describe, expect, it } from 'vitest';
import { decodeLoraPacket } from '../../../src/protocol/packets.ts';
import { OPC } from '../../../src/protocol/types.ts';
import { snrFloorDb } from '../../../src/sim/air.ts';
import type { SimOnMemory } from '../../../src/sim/sim-host.ts';
import type { TaskSnapshot } from '../../../src/tasks/task-manager.ts';
import { withHost, type Harness } from '../harness.ts';
import { devices, runTask } from '../host/helpers.ts';

const LONG = 240_000;

interface Progress {
  active: boolean;
  total: number;
  restored: number;
  failed: number;
}

/** network id → its simulated gateway's fleet, by gateway MAC. */
async function fleetsByNetwork(h: Harness): Promise<Map<number, SimOnMemory>> {
  const rows = (await h.get<{ networks: { id: number; gateway_mac: string }[] }>('/api/networks')).body
    .networks;
  const out = new Map<number, SimOnMemory>();
  for (const s of h.host.sims) {
    const n = rows.find((r) => r.gateway_mac === s.fleet.gateway.mac.replace(/:/g, ''));
    if (n) out.set(n.id, s);
  }
  return out;
}

const healthy = (s: SimOnMemory): string[] =>
  s.fleet.nodes
    .filter((n) => (s.fleet.air.qualityOf(n.addr)?.snr ?? -99) >= snrFloorDb(7) + 1.5)
    .map((n) => n.addr);

const boundIn = (s: SimOnMemory, g: number): string[] =>
  s.fleet.nodes
    .filter((n) => n.isPowered && n.groupId === g && n.master === s.fleet.gateway.addr)
    .map((n) => n.addr);

/** SET_GROUP frames each gateway put on the air (times of their starts), until `off()`. */
function setGroupFrames(fleets: readonly SimOnMemory[]): { starts: Map<string, number[]>; off: () => void } {
  const starts = new Map<string, number[]>(fleets.map((s) => [s.fleet.gateway.addr, []]));
  const offs = fleets.map((s) =>
    s.fleet.air.events.on('tx', (e) => {
      const list = starts.get(e.sender);
      if (list && (decodeLoraPacket(e.bytes)?.typeFull ?? 0) % 0x80 === OPC.SET_GROUP) list.push(e.start);
    }),
  );
  return { starts, off: () => offs.forEach((f) => f()) };
}

/** Two time spans overlap: the legs ran at the same time, not one after the other. */
const overlap = (a: number[], b: number[]): boolean =>
  a.length > 0 && b.length > 0 && Math.min(...a) < Math.max(...b) && Math.min(...b) < Math.max(...a);

describe('fleet work per network, in parallel', () => {
  it('race-morning-across-two-networks-restores-both-in-parallel', { timeout: LONG }, async () => {
    await withHost({ nodes: 8, seed: 4, simGateways: 2 }, async (h) => {
      const t = await runTask(h, '/api/discover', { newGroupName: 'Track' });
      expect(t.state, t.last_error ?? '').toBe('done');
      const fleets = await fleetsByNetwork(h);
      const [a, b] = [fleets.get(1)!, fleets.get(2)!];
      for (const s of [a, b]) expect(boundIn(s, 1)).toEqual(expect.arrayContaining(healthy(s)));
      const sse = await h.sse();
      const frames = setGroupFrames([a, b]);
      for (const s of [a, b]) s.fleet.faults.rebootFleet();
      await sse.waitFor('recovery', (p) => (p as Progress).active, LONG);
      await sse.waitFor('recovery', (p) => !(p as Progress).active && (p as Progress).total > 0, LONG);
      frames.off();
      // Every healthy node of both networks is back in its group, bound to its own gateway.
      for (const s of [a, b]) expect(boundIn(s, 1)).toEqual(expect.arrayContaining(healthy(s)));
      // Each network restored through its own gateway, and the two sweeps overlapped in time.
      const fa = frames.starts.get(a.fleet.gateway.addr) ?? [];
      const fb = frames.starts.get(b.fleet.gateway.addr) ?? [];
      expect(fa.length).toBeGreaterThanOrEqual(healthy(a).length);
      expect(fb.length).toBeGreaterThanOrEqual(healthy(b).length);
      expect(overlap(fa, fb), `A ${fa.join(',')} / B ${fb.join(',')}`).toBe(true);
      const rows = await devices(h);
      for (const s of [a, b]) {
        for (const addr of healthy(s)) expect(rows.find((r) => r.addr === addr)?.state).toBe('online');
      }
      // The operator's restore (task restore_groups) follows both networks' sweeps, per network.
      const selection = [...healthy(a), ...healthy(b)];
      const again = setGroupFrames([a, b]);
      const restore = await runTask(h, '/api/devices/restore-groups', { selection });
      again.off();
      expect(restore.state, restore.last_error ?? '').toBe('done');
      expect(restore.result).toMatchObject({ total: selection.length, restored: selection.length });
      expect(restore.meta).toMatchObject({
        networks: {
          1: { done: healthy(a).length, total: healthy(a).length },
          2: { done: healthy(b).length, total: healthy(b).length },
        },
      });
      for (const s of [a, b])
        expect(again.starts.get(s.fleet.gateway.addr)?.length).toBeGreaterThanOrEqual(healthy(s).length);
    });
  });

  it(
    'group-push-across-two-networks-goes-per-network-then-one-frame-per-network',
    { timeout: LONG },
    async () => {
      await withHost({ nodes: 6, seed: 2, simGateways: 2 }, async (h) => {
        await runTask(h, '/api/discover', { newGroupName: 'Track' });
        const fleets = await fleetsByNetwork(h);
        const [a, b] = [fleets.get(1)!, fleets.get(2)!];
        const macs = [...healthy(a), ...healthy(b)];
        const created = await h.post<{ id: number }>('/api/groups/create', { name: 'Finish' });
        const group = created.body.id;
        const frames = setGroupFrames([a, b]);
        const push = await runTask(h, '/api/devices/update-meta', { macs, groupId: group });
        frames.off();
        expect(push.state, push.last_error ?? '').toBe('done');
        expect(push.result).toMatchObject({
          changed: macs.length,
          networks: {
            1: { total: healthy(a).length, changed: healthy(a).length, failed: 0 },
            2: { total: healthy(b).length, changed: healthy(b).length, failed: 0 },
          },
        });
        expect(push.meta).toMatchObject({
          networks: { 1: { total: healthy(a).length }, 2: { total: healthy(b).length } },
        });
        // Each device's SET_GROUP went out on its own network's gateway; the two legs overlapped.
        for (const s of [a, b]) {
          expect(boundIn(s, group).sort()).toEqual(healthy(s).sort());
          expect(frames.starts.get(s.fleet.gateway.addr)?.length).toBeGreaterThanOrEqual(healthy(s).length);
        }
        expect(
          overlap(frames.starts.get(a.fleet.gateway.addr)!, frames.starts.get(b.fleet.gateway.addr)!),
        ).toBe(true);
        // The group now spans both networks: a send to it (a preset) is one frame on each gateway.
        const txBy = new Map<string, number>();
        const offs = [a, b].map((s) =>
          s.fleet.air.events.on('tx', (e) => {
            const p = decodeLoraPacket(e.bytes);
            if (p && (p.typeFull & 0x7f) === OPC.PRESET && e.sender === s.fleet.gateway.addr)
              txBy.set(e.sender, (txBy.get(e.sender) ?? 0) + 1);
          }),
        );
        const sent = await h.post('/api/devices/control', {
          groupId: group,
          flags: 1,
          presetId: 1,
          brightness: 90,
        });
        for (const off of offs) off();
        expect(sent.body).toMatchObject({ ok: true });
        expect(txBy.get(a.fleet.gateway.addr)).toBe(1);
        expect(txBy.get(b.fleet.gateway.addr)).toBe(1);
      });
    },
  );

  it('link-test-walks-both-networks-in-parallel-each-through-its-gateway', { timeout: LONG }, async () => {
    await withHost({ nodes: 4, seed: 2, simGateways: 2 }, async (h) => {
      await runTask(h, '/api/discover', { newGroupName: 'Track' });
      const fleets = await fleetsByNetwork(h);
      const [a, b] = [fleets.get(1)!, fleets.get(2)!];
      const macs = [...healthy(a), ...healthy(b)];
      const starts = new Map<string, number[]>([
        [a.fleet.gateway.addr, []],
        [b.fleet.gateway.addr, []],
      ]);
      const offs = [a, b].map((s) =>
        s.fleet.air.events.on('tx', (e) => {
          const p = decodeLoraPacket(e.bytes);
          if (p && (p.typeFull & 0x7f) === OPC.STATUS && e.sender === s.fleet.gateway.addr)
            starts.get(e.sender)?.push(e.start);
        }),
      );
      const t = await runTask(h, '/api/link-test', { macs, count: 3 });
      for (const off of offs) off();
      expect(t.state, t.last_error ?? '').toBe('done');
      const result = t.result as { devices: { addr: string; sent: number }[] };
      expect(result.devices.map((d) => d.addr).sort()).toEqual([...macs].sort());
      expect(t.meta).toMatchObject({
        index: macs.length * 3,
        networks: {
          1: { done: healthy(a).length * 3, total: healthy(a).length * 3 },
          2: { done: healthy(b).length * 3, total: healthy(b).length * 3 },
        },
      });
      // Each network's probes went out on its own gateway, the two lanes at the same time.
      expect(starts.get(a.fleet.gateway.addr)?.length).toBeGreaterThanOrEqual(healthy(a).length * 3);
      expect(starts.get(b.fleet.gateway.addr)?.length).toBeGreaterThanOrEqual(healthy(b).length * 3);
      expect(overlap(starts.get(a.fleet.gateway.addr)!, starts.get(b.fleet.gateway.addr)!)).toBe(true);
    });
  });

  it(
    'a-leg-fails-at-once-when-its-gateway-is-unplugged-and-the-other-network-completes',
    { timeout: LONG },
    async () => {
      await withHost({ nodes: 6, seed: 2, simGateways: 2 }, async (h) => {
        await runTask(h, '/api/discover', { newGroupName: 'Track' });
        const fleets = await fleetsByNetwork(h);
        const [a, b] = [fleets.get(1)!, fleets.get(2)!];
        const inB = new Set(b.fleet.nodes.map((n) => n.addr));
        b.fleet.faults.dropLink();
        await until(() => !h.host.services.driver.readiness().ready);
        const sse = await h.sse();
        const r = await h.post<{ task: TaskSnapshot }>('/api/groups/force', {});
        const done = await h.waitTask(r.body.task.id, LONG);
        expect(done.state, done.last_error ?? '').toBe('done');
        const result = done.result as {
          networks: Record<string, { total: number; changed: number; failed: number; error?: string }>;
        };
        const rows = await devices(h);
        const rowsB = rows.filter((x) => inB.has(x.addr));
        const rowsA = rows.filter((x) => !inB.has(x.addr));
        // Network 2: failed as a whole, the error names it; its groups wait as pending.
        expect(result.networks['2']).toMatchObject({ total: rowsB.length, changed: 0, failed: rowsB.length });
        expect(result.networks['2']?.error).toMatch(/Network 2/);
        expect(rowsB.every((x) => x.group_pending)).toBe(true);
        // Network 1 went on: every healthy device confirmed.
        expect(result.networks['1']?.total).toBe(rowsA.length);
        expect(result.networks['1']?.changed).toBeGreaterThanOrEqual(healthy(a).length);
        // "At once": the first progress that shows network 2 already has it finished with its
        // error, while network 1 still had devices to go.
        const metas = sse.events
          .filter((e) => e.event === 'task')
          .map(
            (e) =>
              (e.data as TaskSnapshot).meta as {
                networks?: Record<string, { done: number; total: number; error?: string }>;
              },
          )
          .filter((m) => m.networks?.['2']?.error);
        const first = metas[0]?.networks;
        expect(first?.['2']?.error).toMatch(/Network 2/);
        expect(first?.['1']?.done ?? 0).toBeLessThan(first?.['1']?.total ?? 0);
        b.fleet.faults.restoreLink();
        await until(() => h.host.services.driver.readiness().ready);
      });
    },
  );
});

async function until(check: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}
