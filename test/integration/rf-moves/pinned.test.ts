/**
 * Pinned nodes before a gateway swap (issue 27): nodes with master persistence on restore
 * the old gateway as their master at every boot and would ignore a new one. They are listed
 * (`GET /networks/:id/pinned`) and unpinned through the gateway that still reaches them
 * (`POST /networks/:id/unpin`): after that, a reboot brings them up unbound (ready for the
 * new gateway); a pinned node that was not unpinned comes back bound to the old one.
 */
import { describe, expect, it } from 'vitest';
import type { TaskSnapshot } from '../../../src/tasks/task-manager.ts';
import { withHost } from '../harness.ts';
import { until } from '../../until.ts';

interface Row {
  addr: string;
  groupId: number;
  online: boolean;
}

describe('pinned nodes', () => {
  it('lists the nodes with master persistence on and unpins them through the old gateway', async () => {
    await withHost({ nodes: 4, seed: 13 }, async (h) => {
      const disc = await h.post<{ task: TaskSnapshot }>('/api/discover', { newGroupName: 'Gates' });
      await h.waitTask(disc.body.task.id);
      const rows = await until('four nodes in group 1', async () => {
        const r = (await h.get<{ devices: Row[] }>('/api/devices')).body.devices;
        return r.length === 4 && r.every((d) => d.groupId === 1 && d.online) ? r : null;
      });
      const [a, b] = [rows[0]!.addr, rows[1]!.addr];
      const sim = h.host.sim!;
      // Both were pinned on their settings pages; a status poll reports it (configByte bit 1).
      sim.fleet.faults.masterPersistence(true, a);
      sim.fleet.faults.masterPersistence(true, b);
      const st = await h.post<{ task: TaskSnapshot }>('/api/status', {});
      await h.waitTask(st.body.task.id);
      const listed = await h.get<{ pinned: { addr: string; online: boolean; stale: boolean }[] }>(
        '/api/networks/1/pinned',
      );
      expect(listed.status).toBe(200);
      expect(listed.body.pinned.map((p) => p.addr).sort()).toEqual([a, b].sort());
      expect(listed.body.pinned.every((p) => p.online && !p.stale)).toBe(true);

      const bad = await h.post<{ error: string }>('/api/networks/1/unpin', { addrs: ['XYZ'] });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatch(/^addrs/);
      const un = await h.post<{ unpinned: string[]; failed: unknown[]; pinned_left: { addr: string }[] }>(
        '/api/networks/1/unpin',
        { addrs: [a] },
      );
      expect(un.status).toBe(200);
      expect(un.body.unpinned).toEqual([a]);
      expect(un.body.failed).toEqual([]);
      expect(un.body.pinned_left.map((p) => p.addr)).toEqual([b]);
      expect(sim.fleet.node(a)!.snapshot().macFilterPersist).toBe(false);
      expect(sim.fleet.node(a)!.snapshot().master).toBeNull();

      // The swap: after a reboot the unpinned node is free, the pinned one is not.
      sim.fleet.faults.reboot(a);
      sim.fleet.faults.reboot(b);
      await until('both booted', async () => {
        const sa = sim.fleet.node(a)!.snapshot();
        const sb = sim.fleet.node(b)!.snapshot();
        return sa.rebootCount === 1 && sb.rebootCount === 1 && sa.powered && sb.powered;
      });
      expect(sim.fleet.node(a)!.snapshot().persisted.macFilterPersist).toBe(false);
      expect(sim.fleet.node(b)!.snapshot().persisted.macFilterPersist).toBe(true);
      expect(sim.fleet.node(b)!.snapshot().persisted.master).not.toBeNull();
    });
  }, 120_000);
});
