/**
 * Scenes, Blackout and the scene scope across two simulated gateways, through HTTP: a group
 * spanning both networks is one frame per network, SYNC only reaches the scene's networks,
 * the estimate prices each network and matches the run packet for packet, a gateway
 * unplugged mid-scene degrades only its share, Blackout reaches every network even with one
 * gateway missing.
 */
import { describe, expect, it } from 'vitest';
import { OPC } from '../../../src/protocol/types.ts';
import type { SimOnMemory } from '../../../src/sim/sim-host.ts';
import { withHost, type Harness } from '../harness.ts';
import { devices, runTask } from '../host/helpers.ts';

interface NetworkRow {
  id: number;
  gateway_mac: string;
}

interface Estimate {
  total: { packets: number; airtime_ms: number; wall_clock_ms: number };
  per_network?: { network_id: number; packets: number; airtime_ms: number; wall_clock_ms: number }[];
}

interface ActionRes {
  state: string;
  error: string | null;
  frames_sent: number;
  networks?: { network_id: number; state: string; error: string | null }[];
}

interface RunBody {
  ok: boolean;
  result: {
    ok: boolean;
    actions: ActionRes[];
    aborted_at_index?: number;
    network_failures?: { network_id: number; index: number; state: string; error: string }[];
  };
}

async function put(
  h: Harness,
  path: string,
  body: unknown,
): Promise<{ status: number; body: { error: string } }> {
  const res = await fetch(h.url + path, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { error: string } };
}

