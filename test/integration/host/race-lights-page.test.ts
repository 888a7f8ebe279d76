/**
 * What the Race lights page needs from the API, through HTTP on the simulator: RotorHazard's
 * source state and bad-input counters beside FPVTrackside's in `GET /api/timers`, a new
 * FPVTrackside token, the Test flash (validated, through the lap-flash path), live pass
 * counters, the `race_lights` stream event, and Blackout winning over a flash.
 */
import { describe, expect, it } from 'vitest';
import { withHost, type Harness } from '../harness.ts';
import { discoverAll } from './helpers.ts';
import type { SimNode } from '../../../src/sim/node/node.ts';
import { until as untilThen } from '../../until.ts';

/** Until `probe` holds (state, polled). */
const until = (probe: () => unknown, what: string): Promise<unknown> =>
  untilThen(what, async () => ((await probe()) ? true : null));

const SECRET = 'rotorhazard-test-secret-0123456789';
const H = { 'x-lightnet-integration': SECRET };
const STARTBLOCK = [50, 51];

async function send(
  h: Harness,
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(h.url + path, {
    method,
    headers: { ...headers, 'content-type': 'application/json', origin: new URL(h.url).origin },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

const leds = (h: Harness): SimNode[] =>
  (h.host.sim?.fleet.nodes ?? []).filter((n) => !STARTBLOCK.includes(n.devType));
const color1 = (n: SimNode): string => [...(n.snapshot().segment.colors[0] ?? [])].join();

interface Source {
  connected: boolean;
  last_event: { type: string; detail: string | null } | null;
  events_per_minute: number;
  last_error: { error: string } | null;
  counters: Record<string, number>;
}

describe('race lights page API', () => {
  it('rotorhazard-source-state-counts-accepted-and-bad-input-beside-fpvtrackside', async () => {
    await withHost({ nodes: 1, integrationSecret: SECRET }, async (h) => {
      const idle = await h.get<{ rotorhazard: Source & { mode: string } }>('/api/timers');
      expect(idle.body.rotorhazard).toMatchObject({
        mode: 'rotorhazard',
        connected: false,
        last_event: null,
      });
      expect(idle.body.rotorhazard.counters).toEqual({
        accepted: 0,
        malformed: 0,
        unknown: 0,
        out_of_order: 0,
        duplicate: 0,
        unauthorized: 0,
      });
      for (const lap of [1, 2, 2, 1]) {
        const r = await send(h, 'POST', '/api/integration/laps', { seat: 3, lap_number: lap }, H);
        expect(r.status).toBe(202);
      }
      expect((await send(h, 'POST', '/api/integration/laps', { seat: 'x', lap_number: 1 }, H)).status).toBe(
        400,
      );
      expect((await send(h, 'POST', '/api/integration/race/phase', { phase: 'party' }, H)).status).toBe(400);
      expect((await send(h, 'POST', '/api/integration/laps', { seat: 0, lap_number: 1 })).status).toBe(401);
      const r = await h.get<{ rotorhazard: Source }>('/api/timers');
      const rh = r.body.rotorhazard;
      expect(rh.connected).toBe(true);
      expect(rh.counters).toEqual({
        accepted: 4,
        malformed: 1,
        unknown: 1,
        out_of_order: 1,
        duplicate: 1,
        unauthorized: 1,
      });
      expect(rh.last_event).toMatchObject({ type: 'lap', detail: 'seat 4 lap 1' });
      expect(rh.events_per_minute).toBe(6); // the unauthorized request is nobody's event
      expect(rh.last_error?.error).toMatch(/wrong or missing secret/);
      // The live pass counters per seat.
      const rl = await h.get<{ passes: { seats: { seat: number; passes: number; last_lap: number }[] } }>(
        '/api/race-lights',
      );
      expect(rl.body.passes.seats).toEqual([expect.objectContaining({ seat: 3, passes: 4, last_lap: 1 })]);
    });
  });

  it('a-new-fpvtrackside-token-is-on-disk-and-the-old-url-is-refused', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      const first = await h.get<{ fpvtrackside: { url: string; token: string } }>('/api/timers');
      const old = first.body.fpvtrackside;
      const made = await send(h, 'POST', '/api/timers/token', {});
      expect(made.status).toBe(200);
      const fresh = made.body.fpvtrackside as { url: string; token: string; path: string };
      expect(fresh.token).not.toBe(old.token);
      expect(fresh.path).toBe('/lightnet/api/timers/fpvtrackside');
      expect(fresh.url).toBe(old.url.replace(encodeURIComponent(old.token), encodeURIComponent(fresh.token)));
      const again = await h.get<{ fpvtrackside: { token: string } }>('/api/timers');
      expect(again.body.fpvtrackside.token).toBe(fresh.token);
      const hello = JSON.stringify({ type: 'Hello', seq: 1 });
      expect((await fetch(old.url, { method: 'PUT', body: hello })).status).toBe(401);
      expect((await fetch(fresh.url, { method: 'PUT', body: hello })).status).toBe(200);
    });
  });

  it('test-flashes-the-gate-through-the-lap-path-validated-naming-the-field', async () => {
    await withHost({ nodes: 2, seed: 3, integrationSecret: SECRET }, async (h) => {
      await discoverAll(h);
      const [a] = leds(h) as [SimNode];
      const cases: [unknown, RegExp][] = [
        [{}, /^seat: give exactly one of/],
        [{ seat: 0, finish: true }, /^finish: give exactly one of/],
        [{ seat: 9 }, /^seat: /],
        [{ seat: 0 }, /^seat: seat 0 has no gate/],
        [{ timing_system: 2 }, /^timing_system: timing system 2 has no gate/],
        [{ gate: { kind: 'group', value: 99 } }, /^gate: no group 99$/],
        [{ seat: 0, color: 'red' }, /^color: /],
      ];
      for (const [body, re] of cases) {
        const r = await send(h, 'POST', '/api/race-lights/test', body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.body.error).toMatch(re);
      }
      const stream = await h.sse('console=1');
      await send(h, 'PUT', '/api/race-lights', {
        enabled: false, // a test works with the automatic reactions off
        seats: [{ seat: 0, gate: { kind: 'device', value: a.addr }, color: '#ff00ff' }],
        flash: { effect: 0, length_ms: 400, brightness: 255 },
      });
      await stream.waitFor('race_lights', (d) => (d as { what: string[] }).what.includes('settings'));
      const r = await send(h, 'POST', '/api/race-lights/test', { seat: 0 });
      expect(r.status, JSON.stringify(r.body)).toBe(202);
      expect(r.body).toMatchObject({ ok: true, result: 'flash', gate: `device ${a.addr}` });
      await until(() => color1(a) === '255,0,255', 'the seat colour on the gate');
      await stream.waitFor('race_lights', (d) => (d as { what: string[] }).what.includes('lights'));
      const rl = await h.get<{ recent_flashes: Record<string, unknown>[]; stats: { laps: number } }>(
        '/api/race-lights',
      );
      await until(async () => {
        const v = await h.get<{ recent_flashes: { source: string; ok: boolean }[] }>('/api/race-lights');
        return v.body.recent_flashes.some((f) => f.source === 'test' && f.ok);
      }, 'the test flash recorded as sent');
      expect(rl.body.stats.laps).toBe(0); // a test is no lap
      // The gate goes back to dark (it had no look).
      await until(() => a.snapshot().bri === 0, 'the gate back to its look');
    });
  });

  it('blackout-wins-over-a-flash-the-gate-does-not-come-back-to-its-old-look', async () => {
    await withHost({ nodes: 2, seed: 3, integrationSecret: SECRET }, async (h) => {
      await discoverAll(h);
      const [a] = leds(h) as [SimNode];
      const LENGTH = 1500;
      await send(h, 'PUT', '/api/race-lights', {
        seats: [{ seat: 0, gate: { kind: 'device', value: a.addr }, color: '#00ff00' }],
        flash: { effect: 0, length_ms: LENGTH, brightness: 255 },
        phases: { stop: { enabled: true, scene: null } },
      });
      // A look to return to: the stop look (red) on the gate.
      await send(h, 'POST', '/api/integration/race/phase', { phase: 'stop' }, H);
      await until(() => color1(a) === '255,0,0' && a.snapshot().bri > 0, 'the stop look');
      await until(() => h.host.services.sceneDispatch.running() === null, 'the look sent whole');
      expect((await send(h, 'POST', '/api/race-lights/test', { seat: 0 })).status).toBe(202);
      await until(() => color1(a) === '0,255,0', 'the flash on the gate');
      const bo = await h.post('/api/blackout');
      expect(bo.status).toBe(200);
      const blackAt = Date.now();
      await until(() => a.snapshot().bri === 0, 'dark after the blackout');
      // The flash's end used to bring back the look from before the blackout (red, lit):
      // the gate must stay dark past the flash length.
      await until(() => {
        expect(a.snapshot().bri, 'the gate lit again after Blackout').toBe(0);
        return Date.now() - blackAt > LENGTH + 700;
      }, 'the flash length to pass');
    });
  });
});
