/**
 * Per-network task progress (issue 26): with two gateways, discovery and the status poll
 * report each network's leg in `meta.networks` (by network id), beside the summed fields;
 * with one gateway their meta has exactly today's fields (no `networks`).
 * Stepped clock (the harness's default).
 */
import { describe, expect, it } from 'vitest';
import type { TaskSnapshot } from '../../../src/tasks/task-manager.ts';
import { withHost, type Harness } from '../harness.ts';
import { devices, runTask } from '../host/helpers.ts';

const LONG = 240_000;

interface DiscLeg {
  phase: string;
  round: number;
  found: number;
  bound: number;
  expected_remaining: number | null;
}
interface PollLeg {
  stage: string;
  done: number;
  total: number;
}

/** Every `task` event of the running task, in order (the meta as the UI sees it). */
function taskEvents(h: Harness): { seen: TaskSnapshot[]; off: () => void } {
  const seen: TaskSnapshot[] = [];
  const off = h.host.services.bus.on('task', (t) => seen.push(t));
  return { seen, off };
}

describe('task progress per network', () => {
  it('discovery-and-status-poll-report-each-networks-leg-in-meta-networks', { timeout: LONG }, async () => {
    await withHost({ nodes: 5, seed: 3, simGateways: 2 }, async (h) => {
      const ev = taskEvents(h);
      const disc = await runTask(h, '/api/discover', { newGroupName: 'Track' });
      expect(disc.state, disc.last_error ?? '').toBe('done');
      const rows = await devices(h);
      const perNet = (id: number): number => rows.filter((r) => r.network_id === id).length;
      expect(perNet(1)).toBeGreaterThan(0);
      expect(perNet(2)).toBeGreaterThan(0);
      const dm = disc.meta as { found: number; bound: number; networks?: Record<string, DiscLeg> };
      // The legs' own counts, and their sum is the task's.
      const [n1, n2] = [dm.networks?.['1'], dm.networks?.['2']];
      expect(n1?.found).toBe(perNet(1));
      expect(n2?.found).toBe(perNet(2));
      expect(dm.found).toBe(perNet(1) + perNet(2));
      // Bound: the nodes of that network in the new group (a weak link may stay pending).
      const boundIn = (id: number): number => rows.filter((r) => r.network_id === id && r.online).length;
      expect(n1?.bound).toBe(boundIn(1));
      expect(n2?.bound).toBe(boundIn(2));
      expect(dm.bound).toBe((n1?.bound ?? 0) + (n2?.bound ?? 0));
      // While it ran, the meta carried the legs too (not only at the end).
      const during = ev.seen.filter((t) => t.id === disc.id && t.state === 'running');
      expect(
        during.some((t) => Object.keys((t.meta as { networks?: object }).networks ?? {}).length === 2),
      ).toBe(true);

      const poll = await runTask(h, '/api/status', {});
      ev.off();
      expect(poll.state, poll.last_error ?? '').toBe('done');
      const pm = poll.meta as { answered: number; total: number; networks?: Record<string, PollLeg> };
      const legs = pm.networks ?? {};
      expect(Object.keys(legs).sort()).toEqual(['1', '2']);
      expect(legs['1']?.total).toBe(perNet(1));
      expect(legs['2']?.total).toBe(perNet(2));
      expect((legs['1']?.done ?? 0) + (legs['2']?.done ?? 0)).toBe(pm.answered);
      expect(pm.total).toBe(perNet(1) + perNet(2));
    });
  });

  it('one-gateway-keeps-todays-task-meta-without-networks', { timeout: LONG }, async () => {
    await withHost({ nodes: 4 }, async (h) => {
      const ev = taskEvents(h);
      const disc = await runTask(h, '/api/discover', { newGroupName: 'Track' });
      const poll = await runTask(h, '/api/status', {});
      ev.off();
      expect(disc.state).toBe('done');
      expect(poll.state).toBe('done');
      expect(ev.seen.length).toBeGreaterThan(0);
      for (const t of ev.seen) expect(t.meta).not.toHaveProperty('networks');
    });
  });
});