async function until(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** network id → its simulated gateway's fleet. */
async function fleets(h: Harness): Promise<Map<number, SimOnMemory>> {
  const rows = (await h.get<{ networks: NetworkRow[] }>('/api/networks')).body.networks;
  const out = new Map<number, SimOnMemory>();
  for (const s of h.host.sims) {
    const n = rows.find((r) => r.gateway_mac === s.fleet.gateway.mac.replace(/:/g, ''));
    if (n) out.set(n.id, s);
  }
  return out;
}

/** The opcodes each network's gateway received from the host, from now on. */
function recorder(f: Map<number, SimOnMemory>): { ops: Map<number, number[]>; stop: () => void } {
  const ops = new Map<number, number[]>();
  const offs = [...f].map(([id, s]) => {
    ops.set(id, []);
    return s.fleet.gateway.events.on('m2n', (m) => ops.get(id)?.push(m.typeFull & 0x7f));
  });
  return { ops, stop: () => offs.forEach((o) => o()) };
}

const count = (ops: number[] | undefined, op: number): number => (ops ?? []).filter((o) => o === op).length;

async function twoNetworkFleet(h: Harness): Promise<Map<number, SimOnMemory>> {
  const t = await runTask(h, '/api/discover', { newGroupName: 'Track' });
  expect(t.state, t.last_error ?? '').toBe('done');
  const f = await fleets(h);
  expect(f.size).toBe(2);
  const rows = await devices(h);
  // Group 1 has members on both networks.
  for (const id of [1, 2]) expect(rows.some((r) => r.network_id === id && r.groupId === 1)).toBe(true);
  return f;
}

describe('scenes across two networks', () => {
  it('group-spanning-networks-one-frame-each-estimate-equals-run-and-sync-only-to-scene-networks', async () => {
    await withHost({ nodes: 3, simGateways: 2 }, async (h) => {
      const f = await twoNetworkFleet(h);
      const onB = (await devices(h)).find((r) => r.network_id === 2 && r.online)!;

      // A group spanning both networks, then a SYNC: one CONTROL and one SYNC per network.
      const spanning = await h.post('/api/scenes', {
        label: 'Spanning',
        actions: [
          {
            kind: 'native_effect',
            target: { kind: 'groups', value: [1] },
            params: { mode: 1, brightness: 60 },
          },
          { kind: 'sync' },
        ],
      });
      expect(spanning.status).toBe(200);
      const key = (spanning.body as { scene: { key: string } }).scene.key;
      const est = (await h.get<Estimate>(`/api/scenes/${key}/estimate`)).body;
      expect(est.total.packets).toBe(4);
      expect(est.per_network?.map((n) => [n.network_id, n.packets])).toEqual([
        [1, 2],
        [2, 2],
      ]);
      // Networks in parallel: the wall clock is one network's, the airtime both.
      const one = est.per_network![0]!;
      expect(est.total.wall_clock_ms).toBeLessThan(one.wall_clock_ms + 2);
      expect(est.total.airtime_ms).toBeGreaterThanOrEqual(2 * one.airtime_ms - 1);
      const rec = recorder(f);
      const run = await h.post<RunBody>(`/api/scenes/${key}/run`, {});
      rec.stop();
      expect(run.body.result.ok, JSON.stringify(run.body.result)).toBe(true);
      expect(run.body.result.network_failures).toEqual([]);
      for (const id of [1, 2]) {
        expect(count(rec.ops.get(id), OPC.CONTROL)).toBe(1);
        expect(count(rec.ops.get(id), OPC.SYNC)).toBe(1);
      }
      // Estimate = run, packet for packet.
      expect([...rec.ops.values()].reduce((n, o) => n + o.length, 0)).toBe(est.total.packets);
      await until(
        () => f.get(2)!.fleet.nodes.some((n) => n.snapshot().bri === 60),
        'a node of network 2 to apply the group send',
      );

      // A scene on network 2's device only: its SYNC never reaches network 1.
      const rec2 = recorder(f);
      const onlyB = await h.post<RunBody>('/api/scenes/draft/run', {
        actions: [
          {
            kind: 'native_effect',
            target: { kind: 'device', value: onB.addr },
            params: { mode: 1, brightness: 90 },
          },
          { kind: 'sync' },
        ],
      });
      rec2.stop();
      expect(onlyB.body.result.ok, JSON.stringify(onlyB.body.result)).toBe(true);
      expect(rec2.ops.get(1)).toEqual([]);
      expect(count(rec2.ops.get(2), OPC.SYNC)).toBe(1);

      // An explicit scope restricts a broadcast and the SYNC; a target outside it is refused.
      const scoped = await h.post('/api/scenes', {
        label: 'Track A only',
        networks: [1],
        actions: [
          { kind: 'native_effect', target: { kind: 'broadcast' }, params: { mode: 1 } },
          { kind: 'sync' },
        ],
      });
      expect(scoped.status).toBe(200);
      const { scene } = scoped.body as { scene: { key: string; networks: number[] } };
      expect(scene.networks).toEqual([1]);
      const rec3 = recorder(f);
      const r3 = await h.post<RunBody>(`/api/scenes/${scene.key}/run`, {});
      rec3.stop();
      expect(r3.body.result.ok).toBe(true);
      expect(rec3.ops.get(2)).toEqual([]);
      expect(rec3.ops.get(1)?.length).toBe(2);
      const bad = await put(h, `/api/scenes/${scene.key}`, {
        actions: [
          { kind: 'native_effect', target: { kind: 'device', value: onB.addr }, params: { mode: 1 } },
        ],
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatch(/^actions\[0\]\.target: device .* is on Network 2/);
      const unknown = await put(h, `/api/scenes/${scene.key}`, { networks: [9] });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error).toMatch(/^networks\[0\]/);
      // Nothing half-written: the stored scene is unchanged.
      const stored = (
        await h.get<{ scene: { networks: number[]; actions: unknown[] } }>(`/api/scenes/${scene.key}`)
      ).body.scene;
      expect([stored.networks, stored.actions.length]).toEqual([[1], 2]);
    });
  });

  it('gateway-unplugged-mid-scene-degrades-only-its-share-and-blackout-reaches-the-other-network', async () => {
    await withHost({ nodes: 3, simGateways: 2 }, async (h) => {
      const f = await twoNetworkFleet(h);
      const a = f.get(1)!;
      const b = f.get(2)!;
      const sse = await h.sse();
      const running = h.post<RunBody>('/api/scenes/two-steps/run', {
        stop_on_error: true,
        actions: [
          { kind: 'native_effect', target: { kind: 'broadcast' }, params: { mode: 1, brightness: 70 } },
          { kind: 'delay', duration_ms: 2000 },
          { kind: 'native_effect', target: { kind: 'broadcast' }, params: { mode: 1, brightness: 120 } },
        ],
      });
      await sse.waitFor('scene_progress', (d) => {
        const p = d as { key: string; index: number; phase: string };
        return p.key === 'two-steps' && p.index === 1 && p.phase === 'start';
      });
      // Network 2's gateway unplugged during the delay.
      b.fleet.faults.dropLink();
      await until(() => !h.host.services.driver.readiness().ready, 'network 2 to go missing');
      const r = (await running).body.result;
      expect(r.actions.map((x) => x.state)).toEqual(['ok', 'ok', 'degraded']);
      // Not stopped: network 1's share of the last action went out.
      expect(r.aborted_at_index).toBeUndefined();
      expect(r.actions[2]).toMatchObject({ error: 'gateway_missing: Network 2', frames_sent: 1 });
      expect(r.network_failures).toEqual([
        { network_id: 2, index: 2, state: 'degraded', error: 'gateway_missing: Network 2' },
      ]);
      await until(
        () => a.fleet.nodes.some((n) => n.snapshot().bri === 120),
        'network 1 to apply the last action',
      );

      // Blackout with network 2 missing: network 1 goes dark, network 2 is named.
      const off = await h.post<{
        ok: boolean;
        sent: number;
        networks: { network_id: number; sent: number; error: string | null }[];
      }>('/api/blackout', {});
      expect(off.status).toBe(200);
      expect(off.body.networks).toEqual([
        { network_id: 1, name: 'Network 1', sent: 2, error: null },
        { network_id: 2, name: 'Network 2', sent: 0, error: 'gateway_missing: Network 2' },
      ]);
      await until(() => a.fleet.nodes.every((n) => n.snapshot().bri === 0), 'network 1 to go dark');

      // Replugged: the same scene runs on both networks again, no rebind needed.
      b.fleet.faults.restoreLink();
      await until(() => h.host.services.driver.readiness().ready, 'network 2 to come back');
      const again = await h.post<RunBody>('/api/scenes/again/run', {
        actions: [
          { kind: 'native_effect', target: { kind: 'broadcast' }, params: { mode: 1, brightness: 33 } },
        ],
      });
      expect(again.body.result.ok, JSON.stringify(again.body.result)).toBe(true);
      await until(
        () => b.fleet.nodes.some((n) => n.snapshot().bri === 33),
        'network 2 to apply after the replug',
      );
    });
  });

  it('a-network-whose-gateway-scans-channels-is-an-offchannel-part-that-does-not-stop-the-scene', async () => {
    await withHost({ nodes: 3, simGateways: 2 }, async (h) => {
      const f = await twoNetworkFleet(h);
      const a = f.get(1)!;
      const b = f.get(2)!;
      const home = { ...b.fleet.gateway.rf };
      const scan = await h.post<{ task: { id: number } }>('/api/networks/2/channel-scan', {
        region: 'EU868',
        channel_ids: [3, 4, 5],
      });
      expect(scan.status).toBe(200);
      await until(() => b.fleet.gateway.rf.freqHz !== home.freqHz, 'gateway 2 to leave its channel');
      const run = await h.post<RunBody>('/api/scenes/during-scan/run', {
        stop_on_error: true,
        actions: [
          { kind: 'native_effect', target: { kind: 'broadcast' }, params: { mode: 1, brightness: 44 } },
          { kind: 'native_effect', target: { kind: 'broadcast' }, params: { mode: 1, brightness: 55 } },
        ],
      });
      const r = run.body.result;
      const lease = 'offchannel: the gateway of Network 2 is scanning channels (task channel_scan)';
      // Network 2's share fails at once with the lease's text, degraded: the scene goes on.
      expect(r.aborted_at_index).toBeUndefined();
      expect(r.actions[0]).toMatchObject({ state: 'degraded', error: lease, frames_sent: 1 });
      expect(r.actions[0]!.networks).toEqual([
        expect.objectContaining({ network_id: 1, state: 'ok', error: null }),
        expect.objectContaining({ network_id: 2, state: 'degraded', error: lease }),
      ]);
      expect(r.actions[1]!.state).not.toBe('skipped');
      expect(r.network_failures).toContainEqual({ network_id: 2, index: 0, state: 'degraded', error: lease });
      expect(r.network_failures!.every((x) => x.network_id === 2 && x.state === 'degraded')).toBe(true);
      await until(
        () => a.fleet.nodes.some((n) => n.snapshot().bri === 55),
        'network 1 to apply both actions',
      );
      const done = await h.waitTask(scan.body.task.id);
      expect(done.state).toBe('done');
    });
  });

  it('armed-race-start-syncs-only-the-armed-network-and-holds-its-bulk-traffic-until-the-trigger', async () => {
    const SECRET = 'rotorhazard-test-secret-0123456789';
    const H = { 'x-lightnet-integration': SECRET };
    await withHost({ nodes: 3, simGateways: 2, integrationSecret: SECRET }, async (h) => {
      const f = await twoNetworkFleet(h);
      const scene = await h.post<{ scene: { key: string } }>('/api/scenes', {
        label: 'Track A gates',
        networks: [1],
        actions: [
          {
            kind: 'native_effect',
            target: { kind: 'broadcast' },
            params: { mode: 2, brightness: 210, color1: [0, 255, 0] },
            flags_override: { arm_on_sync: true },
          },
        ],
      });
      expect(scene.status).toBe(200);
      const seen: { net: number; op: number; at: number }[] = [];
      const offs = [...f].map(([net, s]) =>
        s.fleet.gateway.events.on('m2n', (m) => seen.push({ net, op: m.typeFull & 0x7f, at: Date.now() })),
      );
      const armed = await h.post(
        '/api/integration/race/arm',
        { scene: scene.body.scene.key, start_epoch_ms: Date.now() + 1500 },
        { headers: H },
      );
      expect(armed.status).toBe(200);
      const armedAt = Date.now();
      // A status poll while armed: network 2 polls, network 1's bulk frames wait for the trigger.
      const poll = await h.post('/api/status', {});
      expect(poll.status).toBe(200);
      const a = f.get(1)!;
      await until(() => a.fleet.nodes.some((n) => n.snapshot().bri === 210), 'network 1 gates fired', 20_000);
      await until(() => h.host.services.integration.view().last_start !== null, 'start recorded');
      for (const off of offs) off();
      const last = h.host.services.integration.view().last_start as {
        ok: boolean;
        fired_at_epoch_ms: number;
      };
      expect(last.ok).toBe(true);
      const syncs = seen.filter((x) => x.op === OPC.SYNC);
      expect(syncs.map((x) => x.net)).toEqual([1]);
      const heldOnA = seen.filter((x) => x.net === 1 && x.at > armedAt && x.at < last.fired_at_epoch_ms);
      expect(heldOnA).toEqual([]);
      expect(seen.some((x) => x.net === 2 && x.at > armedAt && x.op !== OPC.SYNC)).toBe(true);
    });
  });
});
