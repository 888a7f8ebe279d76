/**
 * The command path through HTTP on the simulator (issue 37): a race look and a lap flash are
 * refused over a group the operator took over, with the reason; a live source is refused over
 * it with 409 naming the holder and nothing reaches the node; take over / hand back; the owners
 * endpoint and its SSE event; a source switched off in the settings (on disk); the per-source
 * rate limit, logged and counted, never delaying Blackout; Blackout drops every hold.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withHost, type Harness } from '../harness.ts';
import { discoverAll } from './helpers.ts';
import { until } from '../../until.ts';
import type { SimNode } from '../../../src/sim/node/node.ts';

const SECRET = 'rotorhazard-test-secret-0123456789';
const RH = { 'x-lightnet-integration': SECRET };
const STARTBLOCK = [50, 51];
const LIVE = { headers: { 'x-lightnet-source': 'live' } };

interface Holder {
  target: { kind: string; id?: number; addr?: string };
  source: string;
  priority: number;
  mode: string;
  since_epoch_ms: number;
  timeout_left_ms: number | null;
}
interface Owners {
  owners: Holder[];
  sources: { id: string; enabled: boolean; priority: number; counts: Record<string, number> }[];
}

async function send(
  h: Harness,
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string>,
) {
  const res = await fetch(h.url + path, {
    method,
    headers: { ...headers, 'content-type': 'application/json', origin: new URL(h.url).origin },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const leds = (h: Harness): SimNode[] =>
  (h.host.sim?.fleet.nodes ?? []).filter((n) => !STARTBLOCK.includes(n.devType));
const owners = async (h: Harness): Promise<Owners> => (await h.get<Owners>('/api/control/owners')).body;
const control = (groupId: number, brightness: number) => ({ groupId, flags: 1, presetId: 1, brightness });

describe('command path', () => {
  it('a-race-look-and-a-lap-flash-are-refused-over-a-group-the-operator-took-over-with-the-reason', async () => {
    await withHost({ nodes: 3, seed: 2, integrationSecret: SECRET }, async (h) => {
      const rows = await discoverAll(h);
      const [a] = leds(h) as [SimNode];
      const gid = rows.find((r) => r.addr === a.addr)?.groupId as number;
      await send(
        h,
        'PUT',
        '/api/race-lights',
        { seats: [{ seat: 0, gate: { kind: 'device', value: a.addr } }] },
        {},
      );
      await send(
        h,
        'PUT',
        '/api/integration/heat',
        { heat_id: 1, seats: [{ seat: 0, callsign: 'Ace', color: '#ff0000' }] },
        RH,
      );

      const took = await h.post<{ holder: Holder }>('/api/control/take-over', {
        target: { kind: 'group', id: gid },
      });
      expect(took.status).toBe(200);
      expect(took.body.holder).toMatchObject({ source: 'ui', priority: 85, mode: 'until-release' });
      const briBefore = a.snapshot().bri;

      // The look for the gate (a device in the taken group) is not shown; the reason names the holder.
      const ph = await send(h, 'POST', '/api/integration/race/phase', { phase: 'heat_change' }, RH);
      expect(ph.body).toMatchObject({ ok: true, ran: ['heat_change'] });
      type Rec = { phase: string; state: string; error: string | null };
      const rec = await until('the look refused', async () => {
        const v = await h.get<{ race_lights: { recent_phases: Rec[] } }>('/api/integration');
        const r = v.body.race_lights.recent_phases.at(-1);
        return r && r.state !== 'waiting' && r.state !== 'running' ? r : null;
      });
      expect(rec).toMatchObject({ phase: 'heat_change', state: 'not_shown' });
      expect(rec.error).toMatch(
        new RegExp(
          `^device ${a.addr} is held by the operator's take-over \\(priority 85\\) for the last \\d+ s, as part of (?:.+ \\(group ${gid}\\)|group ${gid}) — wait until the operator hands it back$`,
        ),
      );

      const lap = await send(h, 'POST', '/api/integration/laps', { seat: 0, lap_number: 1 }, RH);
      expect(lap.body).toMatchObject({ ok: true, result: 'held' });
      expect(a.snapshot().bri).toBe(briBefore);

      // Handed back, the race's look goes out again.
      const back = await h.post('/api/control/hand-back', { target: { kind: 'group', id: gid } });
      expect(back.body).toMatchObject({ ok: true, released: 1 });
      await send(h, 'POST', '/api/integration/race/phase', { phase: 'heat_change' }, RH);
      await until('the heat look on the gate', () => a.snapshot().bri === 80);
    });
  });

  it('a-live-source-is-refused-409-naming-the-holder-and-nothing-reaches-the-node', async () => {
    await withHost({ nodes: 2, seed: 2 }, async (h) => {
      const rows = await discoverAll(h);
      const [a] = leds(h) as [SimNode];
      const gid = rows.find((r) => r.addr === a.addr)?.groupId as number;
      const sse = await h.sse('console=1');
      try {
        await h.post('/api/control/take-over', { target: { kind: 'group', id: gid } });
        await sse.waitFor('owners', (d) => (d as Owners).owners.some((o) => o.source === 'ui'));
        const before = a.snapshot().bri;
        const r = await h.post<{ error: string; holder: Holder }>(
          '/api/devices/control',
          control(gid, 201),
          LIVE,
        );
        expect(r.status).toBe(409);
        expect(r.body.error).toMatch(
          new RegExp(
            `^(?:.+ \\(group ${gid}\\)|group ${gid}) is held by the operator's take-over \\(priority 85\\) for the last \\d+ s — wait until the operator hands it back$`,
          ),
        );
        expect(r.body.holder).toMatchObject({
          source: 'ui',
          priority: 85,
          target: { kind: 'group', id: gid },
        });
        // A device of that group is held too (all ⊃ group ⊃ device), and `all` overlaps it.
        const d = await h.post(
          '/api/devices/control',
          { macs: [a.addr], flags: 1, presetId: 1, brightness: 202 },
          LIVE,
        );
        expect(d.status).toBe(409);
        expect((await h.post('/api/devices/control', control(255, 203), LIVE)).status).toBe(409);
        expect(a.snapshot().bri).toBe(before);
        // The operator's own command goes through its take-over.
        const mine = await h.post('/api/devices/control', control(gid, 120));
        expect(mine.body).toMatchObject({ ok: true, changed: 1 });
        await until('the operator look on the node', () => a.snapshot().bri === 120);

        // Hand back: the live source takes the group and holds it (live, 3 s), the owners view says so.
        await h.post('/api/control/hand-back', { target: { kind: 'group', id: gid } });
        const ok = await h.post('/api/devices/control', control(gid, 150), LIVE);
        expect(ok.body).toMatchObject({ ok: true, changed: 1 });
        const view = await owners(h);
        expect(view.owners).toHaveLength(1);
        expect(view.owners[0]).toMatchObject({ source: 'live', priority: 70, mode: 'live' });
        expect(view.owners[0]?.timeout_left_ms).toBeGreaterThan(0);
        expect(view.owners[0]?.timeout_left_ms).toBeLessThanOrEqual(3000);
        // The operator (60) is below it now; Take over (85) beats it.
        expect((await h.post('/api/devices/control', control(gid, 90))).status).toBe(409);
        expect((await h.post('/api/control/take-over', { target: { kind: 'group', id: gid } })).status).toBe(
          200,
        );
        expect((await owners(h)).owners.map((o) => o.source)).toEqual(['ui']);
        await h.post('/api/control/hand-back', { target: { kind: 'group', id: gid } });
        // A live hold lapses after 3 s of silence: the stream says so, unasked.
        const mark = sse.events.length;
        const fresh = (): Owners[] =>
          sse.events.slice(mark).flatMap((e) => (e.event === 'owners' ? [e.data as Owners] : []));
        await h.post('/api/devices/control', control(gid, 151), LIVE);
        await until('the live hold on the stream', () =>
          fresh().some((v) => v.owners.some((o) => o.source === 'live')),
        );
        await until('its lapse on the stream', () => fresh().at(-1)?.owners.length === 0, 10_000);
        expect((await h.post('/api/devices/control', control(gid, 90))).status).toBe(200);
      } finally {
        sse.close();
      }
    });
  });

  it('an-unknown-source-header-or-target-is-a-400-naming-the-field', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      const r = await h.post('/api/devices/control', control(255, 10), {
        headers: { 'x-lightnet-source': 'nope' },
      });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatch(
        /^x-lightnet-source: unknown source 'nope' \(one of ui, api, live, show\)$/,
      );
      const rh = await h.post('/api/devices/control', control(255, 10), {
        headers: { 'x-lightnet-source': 'rotorhazard' },
      });
      expect(rh.body.error).toMatch(/^x-lightnet-source: 'rotorhazard' cannot be claimed over HTTP/);
      for (const [body, re] of [
        [{}, /^target: /],
        [{ target: { kind: 'group', id: 300 } }, /^target\.id: /],
        [{ target: { kind: 'device', addr: 'xyz' } }, /^target\.addr: /],
        [{ target: { kind: 'ring' } }, /^target\.kind: |^target: /],
      ] as const) {
        const t = await h.post('/api/control/take-over', body);
        expect(t.status, JSON.stringify(body)).toBe(400);
        expect(t.body.error).toMatch(re);
      }
      expect((await owners(h)).owners).toEqual([]);
    });
  });

  it('a-source-switched-off-in-the-settings-is-refused-403-and-the-switch-is-on-disk', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      const bad: [unknown, RegExp][] = [
        [{ sources: { ui: { enabled: false } } }, /^sources\.ui\.enabled: ui cannot be switched off$/],
        [{ sources: { nope: { enabled: false } } }, /^sources\.nope: unknown command source$/],
        [{ sources: { live: { priority: 100 } } }, /^sources\.live\.priority: /],
        [{ priorities: { race: 0 } }, /^priorities\.race: /],
        [{ live_timeout_ms: 'x' }, /^live_timeout_ms: /],
        [{ colour: 1 }, /^colour: |^body: /],
        [
          {},
          /^body: no setting given \(expected priorities, take_over_priority, live_timeout_ms, rate_limit, sources\)$/,
        ],
      ];
      for (const [body, re] of bad) {
        const r = await h.patch('/api/control/settings', body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.body.error).toMatch(re);
      }
      const ok = await h.patch<{ settings: { sources: Record<string, unknown> } }>('/api/control/settings', {
        sources: { live: { enabled: false, priority: 75 } },
      });
      expect(ok.status).toBe(200);
      expect(ok.body.settings.sources.live).toEqual({ enabled: false, priority: 75 });
      const file = JSON.parse(await readFile(join(h.dataDir, 'command-path.json'), 'utf8')) as {
        sources: Record<string, unknown>;
      };
      expect(file.sources.live).toEqual({ enabled: false, priority: 75 });
      const r = await h.post('/api/devices/control', control(255, 10), LIVE);
      expect(r.status).toBe(403);
      expect(r.body.error).toBe('source live is switched off in the settings');
      const live = (await owners(h)).sources.find((s) => s.id === 'live');
      expect(live).toMatchObject({ enabled: false, priority: 75, counts: { disabled: 1 } });
      // The UI's own commands are untouched.
      expect((await h.post('/api/devices/control', control(255, 10))).status).toBe(200);
    });
  });

  it('a-flooding-source-is-rate-limited-logged-and-counted-and-blackout-still-goes-out', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      await h.patch('/api/control/settings', { rate_limit: { per_second: 0.5, burst: 2 } });
      const results: number[] = [];
      for (let i = 0; i < 5; i++)
        results.push((await h.post('/api/devices/control', control(255, 10 + i), LIVE)).status);
      expect(results.slice(0, 2)).toEqual([200, 200]);
      expect(results.slice(2)).toEqual([429, 429, 429]);
      const black = await h.post('/api/blackout');
      expect(black.status).toBe(200);
      expect((await owners(h)).owners).toEqual([]);
      const live = (await owners(h)).sources.find((s) => s.id === 'live');
      expect(live?.counts).toMatchObject({ accepted: 2, rate_limited: 3 });
      // One Log line per external command (accepted at debug), the rate limit's first refusal
      // of the second written with its reason; the UI's own commands write none.
      await h.post('/api/devices/control', control(255, 30));
      type E = { level: string; msg: string; fields: Record<string, unknown> };
      const log = (await h.get<{ entries: E[] }>('/api/log?q=external%20command')).body.entries;
      const mine = log.filter((e) => e.msg === 'external command');
      expect(mine.map((e) => e.fields.result)).toEqual(['accepted', 'accepted', 'rate_limited']);
      expect(mine[2]).toMatchObject({
        level: 'info',
        fields: { source: 'live', target: 'all', action: 'control' },
      });
      expect(String(mine[2]?.fields.reason)).toMatch(
        /^source live: rate limit \(0\.5\/s, burst 2\) exceeded$/,
      );
      expect(mine.every((e) => e.fields.source === 'live')).toBe(true);
    });
  });
});
