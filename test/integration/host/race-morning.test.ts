/**
 * Race morning (issue 19): a field of known gates is power-cycled and the host puts every
 * node back into its stored group by itself. Stepped clock: simulated time only moves with
 * the event loop, so these scenarios do not depend on the machine's load.
 */
import { describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Harness } from '../harness.ts';
import { withHost } from '../harness.ts';
import { devices, discoverAll, runTask, simAddrs, type Row } from './helpers.ts';

interface Progress {
  active: boolean;
  total: number;
  restored: number;
  failed: number;
  rejoining: number;
  trigger: string | null;
}

const NODES = 10;
const LONG = Number(process.env.RM_LONG ?? 240_000);

/** Nodes really back: in group `g` and bound to this gateway (so they answer STATUS). */
function boundInGroup(h: Harness, g: number): string[] {
  const fleet = h.host.sim?.fleet;
  if (!fleet) return [];
  return fleet.nodes
    .filter((n) => n.isPowered && n.groupId === g && n.master === fleet.gateway.addr)
    .map((n) => n.addr);
}

const stateOf = (rows: Row[], addr: string): unknown => rows.find((r) => r.addr === addr)?.state;

describe('race morning: the field powers up and the host restores it', () => {
  it('whole-fleet-reboot-restores-every-node-without-a-request', { timeout: LONG }, async () => {
    await withHost({ nodes: NODES, seed: 3 }, async (h) => {
      await discoverAll(h, { newGroupName: 'Track' });
      expect(boundInGroup(h, 1)).toHaveLength(NODES);
      const sse = await h.sse();
      const rebooted = h.host.sim?.fleet.faults.rebootFleet() ?? [];
      expect(rebooted).toHaveLength(NODES);
      await sse.waitFor('recovery', (p) => (p as Progress).active, LONG);
      const end = await sse.waitFor(
        'recovery',
        (p) => !(p as Progress).active && (p as Progress).total > 0,
        LONG,
      );
      expect(end.data).toMatchObject({ restored: NODES, failed: 0, rejoining: 0 });
      expect(boundInGroup(h, 1).sort()).toEqual(simAddrs(h).sort());
      const rows = await devices(h);
      expect(rows.map((r) => r.state)).toEqual(rows.map(() => 'online'));
      expect(rows.every((r) => r.groupId === 1 && r.online && !r.group_pending)).toBe(true);
      // No operator request was made after the reboot: the first poll finds everybody.
      const poll = await runTask(h, '/api/status', {});
      expect(poll.result).toMatchObject({ updated: NODES, offline: 0 });
    });
  });

  it(
    'a-status-poll-during-recovery-keeps-rejoining-nodes-and-a-dead-one-ends-offline',
    { timeout: LONG },
    async () => {
      await withHost(
        { nodes: NODES, seed: 5, overrides: { recoveryOptions: { budgetMs: 60_000 } } },
        async (h) => {
          const known = (await discoverAll(h, { newGroupName: 'Track' })).map((r) => r.addr);
          const faults = h.host.sim?.fleet.faults;
          const [late1, late2, dead] = known as [string, string, string];
          const sse = await h.sse();
          // Three gates are still switched off when the field powers up.
          for (const a of [late1, late2, dead]) faults?.powerOff(a);
          faults?.rebootFleet();
          await sse.waitFor('recovery', (p) => (p as Progress).restored >= known.length - 3, LONG);
          const rejoining = (await devices(h)).filter((r) => r.state === 'rejoining').map((r) => r.addr);
          expect(rejoining).toEqual(expect.arrayContaining([late1, late2, dead]));
          const during = await runTask(h, '/api/status', {});
          expect(during.state).toBe('done');
          let rows = await devices(h);
          for (const a of [late1, late2, dead]) expect(stateOf(rows, a)).toBe('rejoining');
          // Whoever was rejoining when the poll started is not called offline by it.
          for (const a of rejoining) expect(stateOf(rows, a)).not.toBe('offline');
          // Two come up later; their restore is still under way, the third never comes.
          faults?.powerOn(late1);
          faults?.powerOn(late2);
          const end = await sse.waitFor(
            'recovery',
            (p) => !(p as Progress).active && (p as Progress).total > 0,
            LONG,
          );
          expect(end.data).toMatchObject({ restored: known.length - 1, failed: 1, rejoining: 0 });
          rows = await devices(h);
          expect(stateOf(rows, late1)).toBe('online');
          expect(stateOf(rows, late2)).toBe('online');
          const row = rows.find((r) => r.addr === dead);
          expect(row).toMatchObject({ state: 'offline', online: false, group_pending: true, groupId: 1 });
          expect(String(row?.offline_reason)).toMatch(
            /did not answer \d+ group restores \(SET_GROUP\) within 60 s/,
          );
          expect(boundInGroup(h, 1)).toHaveLength(known.length - 1);
        },
      );
    },
  );

  it('a-field-switched-on-after-the-sweep-gave-up-comes-back-by-itself', { timeout: LONG }, async () => {
    await withHost(
      { nodes: NODES, seed: 7, overrides: { recoveryOptions: { budgetMs: 30_000 } } },
      async (h) => {
        const known = (await discoverAll(h, { newGroupName: 'Track' })).map((r) => r.addr);
        const faults = h.host.sim?.fleet.faults;
        const sse = await h.sse();
        // The field is switched off (end of the day before); a poll finds it silent and the
        // sweep that follows gives up after its budget.
        for (const a of known) faults?.powerOff(a);
        const poll = await runTask(h, '/api/status', {});
        expect(poll.result).toMatchObject({ updated: 0 });
        const gaveUp = await sse.waitFor(
          'recovery',
          (p) => !(p as Progress).active && (p as Progress).total > 0,
          LONG,
        );
        expect(gaveUp.data).toMatchObject({ restored: 0, failed: known.length });
        expect((await devices(h)).every((r) => r.state === 'offline')).toBe(true);
        // Race morning, long after: the field powers up; its announcements start a new sweep.
        for (const a of known) faults?.powerOn(a);
        const back = await sse.waitFor(
          'recovery',
          (p) => !(p as Progress).active && (p as Progress).restored === known.length,
          LONG,
        );
        expect(back.data).toMatchObject({ failed: 0, rejoining: 0 });
        expect(boundInGroup(h, 1).sort()).toEqual([...known].sort());
        expect((await devices(h)).every((r) => r.state === 'online' && r.groupId === 1)).toBe(true);
      },
    );
  });

  it('host-restarted-with-the-field-restores-known-nodes', { timeout: LONG }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-race-'));
    try {
      await withHost({ nodes: NODES, seed: 4, dataDir }, async (h) => {
        await discoverAll(h, { newGroupName: 'Track' });
        await h.post('/api/save');
      });
      // The same fleet (seed) boots together with the new host process.
      await withHost({ nodes: NODES, seed: 4, dataDir }, async (h) => {
        const sse = await h.sse();
        await sse.waitFor(
          'recovery',
          (p) => !(p as Progress).active && (p as Progress).total === NODES,
          LONG,
        );
        expect(boundInGroup(h, 1)).toHaveLength(NODES);
        expect((await devices(h)).every((r) => r.state === 'online' && r.groupId === 1)).toBe(true);
        expect((await h.get('/api/recovery')).body).toMatchObject({
          ok: true,
          recovery: { active: false, total: NODES, restored: NODES, failed: 0 },
        });
      });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('restore-groups-task-re-binds-a-group-and-validates-its-body', { timeout: LONG }, async () => {
    await withHost({ nodes: 4, seed: 6 }, async (h) => {
      await discoverAll(h, { newGroupName: 'Track' });
      // A node that lost its group without announcing (e.g. its boot announcements were lost).
      const [a] = simAddrs(h) as [string];
      const node = h.host.sim?.fleet.node(a);
      h.host.sim?.fleet.sched.runExternal(() => {
        if (node) {
          node.groupId = 0;
          node.master = null;
        }
      });
      const t = await runTask(h, '/api/devices/restore-groups', { groupId: 1 });
      expect(t.state).toBe('done');
      expect(t.result).toMatchObject({ total: 4, restored: 4, failed: [], skipped: [] });
      expect(t.meta).toMatchObject({ stage: 'RESTORE', index: 4, total: 4, restored: 4 });
      expect(boundInGroup(h, 1)).toHaveLength(4);
      const bad = [
        [{ groupId: 0 }, 400, /groupId: group 0/],
        [{ groupId: 1, selection: [a] }, 400, /exclusive/],
        [{ groupId: 9 }, 404, /group/],
        [{ macs: ['xyz'] }, 400, /^macs\[0\]/],
        [{ groupId: 'x' }, 400, /^groupId/],
      ] as const;
      for (const [body, status, msg] of bad) {
        const r = await h.post('/api/devices/restore-groups', body);
        expect(r.status, JSON.stringify(body)).toBe(status);
        expect(String(r.body.error)).toMatch(msg);
      }
    });
  });
});
