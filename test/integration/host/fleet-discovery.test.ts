/**
 * Discovery at fleet scale through the API (stepped clock): one run finds and binds every
 * reachable node, with its progress in the task meta. Times are measured in bench/fleet.ts.
 */
import { describe, expect, it } from 'vitest';
import { snrFloorDb } from '../../../src/sim/air.ts';
import type { TaskSnapshot } from '../../../src/tasks/task-manager.ts';
import { withHost } from '../harness.ts';
import { devices, runTask } from './helpers.ts';

describe('discovery of a big fleet', () => {
  it('discovery-binds-a-fleet-of-150-into-a-new-group-in-one-run', async () => {
    await withHost({ nodes: 150, seed: 2 }, async (h) => {
      const metas: Record<string, unknown>[] = [];
      const off = h.host.services.bus.on('task', (t: TaskSnapshot) => metas.push(t.meta));
      const t = await runTask(h, '/api/discover', { newGroupName: 'Field' });
      off();
      expect(t.state).toBe('done');
      const r = t.result as { found: number; assigned: number; assign_failed: number; targetGroupId: number };
      const fleet = h.host.sim?.fleet;
      const gw = fleet?.gateway.addr;
      // Every node that can be heard at all (not only the comfortable ones) is bound to this
      // gateway in the new group, on the node itself.
      const reachable = (fleet?.nodes ?? []).filter(
        (n) => (fleet?.air.qualityOf(n.addr)?.snr ?? -99) >= snrFloorDb(7) + 1,
      );
      expect(reachable.length).toBeGreaterThan(140);
      const unbound = reachable.filter((n) => {
        const s = n.snapshot();
        return s.master !== gw || s.groupId !== r.targetGroupId;
      });
      expect(unbound.map((n) => n.addr)).toEqual([]);
      expect(r.assigned).toBe(r.found);
      const rows = await devices(h);
      expect(rows.filter((x) => x.groupId === r.targetGroupId && x.online)).toHaveLength(r.found);
      // The progress meta told the UI the phase and the counts as they grew.
      expect(metas.some((m) => m.phase === 'BIND' && typeof m.bound === 'number')).toBe(true);
      const bounds = metas.map((m) => m.bound).filter((b): b is number => typeof b === 'number');
      expect(Math.max(...bounds)).toBe(r.found);
    });
  }, 180_000);

  // The original host's discovery is one 5 s window; a small fleet must not take longer
  // than that plus a second. Simulated seconds on the stepped clock: deterministic, not a
  // wall-clock timing (bench/fleet.ts prints the figures, `npm run bench:fleet -- 12`).
  it.each([1, 2, 3])(
    'a-small-fleet-of-12-is-found-and-bound-within-6-simulated-seconds-seed-%i',
    async (seed) => {
      await withHost({ nodes: 12, seed }, async (h) => {
        const fleet = h.host.sim?.fleet;
        if (!fleet) throw new Error('no simulator');
        await fleet.clock.sleep(8000); // every node booted, its boot announcements are over
        const t = await runTask(h, '/api/discover', { newGroupName: 'Gates' });
        expect(t.state).toBe('done');
        const r = t.result as { found: number; assigned: number; targetGroupId: number };
        expect(r.found).toBe(12);
        const healthy = fleet.nodes.filter(
          (n) => (fleet.air.qualityOf(n.addr)?.snr ?? -99) >= snrFloorDb(7) + 1.5,
        );
        const unbound = healthy.filter((n) => {
          const s = n.snapshot();
          return s.master !== fleet.gateway.addr || s.groupId !== r.targetGroupId;
        });
        expect(unbound.map((n) => n.addr)).toEqual([]);
        expect((t.ended_ts ?? Infinity) - t.started_ts).toBeLessThanOrEqual(6);
      });
    },
    60_000,
  );

  // The same into Unconfigured (the Discover dialog's default): the nodes stay in group 0
  // and answer every round, so the window holds them and one confirming round settles it.
  it.each([1, 2, 3])(
    'a-small-fleet-of-12-discovered-into-unconfigured-is-bound-within-6-simulated-seconds-seed-%i',
    async (seed) => {
      await withHost({ nodes: 12, seed }, async (h) => {
        const fleet = h.host.sim?.fleet;
        if (!fleet) throw new Error('no simulator');
        await fleet.clock.sleep(8000); // every node booted, its boot announcements are over
        const t = await runTask(h, '/api/discover', {});
        expect(t.state).toBe('done');
        const r = t.result as { found: number; assigned: number };
        expect(r.found).toBe(12);
        expect(r.assigned).toBe(12);
        const unbound = fleet.nodes.filter((n) => {
          const s = n.snapshot();
          return s.master !== fleet.gateway.addr || s.groupId !== 0;
        });
        expect(unbound.map((n) => n.addr)).toEqual([]);
        expect((t.ended_ts ?? Infinity) - t.started_ts).toBeLessThanOrEqual(6);
      });
    },
    60_000,
  );
});
