/**
 * Race lights through HTTP on the simulator: settings validated (400 naming the field) and
 * stored durably; a lap from the plugin flashes the seat's gate in the pilot's colour and
 * the gate then shows its look again; phases play their built-in looks; simultaneous passes
 * on one gate are merged into one frame.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withHost, type Harness } from '../harness.ts';
import { discoverAll } from './helpers.ts';
import type { SimNode } from '../../../src/sim/node/node.ts';

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
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function until(fn: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Until the scene runner is idle (no look still on its way). */
const settle = (h: Harness): Promise<true> =>
  eventually(async () => (h.host.services.sceneDispatch.running() === null ? true : null), 'the runner idle');

async function eventually<T>(fn: () => Promise<T | null>, what: string, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== null) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const leds = (h: Harness): SimNode[] =>
  (h.host.sim?.fleet.nodes ?? []).filter((n) => !STARTBLOCK.includes(n.devType));
const color1 = (n: SimNode): number[] => [...(n.snapshot().segment.colors[0] ?? [])];

describe('race lights', () => {
  it('settings-are-validated-naming-the-field-and-stored-on-disk', async () => {
    await withHost({ nodes: 1, integrationSecret: SECRET }, async (h) => {
      const def = await h.get<{ settings: { enabled: boolean; flash: { effect: number } } }>(
        '/api/race-lights',
      );
      expect(def.body.settings).toMatchObject({ enabled: true, flash: { effect: 84 } });
      const cases: [unknown, RegExp][] = [
        [{ seats: [{ seat: 0, gate: { kind: 'ring' } }] }, /^seats\[0\]\.gate\.kind: /],
        [{ seats: [{ seat: 70 }] }, /^seats\[0\]\.seat: /],
        [{ seats: [{ seat: 1 }, { seat: 1 }] }, /^seats\[1\]\.seat: seat listed twice/],
        [{ flash: { effect: 11 } }, /^flash\.effect: unknown effect id/],
        [{ flash: { length_ms: 5 } }, /^flash\.length_ms: /],
        [{ seats: [{ seat: 0, color: 'red' }] }, /^seats\[0\]\.color: /],
        [{ phases: { start: { enabled: 'yes' } } }, /^phases\.start\.enabled: /],
        [{ colour: 1 }, /^colour: unknown field/],
        [{ start_lead_ms: -1 }, /^start_lead_ms: /],
      ];
      for (const [body, re] of cases) {
        const r = await send(h, 'PUT', '/api/race-lights', body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.body.error).toMatch(re);
      }
      // The gates must exist: a group and the one device, both known to the host.
      const [node] = await discoverAll(h);
      const grp = await h.post<{ id: number }>('/api/groups/create', { name: 'Timing line' });
      expect(grp.status, JSON.stringify(grp.body)).toBe(200);
      const good = {
        all_seats_gate: { kind: 'group', value: grp.body.id },
        seats: [{ seat: 1, gate: { kind: 'device', value: node?.addr.toLowerCase() }, color: '#00FF00' }],
        flash: { effect: 0, length_ms: 500, brightness: 200, holeshot: false },
        phases: { stop: { enabled: false, scene: null } },
      };
      const r = await send(h, 'PUT', '/api/race-lights', good);
      expect(r.status).toBe(200);
      const onDisk = JSON.parse(await readFile(join(h.dataDir, 'race-lights.json'), 'utf8')) as Record<
        string,
        unknown
      >;
      expect(onDisk).toMatchObject({
        seats: [{ seat: 1, gate: { kind: 'device', value: node?.addr.toUpperCase() }, color: '#00ff00' }],
        phases: { stop: { enabled: false }, start: { enabled: true } },
      });
      // The plugin routes validate too.
      const lap = await send(h, 'POST', '/api/integration/laps', { seat: 0, lap_number: -1 }, H);
      expect(lap.status).toBe(400);
      expect(lap.body.error).toMatch(/^lap_number: /);
      const ph = await send(h, 'POST', '/api/integration/race/phase', { phase: 'party' }, H);
      expect(ph.body.error).toMatch(/^phase: /);
      expect((await send(h, 'POST', '/api/integration/laps', { seat: 0, lap_number: 1 })).status).toBe(401);
    });
  });

  it('settings-naming-a-group-device-scene-or-seat-that-does-not-exist-are-refused-and-nothing-changes', async () => {
    await withHost({ nodes: 2, seed: 2, integrationSecret: SECRET }, async (h) => {
      const rows = await discoverAll(h);
      const addr = rows[0]?.addr as string;
      const grp = await h.post<{ id: number }>('/api/groups/create', { name: 'Gates' });
      const gid = grp.body.id;
      const saved = {
        all_seats_gate: { kind: 'group', value: gid },
        seats: [{ seat: 7, gate: { kind: 'device', value: addr }, color: null }],
        finish_gate: { kind: 'broadcast' },
      };
      expect((await send(h, 'PUT', '/api/race-lights', saved)).status).toBe(200);
      const file = join(h.dataDir, 'race-lights.json');
      const before = await readFile(file, 'utf8');
      const absent = addr === 'ABCDEF' ? 'ABCDEE' : 'ABCDEF';
      const cases: [unknown, RegExp][] = [
        [{ ...saved, all_seats_gate: { kind: 'group', value: 99 } }, /^all_seats_gate: no group 99$/],
        [
          { ...saved, seats: [{ seat: 0, gate: { kind: 'group', value: 99 } }] },
          /^seats\[0\]\.gate: no group 99$/,
        ],
        [
          { ...saved, seats: [{ seat: 1 }, { seat: 2, gate: { kind: 'device', value: absent } }] },
          new RegExp(`^seats\\[1\\]\\.gate: no device ${absent}$`),
        ],
        [{ ...saved, seats: [{ seat: 20, color: '#ff0000' }] }, /^seats\[0\]\.seat: seat 20 does not exist/],
        [
          { ...saved, seats: [{ seat: 8 }] },
          /^seats\[0\]\.seat: seat 8 does not exist: timer seats are 0–7$/,
        ],
        [
          { ...saved, finish_gate: { kind: 'group', value: gid + 1 } },
          new RegExp(`^finish_gate: no group ${gid + 1}$`),
        ],
        [
          { ...saved, phases: { stop: { scene: 'no-such-scene' } } },
          /^phases\.stop\.scene: no scene no-such-scene$/,
        ],
      ];
      for (const [body, re] of cases) {
        const r = await send(h, 'PUT', '/api/race-lights', body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.body).toMatchObject({ ok: false });
        expect(r.body.error).toMatch(re);
      }
      // Nothing was written or taken into effect.
      expect(await readFile(file, 'utf8')).toBe(before);
      const now = await h.get<{ settings: { all_seats_gate: unknown; seats: { seat: number }[] } }>(
        '/api/race-lights',
      );
      expect(now.body.settings.all_seats_gate).toEqual({ kind: 'group', value: gid });
      expect(now.body.settings.seats.map((x) => x.seat)).toEqual([7]);
    });
  });

  it('a-lap-flashes-the-seat-gate-in-the-pilot-colour-and-the-gate-returns-to-its-look', async () => {
    await withHost({ nodes: 3, seed: 2, integrationSecret: SECRET }, async (h) => {
      await discoverAll(h);
      const [a, b] = leds(h) as [SimNode, SimNode];
      expect(b).toBeDefined();
      await send(h, 'PUT', '/api/race-lights', {
        seats: [
          { seat: 0, gate: { kind: 'device', value: a.addr } },
          { seat: 1, gate: { kind: 'device', value: b.addr }, color: '#00ff00' },
        ],
        flash: { effect: 0, length_ms: 400, brightness: 255 },
      });
      await send(
        h,
        'PUT',
        '/api/integration/heat',
        {
          heat_id: 1,
          seats: [
            { seat: 0, callsign: 'Ace', color: '#ff0000' },
            { seat: 1, callsign: 'Bee', color: '#0000ff' },
          ],
        },
        H,
      );
      // Heat change: each seat's gate in its (dim) seat colour — the look a flash returns to.
      const hc = await send(h, 'POST', '/api/integration/race/phase', { phase: 'heat_change' }, H);
      expect(hc.body).toMatchObject({ ok: true, ran: ['heat_change'] });
      await until(() => a.snapshot().bri === 80 && color1(a).join() === '255,0,0', 'heat look on gate A');
      await until(() => b.snapshot().bri === 80 && color1(b).join() === '0,255,0', 'heat look on gate B');

      const lap = await send(
        h,
        'POST',
        '/api/integration/laps',
        { seat: 1, lap_number: 1, color: '#0000ff' },
        H,
      );
      expect(lap.status).toBe(202);
      expect(lap.body).toMatchObject({ ok: true, result: 'flash' });
      // The operator's override (#00ff00) beats RotorHazard's seat colour.
      await until(() => b.snapshot().bri === 255 && color1(b).join() === '0,255,0', 'flash on gate B');
      expect(a.snapshot().bri).toBe(80);
      await until(() => b.snapshot().bri === 80, 'gate B back to its look');
      expect(color1(b).join()).toBe('0,255,0');

      await send(h, 'POST', '/api/integration/laps', { seat: 0, lap_number: 2 }, H);
      await until(() => a.snapshot().bri === 255, 'flash on gate A');
      expect(color1(a).join()).toBe('255,0,0');
      await until(() => a.snapshot().bri === 80, 'gate A back');

      // A late lap (after the winner) and an unmapped seat flash nothing.
      expect(
        (await send(h, 'POST', '/api/integration/laps', { seat: 0, lap_number: 3, late: true }, H)).body,
      ).toMatchObject({
        result: 'late',
      });
      expect(
        (await send(h, 'POST', '/api/integration/laps', { seat: 5, lap_number: 1 }, H)).body,
      ).toMatchObject({
        result: 'unmapped',
      });
      const v = await h.get<{ race_lights: { stats: Record<string, unknown> } }>('/api/integration');
      expect(v.body.race_lights.stats).toMatchObject({
        laps: 4,
        flashes_sent: 2,
        ignored: { late: 1, unmapped: 1 },
      });
    });
  });

  it('a-lap-flash-overtakes-status-poll-frames-waiting-for-the-radio-instead-of-being-dropped', async () => {
    await withHost({ nodes: 2, seed: 2, integrationSecret: SECRET }, async (h) => {
      await discoverAll(h);
      const [a] = leds(h) as [SimNode];
      await send(h, 'PUT', '/api/race-lights', {
        seats: [{ seat: 0, gate: { kind: 'device', value: a.addr } }],
        flash: { effect: 0, length_ms: 300, brightness: 255 },
      });
      // Bulk frames (what a fleet status poll queues) waiting for the radio: held here so
      // they are still queued when the lap arrives, as they are between a poll's frames.
      const driver = h.host.services.driver;
      const release = driver.hold?.('bulk') ?? (() => {});
      const polls = [0, 1, 2].map(() =>
        driver.send(a.addr, { op: 'STATUS', groupId: 255 }, { priority: 'bulk' }),
      );
      try {
        expect(driver.stats().queueDepth).toBe(3);
        const lap = await send(
          h,
          'POST',
          '/api/integration/laps',
          { seat: 0, lap_number: 1, color: '#ff00ff' },
          H,
        );
        // The flash goes at interactive priority, ahead of every queued bulk frame.
        expect(lap.body).toMatchObject({ ok: true, result: 'flash' });
        await until(
          () => a.snapshot().bri === 255 && color1(a).join() === '255,0,255',
          'the flash on the gate',
        );
      } finally {
        release();
      }
      expect((await Promise.all(polls)).every((o) => o.ok)).toBe(true);
      const v = await h.get<{
        race_lights: { stats: { flashes_sent: number; dropped: Record<string, number> } };
      }>('/api/integration');
      expect(v.body.race_lights.stats.flashes_sent).toBe(1);
      expect(v.body.race_lights.stats.dropped.radio_busy).toBe(0);
    });
  });

  it('simultaneous-passes-on-one-gate-merge-and-the-winner-colour-shows-on-the-finish-gate', async () => {
    await withHost({ nodes: 3, seed: 2, integrationSecret: SECRET }, async (h) => {
      await discoverAll(h);
      const gate = leds(h)[0] as SimNode;
      await send(h, 'PUT', '/api/race-lights', {
        all_seats_gate: { kind: 'device', value: gate.addr },
        flash: { effect: 84, length_ms: 300, brightness: 255 },
      });
      const colors = ['#ff0000', '#00ff00', '#0000ff', '#ffff00'];
      const laps = await Promise.all(
        colors.map((color, seat) =>
          send(h, 'POST', '/api/integration/laps', { seat, lap_number: 1, color }, H),
        ),
      );
      expect(laps.every((l) => l.status === 202)).toBe(true);
      const results = laps.map((l) => l.body.result as string);
      expect(results.filter((r) => r === 'flash').length).toBeLessThanOrEqual(1);
      type Stats = { flashes_sent: number; passes_flashed: number; dropped: Record<string, number> };
      let stats: Stats | null = null;
      await until(() => gate.snapshot().bri === 255, 'flash');
      const end = Date.now() + 10_000;
      while (Date.now() < end) {
        const v = await h.get<{
          race_lights: { stats: Stats; recent_flashes: { seats: number[] }[] };
        }>('/api/integration');
        stats = v.body.race_lights.stats;
        const d = stats?.dropped ?? {};
        const accounted =
          (stats?.passes_flashed ?? 0) + Object.values(d).reduce((x, y) => x + y, 0) - (d.not_sent ?? 0);
        if (accounted >= 4) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      // Four passes on one gate: fewer frames than passes, every pass flashed or counted.
      expect(stats?.flashes_sent).toBeLessThan(4);
      expect(
        (stats?.passes_flashed ?? 0) + (stats?.dropped.overflow ?? 0) + (stats?.dropped.stale ?? 0),
      ).toBe(4);

      // The winner's seat colour on the finish gate (the all-seats gate here).
      const win = await send(
        h,
        'POST',
        '/api/integration/race/phase',
        { phase: 'win', seat: 2, color: '#0000ff' },
        H,
      );
      expect(win.body).toMatchObject({ ran: ['win'] });
      await until(
        () => color1(gate).join() === '0,0,255' && gate.snapshot().effectMode === 0,
        'winner colour',
      );
    });
  });
  it('race-stop-and-win-both-show-in-either-order-a-later-phase-taking-over-the-running-look', async () => {
    await withHost({ nodes: 4, seed: 2, integrationSecret: SECRET }, async (h) => {
      await discoverAll(h);
      const [a, b, c] = leds(h) as [SimNode, SimNode, SimNode];
      expect(c).toBeDefined();
      // Three gates: seats 0 and 1 on A and B, the timing line C; the winner shows on A.
      const put = await send(h, 'PUT', '/api/race-lights', {
        all_seats_gate: { kind: 'device', value: c.addr },
        seats: [
          { seat: 0, gate: { kind: 'device', value: a.addr } },
          { seat: 1, gate: { kind: 'device', value: b.addr } },
        ],
        finish_gate: { kind: 'device', value: a.addr },
      });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      const phase = (body: Record<string, unknown>) =>
        send(h, 'POST', '/api/integration/race/phase', body, H);
      const red = (n: SimNode) => n.snapshot().bri === 160 && color1(n).join() === '255,0,0';
      const winner = (n: SimNode) => n.snapshot().bri === 255 && color1(n).join() === '0,0,255';
      type Rec = { phase: string; state: string; error: string | null };
      const recent = async (): Promise<Rec[]> =>
        (await h.get<{ race_lights: { recent_phases: Rec[] } }>('/api/integration')).body.race_lights
          .recent_phases;

      // RotorHazard's order at the end of a timed heat: Race Stop, then Race Win at once.
      expect((await phase({ phase: 'stop' })).body).toMatchObject({ ran: ['stop'] });
      expect((await phase({ phase: 'win', seat: 1, color: '#0000ff' })).body).toMatchObject({ ran: ['win'] });
      await until(() => red(b) && red(c) && winner(a), 'stop on every gate, the winner on the finish gate');
      await settle(h);
      expect(red(b) && red(c) && winner(a)).toBe(true);
      const first = await recent();
      expect(first.filter((r) => r.state === 'not_shown')).toEqual([]);
      expect(first.at(-1)).toMatchObject({ phase: 'win', state: 'shown' });

      // The other order (Win's handler ran first): the stop look takes over the winner look
      // and the winner shows again on its gate.
      await phase({ phase: 'heat_change' });
      await until(() => a.snapshot().bri === 80 && b.snapshot().bri === 80, 'the heat look');
      expect((await phase({ phase: 'win', seat: 1, color: '#0000ff' })).body).toMatchObject({ ran: ['win'] });
      expect((await phase({ phase: 'stop' })).body).toMatchObject({ ran: ['stop'] });
      await until(() => red(b) && red(c) && winner(a), 'stop and winner, win first');
      await settle(h);
      expect(red(b) && red(c) && winner(a)).toBe(true);
      const second = (await recent()).slice(first.length);
      expect(second.filter((r) => r.state === 'not_shown')).toEqual([]);
      expect(second.at(-1)).toMatchObject({ phase: 'win', state: 'shown' });
      const v = await h.get<{ last_run: { ok: boolean; error: string | null } }>('/api/integration');
      expect(v.body.last_run).toMatchObject({ ok: true });
    });
  });

  it('an-operator-scene-is-not-cut-by-a-race-look-which-is-listed-as-not-shown', async () => {
    await withHost({ nodes: 3, seed: 2, integrationSecret: SECRET }, async (h) => {
      await discoverAll(h);
      const [a, b] = leds(h) as [SimNode, SimNode];
      await send(h, 'PUT', '/api/race-lights', {
        seats: [
          { seat: 0, gate: { kind: 'device', value: a.addr } },
          { seat: 1, gate: { kind: 'device', value: b.addr } },
        ],
        finish_gate: { kind: 'device', value: a.addr },
      });
      const phase = (body: Record<string, unknown>) =>
        send(h, 'POST', '/api/integration/race/phase', body, H);
      type Rec = { phase: string; state: string; error: string | null };
      const recent = async (): Promise<Rec[]> =>
        (await h.get<{ race_lights: { recent_phases: Rec[] } }>('/api/integration')).body.race_lights
          .recent_phases;
      // The operator's own scene (a long one) is running: the race look is not shown, and says so.
      const sse = await h.sse();
      const op = h.post<{ result: { cancelled: boolean } }>('/api/scenes/podium/run', {
        label: 'Podium',
        actions: [{ kind: 'sync' }, { kind: 'delay', duration_ms: 60_000 }, { kind: 'sync' }],
      });
      await sse.waitFor('scene_progress', (d) => (d as { key: string; index: number }).index === 1);
      expect((await phase({ phase: 'stop' })).body).toMatchObject({ ran: ['stop'] });
      const rec = await eventually(async () => {
        const last = (await recent()).at(-1);
        return last?.state === 'not_shown' ? last : null;
      }, 'the stop look listed as not shown');
      expect(rec).toMatchObject({ phase: 'stop', error: 'scene_running: podium' });
      // The operator's scene was not cancelled by the race look: Blackout ends it.
      const bo = await h.post<{ scene_cancelled: string | null }>('/api/blackout');
      expect(bo.body.scene_cancelled).toBe('podium');
      expect((await op).body.result.cancelled).toBe(true);
    });
  });
});
