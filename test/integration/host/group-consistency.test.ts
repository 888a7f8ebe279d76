import { describe, expect, it } from 'vitest';
import { withHost } from '../harness.ts';
import { devices, discoverAll, runTask, simAddrs } from './helpers.ts';

const nodeGroup = (h: Parameters<typeof simAddrs>[0], addr: string | undefined) =>
  h.host.sim?.fleet.nodes.find((n) => n.addr === addr)?.snapshot().groupId;

describe('stored groups follow the nodes', () => {
  it('plain-discovery-binds-nodes-so-status-and-control-reach-them', async () => {
    await withHost({ nodes: 4 }, async (h) => {
      const t = await runTask(h, '/api/discover', {});
      expect(t.result).toMatchObject({ found: 4, targetGroupId: null, assigned: 4, assign_failed: 0 });
      for (const n of h.host.sim?.fleet.nodes ?? []) expect(n.snapshot().groupId).toBe(0);
      const poll = await runTask(h, '/api/status', {});
      expect(poll.result).toMatchObject({ updated: 4, offline: 0 });
      await h.post('/api/devices/control', { groupId: 0, flags: 5, presetId: 4, brightness: 99 });
      for (const n of h.host.sim?.fleet.nodes ?? []) expect(n.snapshot().bri).toBe(99);
    });
  });

  it('a-cancelled-move-leaves-unvisited-devices-in-their-old-group', async () => {
    await withHost({ nodes: 6 }, async (h) => {
      await discoverAll(h, { newGroupName: 'A' });
      await h.post('/api/groups/create', { name: 'B' });
      const start = await h.post<{ task: { id: number } }>('/api/devices/update-meta', {
        macs: simAddrs(h),
        groupId: 2,
      });
      const sse = await h.sse();
      await sse.waitFor('task', (t) => ((t as { meta?: { index?: number } } | null)?.meta?.index ?? 0) >= 2);
      await h.post('/api/task/cancel');
      const t = await h.waitTask(start.body.task.id);
      expect(t.last_error).toBe('cancelled');
      // Stored groups match the nodes: moved ones in B, the rest still in A.
      for (const row of await devices(h)) expect(row.groupId).toBe(nodeGroup(h, row.addr));
      const inB = (await devices(h)).filter((r) => r.groupId === 2).length;
      expect(inB).toBeGreaterThanOrEqual(1);
      expect(inB).toBeLessThan(6);
    });
  });

  it('an-offline-device-gets-its-renumbered-group-when-it-comes-back', async () => {
    await withHost({ nodes: 3 }, async (h) => {
      await discoverAll(h);
      const [a, b, c] = simAddrs(h);
      for (const name of ['One', 'Two', 'Three']) await h.post('/api/groups/create', { name });
      await runTask(h, '/api/devices/update-meta', { macs: [a], groupId: 1 });
      await runTask(h, '/api/devices/update-meta', { macs: [b], groupId: 2 });
      await runTask(h, '/api/devices/update-meta', { macs: [c], groupId: 3 });
      h.host.sim?.fleet.faults.silence(c ?? '');
      await runTask(h, '/api/status', {});
      const del = await h.post<{ task: { id: number } | null }>('/api/groups/delete', { id: 2 });
      if (del.body.task) await h.waitTask(del.body.task.id);
      const row = (await devices(h)).find((r) => r.addr === c);
      expect(row).toMatchObject({ groupId: 2, group_pending: true, online: false });
      expect(nodeGroup(h, c)).toBe(3);
      // The node comes back (reboots and announces itself): the host pushes the new id.
      h.host.sim?.fleet.faults.unsilence(c ?? '');
      h.host.sim?.fleet.faults.reboot(c ?? '');
      const sse = await h.sse();
      await sse.waitFor(
        'refresh',
        () => nodeGroup(h, c) === 2 && !!h.host.services.registry.find(c ?? '')?.group_pending === false,
        30_000,
      );
      expect((await devices(h)).find((r) => r.addr === c)).toMatchObject({
        groupId: 2,
        group_pending: false,
        online: true,
      });
    });
  });
});
