import { describe, expect, it } from 'vitest';
import { withHost } from '../harness.ts';
import { devices, discoverAll, runTask, simAddrs } from './helpers.ts';

describe('groups', () => {
  it('create-rename-and-validation', async () => {
    // No simulated nodes: a boot announcement arriving mid-test would change the device counts.
    await withHost({ nodes: 0 }, async (h) => {
      expect((await h.post('/api/groups/create', { name: 'A', device_type: 50 })).body).toEqual({
        ok: true,
        id: 1,
      });
      expect((await h.post('/api/groups/create', { name: 'B', dev_type: '10' })).body).toEqual({
        ok: true,
        id: 2,
      });
      const bad: [string, unknown, number, RegExp][] = [
        ['/api/groups/create', { name: '   ' }, 400, /^name/],
        ['/api/groups/create', { name: 'unconfigured' }, 400, /reserved/],
        ['/api/groups/create', { name: 'x'.repeat(65) }, 400, /^name/],
        ['/api/groups/create', { name: 'C', dev_type: 'led' }, 400, /^dev_type/],
        ['/api/groups/rename', { name: 'x' }, 400, /^id: is required/],
        ['/api/groups/rename', { id: 'one', name: 'x' }, 400, /^id/],
        ['/api/groups/rename', { id: 0, name: 'x' }, 400, /static/],
        ['/api/groups/rename', { id: 9, name: 'x' }, 404, /not found/],
        ['/api/groups/rename', { id: 1, name: '' }, 400, /^name/],
        ['/api/groups/delete', { id: 0 }, 400, /static/],
        ['/api/groups/delete', {}, 400, /^id/],
        ['/api/groups/delete', { id: 5 }, 404, /not found/],
      ];
      for (const [path, body, status, msg] of bad) {
        const r = await h.post(path, body);
        expect(r.status, `${path} ${JSON.stringify(body)}`).toBe(status);
        expect(String(r.body.error)).toMatch(msg);
      }
      expect((await h.post('/api/groups/rename', { id: 2, name: 'Bee' })).body).toEqual({ ok: true });
      const rows = (await h.get<{ groups: unknown[] }>('/api/groups')).body.groups;
      expect(rows).toEqual([
        { id: 0, name: 'Unconfigured', static: true, dev_type: 0, device_count: 0, caps_in_group: {} },
        { id: 1, name: 'A', static: false, dev_type: 50, device_count: 0, caps_in_group: {} },
        { id: 2, name: 'Bee', static: false, dev_type: 10, device_count: 0, caps_in_group: {} },
      ]);
    });
  });

  it('group-delete-moves-and-renumbers-devices-and-pushes-to-nodes', async () => {
    await withHost({ nodes: 3 }, async (h) => {
      const sse = await h.sse();
      await discoverAll(h);
      const [a, b, c] = simAddrs(h);
      for (const name of ['One', 'Two', 'Three']) await h.post('/api/groups/create', { name });
      await runTask(h, '/api/devices/update-meta', { macs: [a], groupId: 1 });
      await runTask(h, '/api/devices/update-meta', { macs: [b], groupId: 2 });
      await runTask(h, '/api/devices/update-meta', { macs: [c], groupId: 3 });
      const del = await h.post<{ task: { id: number } | null }>('/api/groups/delete', { id: 2 });
      expect(del.body).toMatchObject({
        ok: true,
        moved_devices: 1,
        renumbered_devices: 1,
        renumbered_scenes: 0,
      });
      expect(del.body.task).not.toBeNull();
      await sse.waitFor('refresh', (d) => {
        const what = (d as { what: string[] }).what;
        return what.includes('groups') && what.includes('devices');
      });
      const t = await h.waitTask(del.body.task?.id ?? -1);
      expect(t.result).toMatchObject({ changed: 2, timed_out: 0 });
      const rows = await devices(h);
      expect(rows.find((r) => r.addr === a)?.groupId).toBe(1);
      expect(rows.find((r) => r.addr === b)?.groupId).toBe(0);
      expect(rows.find((r) => r.addr === c)?.groupId).toBe(2);
      const groups = (await h.get<{ groups: { id: number; name: string }[] }>('/api/groups')).body.groups;
      expect(groups.map((g) => [g.id, g.name])).toEqual([
        [0, 'Unconfigured'],
        [1, 'One'],
        [2, 'Three'],
      ]);
      const nodeGroup = (addr: string | undefined) =>
        h.host.sim?.fleet.nodes.find((n) => n.addr === addr)?.snapshot().groupId;
      expect(nodeGroup(b)).toBe(0);
      expect(nodeGroup(c)).toBe(2);
    });
  });

  it('force-groups-resends-every-stored-group', async () => {
    await withHost({ nodes: 3 }, async (h) => {
      await discoverAll(h, { newGroupName: 'G' });
      const [a] = simAddrs(h);
      h.host.sim?.fleet.faults.silence(a ?? '');
      const t = await runTask(h, '/api/groups/force', { skipOffline: false });
      expect(t.name).toBe('force_groups');
      expect(t.result).toMatchObject({ changed: 2, timed_out: 1, skipped_offline: 0, total: 3 });
      const again = await runTask(h, '/api/groups/force', { skipOffline: 'true' });
      expect(again.result).toMatchObject({ changed: 2, skipped_offline: 1, total: 3 });
      expect((await h.post('/api/groups/force', { skipOffline: 'maybe' })).status).toBe(400);
    });
  });
});
