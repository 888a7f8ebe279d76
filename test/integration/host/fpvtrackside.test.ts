/**
 * FPVTrackside as a second timer, through HTTP on the simulator, driven by a stand-in sender
 * written from the interface (test/fpvtrackside/sender.ts): the URL token, the receiver's
 * answers and counters (unknown types, repeated detections, bodies that are not JSON, seq
 * going back, a restart), a detection flashing the gate mapped to its timing system in the
 * pilot's channel colour, and the race events playing their phase looks.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SimNode } from '../../../src/sim/node/node.ts';
import { until } from '../../until.ts';
import { FpvTracksideSender, HELLO_BODY } from '../../fpvtrackside/sender.ts';
import { withHost, type Harness } from '../harness.ts';
import { discoverAll } from './helpers.ts';

const STARTBLOCK = [50, 51];
const leds = (h: Harness): SimNode[] =>
  (h.host.sim?.fleet.nodes ?? []).filter((n) => !STARTBLOCK.includes(n.devType));
const color1 = (n: SimNode): string => [...(n.snapshot().segment.colors[0] ?? [])].join();

interface Source {
  url: string;
  path: string;
  token: string;
  connected: boolean;
  counters: Record<
    'accepted' | 'duplicate' | 'out_of_order' | 'unknown' | 'malformed' | 'unauthorized' | 'dropped',
    number
  >;
  session: { restarts: number; gaps: number; last_seq: number | null };
  detections: { flashed: number; filtered: number };
  last_error: { error: string } | null;
  events_per_minute: number;
  race: { state: string; scheduled_start_epoch_ms: number | null; round: number | null } | null;
  hello: { body: { timingSystem: { systems: unknown[] } } } | null;
}
const source = async (h: Harness): Promise<Source> =>
  (await h.get<{ fpvtrackside: Source }>('/api/timers')).body.fpvtrackside;

async function put(h: Harness, path: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(h.url + path, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', origin: new URL(h.url).origin },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

const ch = (number: number, r: number, g: number, b: number) => ({
  band: 'Raceband',
  number,
  frequency: 5658 + number * 37,
  colorR: r,
  colorG: g,
  colorB: b,
});
const KESTREL = ch(8, 0, 90, 255);
const OSPREY = ch(4, 255, 200, 0);
let ids = 0;
const detection = (index: number, channel: object, extra: Record<string, unknown> = {}) => ({
  detectionId: `5b0c7e2a-9d41-4f3b-8a6e-${String(++ids).padStart(12, '0')}`,
  round: 2,
  race: 1,
  pilotName: 'Kestrel',
  channel,
  timingSystemIndex: index,
  isLapEnd: index === 0,
  lapNumber: 2,
  sectorIndex: index + 1,
  raceSector: 200 + index,
  raceTime: 26.565,
  sectorTime: 6.881,
  lapTimeSoFar: 14.402,
  position: 1,
  valid: true,
  positionSnapshot: [{ pilotName: 'Kestrel', position: 1, raceSector: 200, lastDetectionTime: 26.565 }],
  raceFinishedForPilot: false,
  ...extra,
});
const race = { round: 2, race: 1, raceType: 'Race' };

describe('FPVTrackside push', () => {
  it('the-url-token-is-made-once-kept-on-disk-and-other-callers-get-401', async () => {
    await withHost({ nodes: 1, password: 'pw-for-the-ui' }, async (h) => {
      const auth = { headers: { authorization: 'Bearer pw-for-the-ui' } };
      // The route answers to its token alone (FPVTrackside has no password to give).
      const before = await fetch(`${h.url}/api/timers/fpvtrackside?token=anything`, {
        method: 'PUT',
        body: '{}',
      });
      expect(before.status).toBe(401);
      expect(await before.json()).toMatchObject({ ok: false, error: expect.stringMatching(/^token: /) });
      expect((await h.get('/api/timers')).status).toBe(401); // the settings need the UI's login
      const a = await h.get<{ fpvtrackside: Source }>('/api/timers', auth);
      expect(a.status).toBe(200);
      const { token, url, path } = a.body.fpvtrackside;
      expect(token).toMatch(/^[\w-]{24}$/);
      expect(path).toBe('/lightnet/api/timers/fpvtrackside');
      expect(url).toBe(`${h.url.replace(/\/lightnet$/, '')}${path}?token=${token}`);
      const onDisk = JSON.parse(await readFile(join(h.dataDir, 'timers.json'), 'utf8')) as {
        fpvtrackside: { token: string };
      };
      expect(onDisk.fpvtrackside.token).toBe(token);
      expect((await h.get<{ fpvtrackside: Source }>('/api/timers', auth)).body.fpvtrackside.token).toBe(
        token,
      );

      for (const q of ['', '?token=', `?token=${token}x`, `?tok=${token}`]) {
        const r = await fetch(`${h.url}/api/timers/fpvtrackside${q}`, { method: 'PUT', body: '{}' });
        expect(r.status, q).toBe(401);
      }
      const ok = await fetch(url, { method: 'PUT', body: '{"type":"Nope","seq":1}' });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toBe('');
      // FPVTrackside recycles idle pooled connections after 5 min: ours outlive that.
      expect(ok.headers.get('keep-alive')).toBe('timeout=360');
      const s = (await h.get<{ fpvtrackside: Source }>('/api/timers', auth)).body.fpvtrackside;
      expect(s.counters).toMatchObject({ unauthorized: 5, unknown: 1 });
    });
  });

  it('timing-system-gates-are-validated-naming-the-field', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      const [node] = await discoverAll(h);
      const cases: [unknown, RegExp][] = [
        [
          { timing_systems: [{ index: 0, gate: { kind: 'group', value: 99 } }] },
          /^timing_systems\[0\]\.gate: no group 99$/,
        ],
        [{ timing_systems: [{ index: 70, gate: { kind: 'broadcast' } }] }, /^timing_systems\[0\]\.index: /],
        [
          {
            timing_systems: [
              { index: 1, gate: { kind: 'broadcast' } },
              { index: 1, gate: { kind: 'broadcast' } },
            ],
          },
          /^timing_systems\[1\]\.index: timing system listed twice$/,
        ],
        [{ timing_systems: [{ index: 0 }] }, /^timing_systems\[0\]\.gate: /],
      ];
      for (const [body, re] of cases) {
        const r = await put(h, '/api/race-lights', body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect((r.body as { error: string }).error).toMatch(re);
      }
      const good = { timing_systems: [{ index: 1, gate: { kind: 'device', value: node?.addr } }] };
      expect((await put(h, '/api/race-lights', good)).status).toBe(200);
    });
  });

  it('detections-flash-the-mapped-gate-in-the-channel-colour-bad-input-is-counted-and-never-flashes-twice', async () => {
    await withHost({ nodes: 3, seed: 2 }, async (h) => {
      await discoverAll(h);
      const [a, b] = leds(h) as [SimNode, SimNode];
      expect(b).toBeDefined();
      expect(
        (
          await put(h, '/api/race-lights', {
            all_seats_gate: { kind: 'device', value: a.addr },
            timing_systems: [{ index: 1, gate: { kind: 'device', value: b.addr } }],
            flash: { effect: 0, length_ms: 400, brightness: 255 },
          })
        ).status,
      ).toBe(200);
      const src = await source(h);
      const sender = new FpvTracksideSender(src.url);
      sender.start();
      await until('hello accepted', () => sender.helloAccepted());
      // The Hello is kept (topology) and on disk.
      const hello = await until('hello stored', async () => (await source(h)).hello);
      expect(hello.body.timingSystem.systems).toHaveLength(2);
      const file = JSON.parse(await readFile(join(h.dataDir, 'timers.json'), 'utf8')) as {
        fpvtrackside: { hello: unknown };
      };
      expect(file.fpvtrackside.hello).toMatchObject({ fpvtVersion: HELLO_BODY.fpvtVersion });

      // A split pass (timing system 1): gate B in Kestrel's channel colour, then back.
      const first = detection(1, KESTREL);
      sender.send('DetectionExt', first);
      await until('flash on gate B', () => b.snapshot().bri === 255 && color1(b) === '0,90,255');
      await until('gate B back', () => b.snapshot().bri !== 255);
      // The lap loop (0) has no gate of its own: the all-seats gate, Osprey's colour.
      sender.send('DetectionExt', detection(0, OSPREY, { pilotName: 'Osprey' }));
      await until('flash on gate A', () => a.snapshot().bri === 255 && color1(a) === '255,200,0');
      await until('gate A back', () => a.snapshot().bri !== 255);

      // Bad input: every request is answered 200 and counted; nothing reaches the radio.
      sender.send('DetectionExt', first); // the same detectionId again
      sender.send('TrackMapChanged', { map: 'x' }); // a type this host does not know
      sender.sendRaw('{"type":"DetectionExt",'); // not JSON
      sender.sendRaw('[1,2]'); // JSON, no envelope
      sender.send('DetectionExt', { ...detection(1, KESTREL), channel: { colorR: 300 } }); // bad colour
      sender.send('DetectionExt', detection(1, KESTREL, { valid: false })); // filtered by FPVTrackside
      await sender.idle();
      expect(sender.outcomes()).toEqual({ ok: 9 });
      const s = await until('all applied', async () => {
        const v = await source(h);
        return v.counters.malformed === 3 ? v : null;
      });
      expect(s.counters).toMatchObject({
        accepted: 4,
        duplicate: 1,
        unknown: 1,
        malformed: 3,
        out_of_order: 0,
      });
      expect(s.detections).toMatchObject({ flashed: 2, filtered: 1 });
      expect(s.last_error?.error).toMatch(/^DetectionExt: channel\.colorR: /);
      expect(s.events_per_minute).toBe(9);
      expect(s.connected).toBe(true);
      const lights = await h.get<{ stats: { laps: number; flashes_sent: number } }>('/api/race-lights');
      expect(lights.body.stats).toMatchObject({ laps: 2, flashes_sent: 2 });
      expect(b.snapshot().bri).not.toBe(255);
    });
  });

  it('seq-going-back-is-out-of-order-gaps-are-counted-and-a-restarted-fpvtrackside-is-a-new-session', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      const { url } = await source(h);
      const at = async (seq: number, type: string, fields: Record<string, unknown> = {}): Promise<void> => {
        const r = await fetch(url, {
          method: 'PUT',
          headers: { 'content-type': 'application/json; charset=utf-8' },
          body: JSON.stringify({ type, ts: new Date().toISOString(), seq, ...fields }),
        });
        expect(r.status).toBe(200);
      };
      // Events overtake the session's first Hello (it goes over its own call): all accepted.
      await at(2, 'RaceLoaded', { ...race, pilots: [] });
      await at(3, 'NextRace', { round: null, race: null, pilots: [] });
      await at(1, 'Hello', HELLO_BODY);
      await at(4, 'RaceResult', { pilots: [] });
      await at(3, 'RaceResult', { pilots: [] }); // stale
      await at(4, 'RaceResult', { pilots: [] }); // the same seq again
      await at(9, 'RaceResult', { pilots: [] }); // 5–8 dropped by the sender
      let s = await until('applied', async () => {
        const v = await source(h);
        return v.session.last_seq === 9 && v.counters.out_of_order === 2 ? v : null;
      });
      expect(s.counters).toMatchObject({ accepted: 5, out_of_order: 2 });
      expect(s.session).toMatchObject({ restarts: 0, gaps: 4 });
      expect(s.race).toMatchObject({ state: 'loaded', round: 2 });
      expect(s.last_error?.error).toBe('seq: 4 after 4');

      // FPVTrackside restarts: a new session from seq 1, its Hello first (the sender's own order).
      const sender = new FpvTracksideSender(url);
      sender.start();
      await until('hello accepted', () => sender.helloAccepted());
      sender.send('RaceLoaded', { ...race, race: 2, pilots: [] });
      await sender.idle();
      s = await until('restart seen', async () => {
        const v = await source(h);
        return v.session.last_seq === 2 ? v : null;
      });
      expect(s.session).toMatchObject({ restarts: 1, gaps: 0 });
      expect(s.counters).toMatchObject({ accepted: 7, out_of_order: 2 });
      // A session whose Hello never came: numbering far below the last is a restart too.
      for (let seq = 3; seq <= 40; seq++) await at(seq, 'RaceResult', { pilots: [] });
      await at(2, 'RaceResult', { pilots: [] });
      s = await until('second restart', async () => {
        const v = await source(h);
        return v.session.restarts === 2 ? v : null;
      });
      expect(s.session.last_seq).toBe(2);
      expect(s.counters.out_of_order).toBe(2);
    });
  });

  it('race-events-play-the-phase-looks-and-the-operator-scene-wins', async () => {
    await withHost({ nodes: 3, seed: 2 }, async (h) => {
      await discoverAll(h);
      const [a, b] = leds(h) as [SimNode, SimNode];
      await put(h, '/api/race-lights', {
        all_seats_gate: { kind: 'device', value: a.addr },
        timing_systems: [{ index: 1, gate: { kind: 'device', value: b.addr } }],
      });
      const { url } = await source(h);
      const sender = new FpvTracksideSender(url);
      sender.start();
      await until('hello accepted', () => sender.helloAccepted());
      type Rec = { phase: string; state: string; error: string | null };
      const recent = async (): Promise<Rec[]> =>
        (await h.get<{ recent_phases: Rec[] }>('/api/race-lights')).body.recent_phases;
      const shows = (what: string, bri: number, rgb: string) =>
        until(what, () => [a, b].every((n) => n.snapshot().bri === bri && color1(n) === rgb), 15_000);
      const settled = (phase: string) =>
        until(`${phase} shown`, async () => {
          const last = (await recent()).at(-1);
          return last?.phase === phase && last.state !== 'waiting' && last.state !== 'running' ? last : null;
        });

      sender.send('RaceLoaded', {
        ...race,
        scheduledStart: null,
        targetLaps: 3,
        raceLength: 120,
        pilots: [],
      });
      const expected = new Date(Date.now() + 5000).toISOString();
      sender.send('RaceStartAnnouncement', { ...race, delaySeconds: 5, expectedStart: expected });
      await shows('staging look', 160, '255,110,0');
      const scheduled = '2026-07-04T09:21:34.812Z';
      sender.send('RacePreStart', { ...race, scheduledStart: scheduled });
      const pre = await until('pre-start recorded', async () => {
        const v = await source(h);
        return v.race?.state === 'pre_start' ? v.race : null;
      });
      expect(pre).toMatchObject({
        round: 2,
        scheduled_start_epoch_ms: Date.parse(scheduled),
        expected_start_epoch_ms: Date.parse(expected),
      });
      expect(await settled('staging')).toMatchObject({ state: 'shown' });

      sender.send('RaceStart', { ...race, actualStart: new Date().toISOString() });
      await shows('start look', 255, '0,255,0');
      // A pilot out: their channel colour and red on the gates, then the race look again.
      sender.send('PilotCrashedOut', { pilot: { name: 'Osprey', channel: OSPREY }, manuallySet: true });
      await until('crash look then the race look', async () => {
        const r = await recent();
        const i = r.findIndex((x) => x.phase === 'crash_out');
        return (
          i >= 0 && r[i]?.state === 'shown' && r[i + 1]?.phase === 'start' && r[i + 1]?.state === 'shown'
        );
      });
      await shows('start look back', 255, '0,255,0');
      sender.send('RaceTimesUp', race);
      await shows('finish look', 200, '255,255,255');
      sender.send('RaceEnd', race);
      await shows('stop look', 160, '255,0,0');
      expect((await source(h)).race).toMatchObject({ state: 'ended' });

      // The operator's scene is never cut by a timer's look: listed as not shown.
      const sse = await h.sse();
      const op = h.post<{ result: { cancelled: boolean } }>('/api/scenes/podium/run', {
        label: 'Podium',
        actions: [{ kind: 'sync' }, { kind: 'delay', duration_ms: 60_000 }, { kind: 'sync' }],
      });
      await sse.waitFor('scene_progress', (d) => (d as { index: number }).index === 1);
      const before = (await recent()).length;
      sender.send('RaceCancelled', { ...race, failure: false });
      const rec = await until('the cancel look listed', async () => {
        const r = await recent();
        return r.length > before || r.length === 20 ? r.at(-1) : null;
      });
      expect(rec).toMatchObject({ phase: 'stop', state: 'not_shown', error: 'scene_running: podium' });
      expect((await source(h)).race).toMatchObject({ state: 'cancelled' });
      const bo = await h.post<{ scene_cancelled: string | null }>('/api/blackout');
      expect(bo.body.scene_cancelled).toBe('podium');
      expect((await op).body.result.cancelled).toBe(true);
      await sender.idle();
      expect(sender.outcomes()).toEqual({ ok: 9 });
      sse.close();
    });
  });

  it('a-flood-of-the-same-detection-from-many-connections-is-answered-and-flashes-once', async () => {
    await withHost({ nodes: 3, seed: 2 }, async (h) => {
      await discoverAll(h);
      const [a] = leds(h) as [SimNode];
      await put(h, '/api/race-lights', {
        all_seats_gate: { kind: 'device', value: a.addr },
        flash: { effect: 0, length_ms: 300, brightness: 255 },
      });
      const { url } = await source(h);
      const same = detection(0, KESTREL);
      const N = 300;
      const answers = await Promise.all(
        Array.from({ length: N }, (_, i) =>
          fetch(url, {
            method: 'PUT',
            headers: { 'content-type': 'application/json; charset=utf-8' },
            body: JSON.stringify({
              type: 'DetectionExt',
              ts: new Date().toISOString(),
              seq: 1000 + i,
              ...same,
            }),
          }).then((r) => r.status),
        ),
      );
      expect(answers.every((x) => x === 200)).toBe(true);
      const s = await until('all applied', async () => {
        const v = await source(h);
        const c = v.counters;
        return c.accepted + c.duplicate + c.out_of_order + c.dropped === N ? v : null;
      });
      // Many connections: arrival order is not seq order, so some are stale; one flash at most.
      expect(s.counters.accepted).toBe(1);
      expect(s.detections.flashed).toBe(1);
      const lights = await h.get<{ stats: { laps: number } }>('/api/race-lights');
      expect(lights.body.stats.laps).toBe(1);
    });
  });
});
