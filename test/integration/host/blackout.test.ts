/**
 * POST /api/blackout: the race-day all-off. It stops the running scene and task and the
 * whole simulated fleet goes dark — nodes left in offset mode included (they drop an
 * off frame without the OFFSET_MODE flag, so the host sends both).
 */
import { describe, expect, it } from 'vitest';
import { withHost, type Harness } from '../harness.ts';
import { devices, discoverAll } from './helpers.ts';

interface Report {
  ok: boolean;
  sent: number;
  frames: number;
  scene_cancelled: string | null;
  task_cancelled: string | null;
  errors: string[];
}

interface RunBody {
  result: { cancelled: boolean; error: string | null; actions: { state: string }[] };
}

const nodes = (h: Harness) => h.host.sim?.fleet.nodes ?? [];
const lit = (h: Harness) => nodes(h).filter((n) => n.snapshot().bri > 0).length;

/** Records the host's frames as the simulated gateway receives them. */
function gatewayFrames(h: Harness): { receiver: string; body: Uint8Array }[] {
  const seen: { receiver: string; body: Uint8Array }[] = [];
  h.host.sim?.fleet.gateway.events.on('m2n', (f) => seen.push({ receiver: f.receiver, body: f.body }));
  return seen;
}

describe('blackout', () => {
  it('blackout-stops-a-running-scene-and-every-node-goes-dark-even-in-offset-mode', async () => {
    await withHost({ nodes: 4 }, async (h) => {
      await discoverAll(h);
      const sse = await h.sse();
      const run = h.post<RunBody>('/api/scenes/wave/run', {
        label: 'Wave',
        actions: [
          {
            kind: 'offset_group',
            target: { kind: 'groups', value: [0] },
            offset: { mode: 'linear', base_ms: 0, step_ms: 100 },
            actions: [
              {
                kind: 'native_effect',
                target: { kind: 'groups', value: [0] },
                params: { mode: 2, brightness: 180, color1: [0, 255, 0] },
              },
            ],
          },
          { kind: 'delay', duration_ms: 60_000 },
          { kind: 'native_effect', target: { kind: 'broadcast' }, params: { mode: 3, brightness: 255 } },
        ],
      });
      await sse.waitFor('scene_progress', (d) => {
        const p = d as { key: string; index: number; phase: string };
        return p.key === 'wave' && p.index === 1 && p.phase === 'start';
      });
      expect(lit(h)).toBe(4);
      const frames = gatewayFrames(h);
      // Every master snapshot from the click on: the link watch may query the quiet gateway
      // later (a STATE_REPORT), so the last event alone says nothing about the blackout.
      const masterEvents: string[] = [];
      const off = h.host.services.bus.on('master', (m) => masterEvents.push(m.last_event ?? ''));

      const res = await h.post<Report>('/api/blackout');
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ ok: true, sent: 2, frames: 2, scene_cancelled: 'wave', errors: [] });
      // The first frames the gateway received after the click are the two off broadcasts.
      expect(frames.slice(0, 2).map((f) => f.receiver)).toEqual(['FFFFFF', 'FFFFFF']);

      const result = (await run).body.result;
      expect(result.cancelled).toBe(true);
      expect(result.actions.map((a) => a.state)).toEqual(['ok', 'cancelled', 'skipped']);
      await expect.poll(() => lit(h)).toBe(0);
      expect((await devices(h)).every((d) => d.brightness === 0)).toBe(true);
      off();
      expect(masterEvents).toContain('BLACKOUT_SENT');
    });
  });

  it('blackout-cancels-a-running-status-poll-and-goes-out-ahead-of-it', async () => {
    await withHost({ nodes: 6 }, async (h) => {
      await discoverAll(h);
      const on = await h.post('/api/devices/control', {
        groupId: 255,
        flags: 0,
        presetId: 2,
        brightness: 150,
      });
      expect(on.status).toBe(200);
      await expect.poll(() => lit(h)).toBe(6);
      const poll = await h.post<{ task: { id: number } }>('/api/status', {});
      expect(poll.status).toBe(200);
      const res = await h.post<Report>('/api/blackout');
      expect(res.body).toMatchObject({ ok: true, sent: 2, task_cancelled: 'status', scene_cancelled: null });
      const t = await h.waitTask(poll.body.task.id);
      expect(t.last_error).toBe('cancelled');
      await expect.poll(() => lit(h)).toBe(0);
    });
  });

  it('blackout-with-nothing-running-still-turns-the-fleet-off', async () => {
    await withHost({ nodes: 2 }, async (h) => {
      await discoverAll(h);
      const res = await h.post<Report>('/api/blackout');
      expect(res.body).toEqual({
        ok: true,
        sent: 2,
        frames: 2,
        scene_cancelled: null,
        task_cancelled: null,
        errors: [],
      });
      await expect.poll(() => lit(h)).toBe(0);
    });
  });
});
