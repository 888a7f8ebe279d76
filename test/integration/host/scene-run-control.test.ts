/** Scene run rules: one at a time, cancel, 404, drafts, stop_on_error, progress events. */
import { describe, expect, it } from 'vitest';
import { withHost } from '../harness.ts';
import { discoverAll } from './helpers.ts';

interface Progress {
  key: string;
  index: number;
  total: number;
  phase: 'start' | 'end';
  ok?: boolean;
  error?: string;
  state?: string;
  action_kind: string;
}

interface RunBody {
  ok: boolean;
  result: {
    ok: boolean;
    error: string | null;
    cancelled: boolean;
    aborted_at_index?: number;
    actions: { index: number; kind: string; ok: boolean; state: string; error?: string }[];
    started_ts: number;
    ended_ts: number;
    total_duration_ms: number;
  };
}

const LONG = [{ kind: 'sync' }, { kind: 'delay', duration_ms: 60_000 }, { kind: 'sync' }];

describe('scene run control', () => {
  it('second-run-is-refused-while-one-runs-and-cancel-ends-it-inside-its-delay', async () => {
    await withHost({ nodes: 2 }, async (h) => {
      await discoverAll(h);
      const sse = await h.sse();
      const first = h.post<RunBody>('/api/scenes/long/run', { label: 'Long', actions: LONG });
      await sse.waitFor('scene_progress', (d) => {
        const p = d as Progress;
        return p.index === 1 && p.phase === 'start';
      });
      const second = await h.post('/api/scenes/other/run', { actions: [{ kind: 'sync' }] });
      expect(second.status).toBe(409);
      expect(second.body).toEqual({ ok: false, busy: true, error: 'scene_running', scene: 'long' });
      const cancel = await h.post('/api/scenes/cancel');
      expect(cancel.body).toEqual({ ok: true, cancelled: true, scene: 'long' });
      const res = await first;
      expect(res.status).toBe(200);
      expect(res.body.ok).toBe(false);
      expect(res.body.result).toMatchObject({ ok: false, cancelled: true, error: 'cancelled' });
      expect(res.body.result.actions.map((a) => a.state)).toEqual(['ok', 'cancelled', 'skipped']);
      expect(res.body.result.total_duration_ms).toBeLessThan(60_000);
      expect(res.body.result.ended_ts).toBeGreaterThanOrEqual(res.body.result.started_ts);
      // Nothing runs any more: cancel is a no-op, and a new run is accepted.
      expect((await h.post('/api/scenes/cancel')).body).toEqual({ ok: true, cancelled: false, scene: null });
      const again = await h.post<RunBody>('/api/scenes/other/run', { actions: [{ kind: 'sync' }] });
      expect(again.body.ok).toBe(true);

      const events = sse.events.filter((e) => e.event === 'scene_progress').map((e) => e.data as Progress);
      const long = events.filter((e) => e.key === 'long');
      expect(long.map((e) => `${e.index}:${e.phase}:${e.state}`)).toEqual([
        '0:start:started',
        '0:end:ok',
        '1:start:started',
        '1:end:cancelled',
        '2:end:skipped',
      ]);
      expect(long.every((e) => e.total === 3)).toBe(true);
    });
  });

  it('a-scene-runs-while-a-task-occupies-the-radio', async () => {
    await withHost({ nodes: 3 }, async (h) => {
      await discoverAll(h);
      const task = await h.post<{ task: { id: number } }>('/api/discover', {});
      expect(task.status).toBe(200);
      const run = await h.post<RunBody>('/api/scenes/go/run', { actions: [{ kind: 'sync' }] });
      expect(run.status).toBe(200);
      expect(run.body.result.ok).toBe(true);
      expect(h.host.services.tasks.current()?.state).toBe('running');
      await h.waitTask(task.body.task.id);
    });
  });

  it('estimates-follow-the-gateway-radio-settings-when-they-change', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      const actions = [
        { kind: 'sync' },
        { kind: 'native_effect', target: { kind: 'broadcast' }, params: { mode: 1 } },
      ];
      type Est = { total: { airtime_ms: number; packets: number }; lora: { sf: number; source: string } };
      const sf7 = (await h.post<Est>('/api/scenes/estimate', { actions })).body;
      expect(sf7.lora).toMatchObject({ sf: 7, source: 'gateway' });
      expect(sf7.total.airtime_ms).toBe(Math.ceil(2 * 41.216));
      const rf = h.host.services.driver.radioSettings().rf;
      const set = await h.host.services.driver.setGatewayRf({ ...rf, sf: 9 }, false);
      expect(set.ok).toBe(true);
      const sf9 = (await h.post<Est>('/api/scenes/estimate', { actions })).body;
      expect(sf9.lora.sf).toBe(9);
      expect(sf9.total.packets).toBe(2);
      expect(sf9.total.airtime_ms).toBe(Math.ceil(2 * 144.384));
    });
  });

  it('unknown-scene-is-404-and-a-draft-run-leaves-the-stored-scene-untouched', async () => {
    await withHost({ nodes: 2 }, async (h) => {
      await discoverAll(h);
      const missing = await h.post('/api/scenes/nope/run');
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ ok: false, error: 'scene_not_found' });
      expect((await h.get('/api/scenes/nope/estimate')).status).toBe(404);

      const stored = { label: 'Stored', actions: [{ kind: 'delay', duration_ms: 5 }], stop_on_error: false };
      const key = (await h.post<{ scene: { key: string } }>('/api/scenes', stored)).body.scene.key;
      const before = (await h.get(`/api/scenes/${key}`)).body;
      const draft = await h.post<RunBody>(`/api/scenes/${key}/run`, { actions: [{ kind: 'sync' }] });
      expect(draft.body.result.actions.map((a) => a.kind)).toEqual(['sync']);
      expect((await h.get(`/api/scenes/${key}`)).body).toEqual(before);
      const run = await h.post<RunBody>(`/api/scenes/${key}/run`);
      expect(run.body.result.actions.map((a) => a.kind)).toEqual(['delay']);
    });
  });

  it('draft-validation-errors-name-the-action-and-field', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      const bad = [{ kind: 'delay', duration_ms: 70_000 }];
      const est = await h.post('/api/scenes/estimate', { actions: bad });
      expect(est.status).toBe(400);
      expect(String(est.body.error)).toMatch(/actions\[0\]/);
      const run = await h.post('/api/scenes/x/run', { actions: bad });
      expect(run.status).toBe(400);
      expect((await h.post('/api/scenes/estimate', {})).body).toEqual({
        ok: false,
        error: 'actions: is required',
      });
      const stop = await h.post('/api/scenes/x/run', { actions: [], stop_on_error: 'maybe' });
      expect(stop.status).toBe(400);
      expect(String(stop.body.error)).toMatch(/^stop_on_error/);
    });
  });

  it('gateway-gone-mid-scene-fails-the-action-and-stop-on-error-skips-the-rest', async () => {
    await withHost({ nodes: 2 }, async (h) => {
      await discoverAll(h);
      h.host.sim?.fleet.faults.dropLink();
      const actions = [{ kind: 'sync' }, { kind: 'delay', duration_ms: 10 }];
      const stop = await h.post<RunBody>('/api/scenes/s/run', { actions });
      expect(stop.status).toBe(200);
      expect(stop.body.ok).toBe(false);
      expect(stop.body.result).toMatchObject({ ok: false, aborted_at_index: 0 });
      expect(stop.body.result.actions[0]?.error).toMatch(/^send_failed: /);
      expect(stop.body.result.actions[1]).toMatchObject({ state: 'skipped', error: 'skipped: aborted' });

      const go = await h.post<RunBody>('/api/scenes/s/run', { actions, stop_on_error: false });
      expect(go.body.result.actions.map((a) => a.state)).toEqual(['error', 'ok']);
      h.host.sim?.fleet.faults.restoreLink();
    });
  });
});
