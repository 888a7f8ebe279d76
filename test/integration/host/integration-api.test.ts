/**
 * The timing-application integration API the RotorHazard plugin calls: absent standalone,
 * guarded by the shared secret, heat → start-block slots (scenes and startblock control),
 * scene starts that answer at once, and the armed race start (arm now, one SYNC at the
 * announced start; cancelled by an abort).
 */
import { describe, expect, it } from 'vitest';
import { withHost, type Harness } from '../harness.ts';
import { discoverAll } from './helpers.ts';
import type { SimNode } from '../../../src/sim/node/node.ts';

const SECRET = 'rotorhazard-test-secret-0123456789';
const H = { 'x-lightnet-integration': SECRET };
const STARTBLOCK = [50, 51];

const heat = {
  heat_id: 3,
  heat_name: 'Heat 3',
  seats: [
    { seat: 0, callsign: 'Jäger', band: 'R', channel: 1, frequency: 5658, color: '#FF0000' },
    { seat: 1, callsign: 'Nova', band: 'F', channel: 4, frequency: 5800, color: null },
    { seat: 2, callsign: '' },
  ],
};

async function put(h: Harness, path: string, body: unknown, headers: Record<string, string> = H) {
  const res = await fetch(h.url + path, {
    method: 'PUT',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function until(fn: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const blocks = (h: Harness): SimNode[] =>
  (h.host.sim?.fleet.nodes ?? []).filter((n) => STARTBLOCK.includes(n.devType));
const leds = (h: Harness): SimNode[] =>
  (h.host.sim?.fleet.nodes ?? []).filter((n) => !STARTBLOCK.includes(n.devType));

describe('timing-application integration API', () => {
  it('standalone-host-has-no-integration-endpoints-and-an-empty-view', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      const r = await put(h, '/api/integration/heat', heat);
      expect(r.status).toBe(404);
      const v = await h.get('/api/integration');
      expect(v.body).toMatchObject({ ok: true, mode: 'none', heat: null, startblock_slots: [] });
    });
  });

  it('shared-secret-guards-the-plugin-routes-and-bad-heats-name-the-field', async () => {
    await withHost({ nodes: 1, integrationSecret: SECRET }, async (h) => {
      expect((await put(h, '/api/integration/heat', heat, {})).status).toBe(401);
      const wrong = await put(h, '/api/integration/heat', heat, { 'x-lightnet-integration': 'nope' });
      expect(wrong.status).toBe(401);
      const bad = await put(h, '/api/integration/heat', { heat_id: 1, seats: [{ seat: -1 }] });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({
        ok: false,
        error: expect.stringMatching(/^seats\[0\]\.seat: /) as string,
      });
      const badColor = await put(h, '/api/integration/heat', {
        heat_id: 1,
        seats: [{ seat: 0, color: 'red' }],
      });
      expect(badColor.body).toMatchObject({ error: expect.stringMatching(/^seats\[0\]\.color: /) as string });
      const unknown = await h.post('/api/integration/scenes/nope/run', {}, { headers: H });
      expect(unknown.status).toBe(404);
    });
  });

  it('heat-from-the-timing-application-fills-the-start-block-slots', async () => {
    // Seed 3 with 3 nodes: a startblock among them.
    await withHost({ nodes: 3, seed: 3, integrationSecret: SECRET }, async (h) => {
      await discoverAll(h);
      const r = await put(h, '/api/integration/heat', heat);
      expect(r.status).toBe(200);
      expect(r.body.startblock_slots).toEqual([
        { slot: 1, callsign: 'Jäger', racechannel: 'R1' },
        { slot: 2, callsign: 'Nova', racechannel: 'F4' },
        { slot: 3, callsign: '', racechannel: '--' },
      ]);
      const view = await h.get<{ heat: { heat_id: number; seats: { color: string | null }[] } }>(
        '/api/integration',
      );
      expect(view.body.heat.heat_id).toBe(3);
      expect(view.body.heat.seats[0]?.color).toBe('#ff0000');

      // A scene's startblock action (current heat) puts the pilots on the display.
      const sb = blocks(h);
      expect(sb.length).toBeGreaterThan(0);
      const run = await h.post(
        '/api/integration/scenes/rh-startblocks/run',
        {
          actions: [{ kind: 'startblock', target: { kind: 'broadcast' }, params: {} }],
        },
        { headers: H },
      );
      expect(run.status).toBe(202);
      await until(
        () => sb.every((n) => n.snapshot().startblock?.display[1]?.name === 'JAGER'),
        'names on blocks',
      );
      expect(sb[0]?.snapshot().startblock?.display[1]?.channel).toBe('R1');

      // Startblock control (one-shot device action) uses the heat too.
      await put(h, '/api/integration/heat', {
        heat_id: 4,
        seats: [{ seat: 0, callsign: 'Zoë', band: 'A', channel: 8 }],
      });
      const node = sb[0] as SimNode;
      const a = await h.post('/api/specials/action', { mac: node.addr, function: 'startblock_control' });
      expect(a.status).toBe(200);
      expect(node.snapshot().startblock?.display[1]).toMatchObject({ name: 'ZOE', channel: 'A8' });
    });
  });

  it('armed-race-start-fires-one-sync-at-the-announced-start-and-an-abort-cancels-it', async () => {
    await withHost({ nodes: 3, seed: 2, integrationSecret: SECRET }, async (h) => {
      await discoverAll(h);
      const scene = await h.post<{ scene: { key: string } }>('/api/scenes', {
        label: 'Gates go',
        actions: [
          {
            kind: 'native_effect',
            target: { kind: 'broadcast' },
            params: { mode: 2, brightness: 200, color1: [0, 255, 0] },
            flags_override: { arm_on_sync: true },
          },
        ],
      });
      const key = scene.body.scene.key;
      const nodes = leds(h);

      // Abort before the start: no SYNC, the gates stay armed.
      const first = await h.post(
        '/api/integration/race/arm',
        { scene: key, start_epoch_ms: Date.now() + 60_000 },
        { headers: H },
      );
      expect(first.status).toBe(200);
      await until(() => nodes.every((n) => n.snapshot().armed !== null), 'gates armed');
      const cancel = await h.post<{ cancelled: boolean }>(
        '/api/integration/race/cancel',
        { reason: 'abort' },
        { headers: H },
      );
      expect(cancel.body.cancelled).toBe(true);
      expect((await h.get('/api/integration')).body.pending_start).toBeNull();
      expect(nodes.every((n) => n.snapshot().bri !== 200)).toBe(true);

      // Staged again: the SYNC goes out at the start (less its airtime) and the gates fire.
      const start = Date.now() + 1500;
      const armed = await h.post<{ pending: { fire_at_epoch_ms: number; lead_ms: number } }>(
        '/api/integration/race/arm',
        { scene: key, start_epoch_ms: start },
        { headers: H },
      );
      expect(armed.body.pending.fire_at_epoch_ms).toBe(start - armed.body.pending.lead_ms);
      expect(armed.body.pending.lead_ms).toBeGreaterThan(0);
      await until(
        () => nodes.every((n) => n.snapshot().bri === 200 && n.snapshot().armed === null),
        'gates fired',
      );
      await until(
        () => Boolean(h.host.services.integration.view().last_start as object | null),
        'start recorded',
      );
      const last = h.host.services.integration.view().last_start as { ok: boolean; late_ms: number };
      expect(last.ok).toBe(true);
      // Never early: the timer fires at or after its moment (how late is the benchmark's job).
      expect(last.late_ms).toBeGreaterThanOrEqual(0);
      // A Race Start scene scheduled for the announced start; an abort cancels it too.
      const sch = await h.post(
        '/api/integration/scenes/' + key + '/schedule',
        { at_epoch_ms: Date.now() + 60_000 },
        { headers: H },
      );
      expect(sch.status).toBe(200);
      expect((await h.get('/api/integration')).body.scheduled).toEqual([
        { scene: key, at_epoch_ms: expect.any(Number) as number },
      ]);
      const gone = await h.post(
        '/api/integration/scenes/nope/schedule',
        { at_epoch_ms: Date.now() + 1000 },
        { headers: H },
      );
      expect(gone.status).toBe(404);
      await h.post('/api/integration/race/cancel', {}, { headers: H });
      expect((await h.get('/api/integration')).body.scheduled).toEqual([]);
      const past = await h.post(
        '/api/integration/race/arm',
        { scene: key, start_epoch_ms: Date.now() - 60_000 },
        { headers: H },
      );
      expect(past.status).toBe(400);
    });
  });
});
