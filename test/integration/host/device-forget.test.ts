/**
 * Forgetting devices (issue 35, item 10): `POST /api/devices/forget {macs}` takes them out of
 * the registry and their groups, all or nothing, on disk before the 200; scenes and
 * race-light gates that name them keep the address and are reported; a forgotten node that
 * announces itself again comes back as a new device.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fleetState } from '../../../bench/fleet-state.ts';
import { serializeState } from '../../../src/state/migrations.ts';
import { testTempDir } from '../../temp-dir.ts';
import { until } from '../../until.ts';
import { withHost, type Harness } from '../harness.ts';
import { devices, discoverAll, runTask } from './helpers.ts';

interface ForgetAnswer {
  ok: boolean;
  error?: string;
  forgotten: string[];
  scenes: { key: string; label: string }[];
  race_lights: string[];
}

async function fleetDir(n: number, groups: number): Promise<string> {
  const dir = await testTempDir('lightnet-forget-');
  await writeFile(join(dir, 'state.json'), serializeState(fleetState(n, groups)));
  return dir;
}

const groupCount = async (h: Harness, id: number): Promise<number | undefined> =>
  (await h.get<{ groups: { id: number; device_count: number }[] }>('/api/groups')).body.groups.find(
    (g) => g.id === id,
  )?.device_count;

describe('forgetting devices', () => {
  it('forget-takes-devices-out-of-the-list-and-their-groups-and-keeps-scene-targets', async () => {
    const SECRET = 'forget-secret';
    // A stored fleet and no simulated nodes: none can announce itself back mid-test.
    const dataDir = await fleetDir(6, 2);
    await withHost({ nodes: 0, dataDir, integrationSecret: SECRET }, async (h) => {
      const rows = await devices(h);
      expect(rows).toHaveLength(6);
      // Group 1 holds the 1st, 3rd and 5th device.
      const [a, c, b] = rows.map((r) => r.addr) as [string, string, string];
      expect(await groupCount(h, 1)).toBe(3);
      await h.post('/api/devices/update-meta', { macs: [a], name: 'Finish gate' });
      const scene = await h.post<{ scene: { key: string } }>('/api/scenes', {
        label: 'Finish flash',
        actions: [
          { kind: 'native_effect', target: { kind: 'device', value: a }, params: { mode: 1 } },
          { kind: 'native_effect', target: { kind: 'groups', value: [1] }, params: { mode: 2 } },
        ],
      });
      expect(scene.status).toBe(200);
      await h.post('/api/scenes', { label: 'Untouched', actions: [] });
      const lights = await h.host.app.inject({
        method: 'PUT',
        url: '/lightnet/api/race-lights',
        payload: { seats: [{ seat: 2, gate: { kind: 'device', value: a } }] },
      });
      expect(lights.statusCode).toBe(200);
      const sse = await h.sse();
      const uiStream = await h.sse('console=1');

      // Refused, nothing forgotten: an unknown address anywhere in the list, none, broadcast.
      const unknown = await h.post<ForgetAnswer>('/api/devices/forget', { macs: [a, 'ABCDEF'] });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error).toBe('macs[1]: device ABCDEF not found (nothing was forgotten)');
      for (const [body, error] of [
        [{}, 'macs: is required'],
        [{ macs: [] }, 'macs: must not be empty'],
        [{ macs: 'AABBCC' }, 'macs: must be a list of addresses'],
        [{ macs: [b, 'FFFFFF'] }, 'macs[1]: broadcast address not allowed'],
        [{ macs: ['xyz'] }, 'macs[0]: must be 6 or 12 hex characters, got "xyz"'],
      ] as const) {
        const r = await h.post('/api/devices/forget', body);
        expect({ status: r.status, body: r.body }).toEqual({ status: 400, body: { ok: false, error } });
      }
      expect(await devices(h)).toHaveLength(6);

      // Two devices, one of them given twice in another spelling.
      const gone = await h.post<ForgetAnswer>('/api/devices/forget', { macs: [a, b, a.toLowerCase()] });
      expect(gone.status).toBe(200);
      expect(gone.body).toEqual({
        ok: true,
        forgotten: [a, b],
        scenes: [{ key: scene.body.scene.key, label: 'Finish flash' }],
        race_lights: ['seat 2'],
      });
      const left = await devices(h);
      expect(left.map((d) => d.addr).sort()).toEqual(
        rows
          .map((r) => r.addr)
          .filter((x) => x !== a && x !== b)
          .sort(),
      );
      expect(await groupCount(h, 1)).toBe(1);
      expect(await groupCount(h, 2)).toBe(3);
      // The live stream told every browser to reload both lists.
      await sse.waitFor('refresh', (d) => {
        const what = (d as { what: string[] }).what;
        return what.includes('devices') && what.includes('groups');
      });
      // …and a browser's stream (which asks for the extras) the networks' counts.
      await uiStream.waitFor('refresh', (d) => (d as { what: string[] }).what.includes('networks'));
      const nets = await h.get<{ networks: { id: number; device_count: number }[] }>('/api/networks');
      expect(nets.body.networks.find((n) => n.id === 1)?.device_count).toBe(4);
      // Its own routes now say the device is unknown.
      expect((await h.get(`/api/devices/${a}/history`)).status).toBe(404);
      expect((await h.post('/api/devices/forget', { macs: [a] })).status).toBe(404);

      // The scene still loads, unchanged, and runs: the forgotten target is skipped
      // (`target_not_found`), the group action goes out, the run is not stopped.
      const stored = await h.get<{ scene: { actions: { target: unknown }[] } }>(
        `/api/scenes/${scene.body.scene.key}`,
      );
      expect(stored.body.scene.actions[0]?.target).toEqual({ kind: 'device', value: a });
      const run = await h.post<{
        result: { ok: boolean; actions: { ok: boolean; state: string; error: string | null }[] };
      }>(`/api/scenes/${scene.body.scene.key}/run`, {});
      expect(run.status).toBe(200);
      expect(run.body.result.actions.map((x) => [x.state, x.error])).toEqual([
        ['degraded', 'target_not_found'],
        ['ok', null],
      ]);

      // 409 while a task runs: a poll works through the list it captured at its start.
      const poll = await h.post<{ task: { id: number } }>('/api/status', {});
      const busy = await h.post('/api/devices/forget', { macs: [c] });
      expect(busy.status).toBe(409);
      await h.waitTask(poll.body.task.id);
      expect((await devices(h)).map((d) => d.addr)).toContain(c);
    });
  });

  it('a-forgotten-node-that-announces-itself-comes-back-as-a-new-device', async () => {
    await withHost({ nodes: 2, seed: 5 }, async (h) => {
      const rows = await discoverAll(h, { newGroupName: 'Start' });
      const node = h.host.sim?.fleet.nodes.find((n) => n.addr === rows[0]?.addr);
      expect(node).toBeDefined();
      if (!node) return;
      await h.post('/api/devices/update-meta', { macs: [node.addr], name: 'Old name' });
      // Some history, so there is something to drop.
      await runTask(h, '/api/status', {});
      const before = await h.get<{ replies: number; now_ts: number; timeline: { ts: number }[] }>(
        `/api/devices/${node.addr}/history`,
      );
      expect(before.body.replies).toBeGreaterThan(0);
      expect(before.body.timeline[0]?.ts).toBeLessThan(before.body.now_ts);
      expect((await h.post('/api/devices/forget', { macs: [node.addr] })).status).toBe(200);
      expect((await devices(h)).map((d) => d.addr)).not.toContain(node.addr);

      // Powered and heard again: its boot announcement makes it a new device.
      node.reboot();
      const back = await until('the rebooted node to be listed again', async () =>
        (await devices(h)).find((d) => d.addr === node.addr),
      );
      expect(back.name).not.toBe('Old name');
      expect(back.groupId).toBe(0);
      // A fresh history: it starts after the forget, nothing from before is kept.
      const history = await h.get<{ timeline: { ts: number }[] }>(`/api/devices/${node.addr}/history`);
      expect(history.status).toBe(200);
      expect(history.body.timeline[0]?.ts).toBeGreaterThanOrEqual(before.body.now_ts);
    });
  });

  it('forgotten-devices-stay-forgotten-after-a-restart', async () => {
    const dataDir = await fleetDir(5, 2);
    let gone: string[] = [];
    await withHost({ nodes: 0, dataDir }, async (h) => {
      gone = (await devices(h)).slice(1, 3).map((d) => d.addr);
      expect((await h.post('/api/devices/forget', { macs: gone })).status).toBe(200);
    });
    await withHost({ nodes: 0, dataDir }, async (h) => {
      const addrs = (await devices(h)).map((d) => d.addr);
      expect(addrs).toHaveLength(3);
      for (const a of gone) expect(addrs).not.toContain(a);
    });
  });
});
