/**
 * A restore must not make a healthy fleet look dead: devices this host has heard keep
 * their live state through the restore, and restored devices it has not heard are polled
 * at once (the response names the poll task), so they come online without a manual poll.
 */
import { describe, expect, it } from 'vitest';
import { SteppedClock } from '../../../src/clock.ts';
import { startSimOnMemory } from '../../../src/sim/sim-host.ts';
import type { TaskSnapshot } from '../../../src/tasks/task-manager.ts';
import { withHost } from '../harness.ts';
import { devices, discoverAll } from './helpers.ts';

describe('restore and live state', () => {
  it('devices-heard-here-stay-online-through-a-restore', async () => {
    await withHost({ nodes: 4, seed: 5 }, async (h) => {
      const before = await discoverAll(h);
      const online = before.filter((d) => d.online).map((d) => d.addr);
      expect(online.length).toBeGreaterThan(0);
      const bundle = (await h.get<Record<string, unknown>>('/api/backup')).body;
      const r = await h.post<{ ok: boolean; status_task: TaskSnapshot | null }>('/api/restore', bundle);
      expect(r.status).toBe(200);
      const after = await devices(h);
      expect(after.filter((d) => d.online).map((d) => d.addr)).toEqual(online);
      const seen = new Map(before.map((d) => [d.addr, d.last_seen_ts]));
      for (const d of after) expect(d.last_seen_ts).toBe(seen.get(d.addr));
      // Nothing needed polling: every restored device was heard here.
      expect(r.body.status_task).toBeNull();
    });
  });

  it('restored-devices-not-heard-here-are-polled-at-once', async () => {
    // One field that stays powered while the operator moves to the spare laptop.
    const clock = new SteppedClock(1).start();
    const sim = startSimOnMemory({ nodes: 4, seed: 5, clock, autoStart: true, gatewayUp: true });
    const field = { sim, simClock: clock };
    try {
      let bundle: Record<string, unknown> = {};
      await withHost({ nodes: 4, seed: 5, overrides: field }, async (h) => {
        await discoverAll(h);
        bundle = (await h.get<Record<string, unknown>>('/api/backup')).body;
      });
      await clock.sleep(8000); // the field is quiet: nobody announces itself any more
      await withHost({ nodes: 4, seed: 5, overrides: field }, async (h) => {
        expect(await devices(h)).toHaveLength(0);
        const r = await h.post<{ ok: boolean; devices: number; status_task: TaskSnapshot | null }>(
          '/api/restore',
          bundle,
        );
        expect(r.status).toBe(200);
        expect(r.body.status_task?.name).toBe('status');
        const t = await h.waitTask(r.body.status_task?.id ?? -1);
        expect(t.state).toBe('done');
        const after = await devices(h);
        expect(after).toHaveLength(r.body.devices);
        expect(after.filter((d) => d.online).length).toBe(after.length);
      });
    } finally {
      sim.stop();
      clock.stop();
    }
  });
});
