/**
 * Race flags through HTTP on the simulator: red holds the whole field red and race looks
 * (laps, phases) are held back until it is cleared; the looks are configurable and
 * validated (400 naming the field); the flag that is up survives a restart; the web UI's
 * stream gets the change.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withHost, type Harness } from '../harness.ts';
import { discoverAll } from './helpers.ts';
import { until } from '../../until.ts';
import type { SimNode } from '../../../src/sim/node/node.ts';

const SECRET = 'rotorhazard-test-secret-0123456789';
const H = { 'x-lightnet-integration': SECRET };
const STARTBLOCK = [50, 51];

async function send(
  h: Harness,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(h.url + path, {
    method,
    headers: {
      ...headers,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      origin: new URL(h.url).origin,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const leds = (h: Harness): SimNode[] =>
  (h.host.sim?.fleet.nodes ?? []).filter((n) => !STARTBLOCK.includes(n.devType));
const look = (n: SimNode): string => {
  const s = n.snapshot();
  return `${s.bri}:${[...(s.segment.colors[0] ?? [])].join(',')}`;
};
const allShow = (h: Harness, want: string) => () => leds(h).every((n) => look(n) === want);

describe('race flags', () => {
  it('red-holds-the-field-red-and-race-looks-wait-until-it-is-cleared', async () => {
    await withHost({ nodes: 3, seed: 2, integrationSecret: SECRET }, async (h) => {
      await discoverAll(h);
      const [a] = leds(h) as [SimNode];
      await send(h, 'PUT', '/api/race-lights', {
        seats: [{ seat: 0, gate: { kind: 'device', value: a.addr } }],
        flash: { effect: 0, length_ms: 300, brightness: 255 },
      });
      const sse = await h.sse('console=1');

      const red = await send(h, 'POST', '/api/flags/red');
      expect(red.status, JSON.stringify(red.body)).toBe(200);
      expect(red.body).toMatchObject({
        ok: true,
        action: 'red',
        flag: 'red',
        sent: 2,
        frames: 2,
        errors: [],
      });
      await until('every node red', allShow(h, '255:255,0,0'), 20_000);
      await sse.waitFor('flag', (d) => (d as { flag: string }).flag === 'red');
      const state = await send(h, 'GET', '/api/flags');
      expect(state.body).toMatchObject({ ok: true, flag: 'red', source: 'ui' });
      expect(typeof state.body.since_epoch_ms).toBe('number');

      // The timer's lap and phase looks are held back while red is up.
      const lap = await send(
        h,
        'POST',
        '/api/integration/laps',
        { seat: 0, lap_number: 1, color: '#0000ff' },
        H,
      );
      expect(lap.body).toMatchObject({ ok: true, result: 'red_flag' });
      const phase = await send(h, 'POST', '/api/integration/race/phase', { phase: 'start' }, H);
      expect(phase.body).toMatchObject({ ok: true, ran: [] });
      const view = await send(h, 'GET', '/api/integration');
      const stats = (
        view.body.race_lights as { stats: { ignored: { red_flag: number }; phases_held: number } }
      ).stats;
      expect(stats.ignored.red_flag).toBe(1);
      expect(stats.phases_held).toBe(1);
      expect(h.host.services.sceneDispatch.running()).toBeNull();
      expect(look(a)).toBe('255:255,0,0');
      // The flag holds the whole field at safety priority (90) on the command path: the
      // operator's own control (60) is refused naming it, and the owners view shows it.
      const control = await send(h, 'POST', '/api/devices/control', {
        groupId: 0,
        flags: 0,
        presetId: 1,
        brightness: 10,
      });
      expect(control.status).toBe(409);
      expect(String(control.body.error)).toMatch(
        /^Unconfigured \(group 0\) is held by the red flag \(priority 90\) for the last \d+ s, as part of all — clear the flag first$/,
      );
      const owners = await send(h, 'GET', '/api/control/owners');
      expect(owners.body.owners).toEqual([
        expect.objectContaining({ source: 'flag', priority: 90, target: { kind: 'all' } }),
      ]);
      // Blackout darkens the field; the red flag stays up and keeps its hold.
      expect((await send(h, 'POST', '/api/blackout')).status).toBe(200);
      await until('every node dark', () => leds(h).every((n) => n.snapshot().bri === 0), 20_000);
      expect((await send(h, 'GET', '/api/flags')).body).toMatchObject({ flag: 'red' });
      expect((await send(h, 'GET', '/api/control/owners')).body.owners).toHaveLength(1);
      expect((await send(h, 'POST', '/api/flags/red')).status).toBe(200);
      await until('every node red again', allShow(h, '255:255,0,0'), 20_000);

      // Clear: the field goes dark (the default clear look) and laps flash again.
      const clear = await send(h, 'POST', '/api/flags/clear', {});
      expect(clear.status).toBe(200);
      expect(clear.body).toMatchObject({ ok: true, action: 'clear', flag: null });
      await until('every node dark', () => leds(h).every((n) => n.snapshot().bri === 0), 20_000);
      await sse.waitFor('flag', (d) => (d as { flag: string | null }).flag === null);
      expect((await send(h, 'GET', '/api/control/owners')).body.owners).toEqual([]);
      const lap2 = await send(
        h,
        'POST',
        '/api/integration/laps',
        { seat: 0, lap_number: 2, color: '#0000ff' },
        H,
      );
      expect(lap2.body).toMatchObject({ ok: true, result: 'flash' });
      await until('the lap flash on gate A', () => look(a) === '255:0,0,255', 20_000);
      sse.close();
    });
  });

  it('red-stops-the-running-scene-and-goes-out-first', async () => {
    await withHost({ nodes: 3 }, async (h) => {
      await discoverAll(h);
      const run = h.post<{ result: { cancelled: boolean } }>('/api/scenes/show/run', {
        label: 'Show',
        actions: [
          { kind: 'native_effect', target: { kind: 'broadcast' }, params: { mode: 0, brightness: 100 } },
          { kind: 'delay', duration_ms: 60_000 },
          { kind: 'native_effect', target: { kind: 'broadcast' }, params: { mode: 0, brightness: 50 } },
        ],
      });
      await until('the scene running', () => h.host.services.sceneDispatch.running() === 'show');
      const red = await send(h, 'POST', '/api/flags/red', undefined, {
        'x-lightnet-source': 'show',
      });
      expect(red.body).toMatchObject({ ok: true, flag: 'red', scene_cancelled: 'show' });
      expect((await run).body.result.cancelled).toBe(true);
      await until('every node red', allShow(h, '255:255,0,0'), 20_000);
      expect((await send(h, 'GET', '/api/flags')).body).toMatchObject({
        flag: 'red',
        source: 'show',
      });
    });
  });

  it('bad-input-is-a-400-naming-the-field-and-changes-nothing', async () => {
    await withHost({ nodes: 0 }, async (h) => {
      const bad = async (method: string, path: string, body: unknown, re: RegExp, headers = {}) => {
        const r = await send(h, method, path, body, headers);
        expect(r.status, JSON.stringify(r.body)).toBe(400);
        expect(r.body.ok).toBe(false);
        expect(String(r.body.error)).toMatch(re);
      };
      await bad('POST', '/api/flags/purple', {}, /^flag: must be one of green, yellow, red, clear/);
      await bad('POST', '/api/flags/red', { now: true }, /^now: unknown field/);
      await bad('POST', '/api/flags/red', undefined, /^x-lightnet-source: /, {
        'x-lightnet-source': 'Bad Name!',
      });
      await bad(
        'PUT',
        '/api/flags/looks',
        { red: { color: 'red', brightness: 255 } },
        /^red\.color: must be a colour/,
      );
      await bad(
        'PUT',
        '/api/flags/looks',
        { red: { color: '#ff0000', brightness: 300 } },
        /^red\.brightness: /,
      );
      await bad(
        'PUT',
        '/api/flags/looks',
        { red: { color: '#ff0000', brightness: 9, effect: 250 } },
        /^red\.effect: unknown LED effect/,
      );
      await bad('PUT', '/api/flags/looks', { blue: {} }, /^blue: unknown field/);
      const now = await send(h, 'GET', '/api/flags');
      expect(now.body).toMatchObject({
        flag: null,
        looks: { red: { color: '#ff0000', brightness: 255, effect: 0 } },
      });
    });
  });

  it('looks-are-stored-and-the-flag-that-is-up-survives-a-restart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-flags-'));
    try {
      await withHost({ nodes: 2, dataDir }, async (h) => {
        await discoverAll(h);
        const put = await send(h, 'PUT', '/api/flags/looks', {
          yellow: { color: '#FFFF00', brightness: 120, effect: 0 },
        });
        expect(put.status, JSON.stringify(put.body)).toBe(200);
        const onDisk = JSON.parse(await readFile(join(dataDir, 'flags.json'), 'utf8')) as {
          looks: { yellow: unknown };
        };
        expect(onDisk.looks.yellow).toEqual({ color: '#ffff00', brightness: 120, effect: 0 });
        expect((await send(h, 'POST', '/api/flags/yellow')).status).toBe(200);
        await until('every node yellow', allShow(h, '120:255,255,0'), 20_000);
        expect((await send(h, 'POST', '/api/flags/red')).status).toBe(200);
      });
      await withHost({ nodes: 2, dataDir }, async (h) => {
        const state = await send(h, 'GET', '/api/flags');
        expect(state.body).toMatchObject({
          flag: 'red',
          looks: { yellow: { color: '#ffff00', brightness: 120 } },
        });
        expect(h.host.services.flags.suppressing()).toBe('red_flag');
      });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
