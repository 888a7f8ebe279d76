import { describe, expect, it } from 'vitest';
import { SseReader, withHost } from '../harness.ts';
import { discoverAll, runTask, simAddrs } from './helpers.ts';

interface Entry {
  seq: number;
  level: string;
  category: string;
  device: string | null;
  msg: string;
}
interface LogBody {
  ok: boolean;
  entries: Entry[];
  last_seq: number;
}
interface HistoryBody {
  ok: boolean;
  samples: { ts: number[]; host_rssi: number[]; node_rssi: (number | null)[]; voltage_mV: (number | null)[] };
  timeline: { ts: number; online: boolean }[];
  replies: number;
  failures: number;
}

describe('activity log', () => {
  it('a-silent-device-shows-in-the-log-filtered-by-device-and-category', async () => {
    await withHost({ nodes: 4 }, async (h) => {
      await discoverAll(h);
      const [a, b] = simAddrs(h) as [string, string];
      await runTask(h, '/api/status', {});
      h.host.sim?.fleet.faults.silence(b);
      const t = await runTask(h, '/api/status', {});
      expect(t.result).toMatchObject({ offline: 1 });

      const all = (await h.get<LogBody>('/api/log')).body;
      expect(all.entries.some((e) => e.category === 'task' && /task done/.test(e.msg))).toBe(true);
      const mine = (await h.get<LogBody>(`/api/log?device=${b}&category=radio`)).body.entries;
      expect(mine.map((e) => e.msg)).toContain('device offline: no reply to the status poll');
      expect(mine.every((e) => e.device === b && e.category === 'radio')).toBe(true);
      const other = (await h.get<LogBody>(`/api/log?device=${a}&q=offline`)).body.entries;
      expect(other).toEqual([]);
      // Level filter and cursor.
      const warnUp = (await h.get<LogBody>('/api/log?level=warn')).body.entries;
      expect(warnUp.every((e) => e.level === 'warn' || e.level === 'error')).toBe(true);
      const after = (await h.get<LogBody>(`/api/log?since=${all.last_seq}`)).body.entries;
      expect(after.every((e) => e.seq > all.last_seq)).toBe(true);
    });
  });

  it('refused-requests-and-changes-over-http-are-logged-under-security-and-http', async () => {
    await withHost({ nodes: 1, password: 'pw' }, async (h) => {
      expect((await h.get('/api/devices')).status).toBe(401);
      const login = await h.post('/api/login', { password: 'pw' });
      expect(login.status).toBe(200);
      const cookie = login.headers.get('set-cookie')?.split(';')[0] ?? '';
      const opts = { headers: { cookie } };
      expect((await h.post('/api/groups/create', { name: 'Track' }, opts)).status).toBe(200);
      const entries = (await h.get<LogBody>('/api/log', opts)).body.entries;
      expect(entries).toContainEqual(
        expect.objectContaining({ category: 'security', level: 'warn', msg: 'request refused' }),
      );
      expect(entries).toContainEqual(
        expect.objectContaining({ category: 'http', msg: 'POST /lightnet/api/groups/create → 200' }),
      );
    });
  });

  it('bad-log-filters-are-400-naming-the-field', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      const r1 = await h.get<{ ok: boolean; error: string }>('/api/log?level=loud');
      expect(r1.status).toBe(400);
      expect(r1.body.error).toMatch(/^level:/);
      const r2 = await h.get<{ error: string }>('/api/log?device=xyz');
      expect(r2.status).toBe(400);
      expect(r2.body.error).toMatch(/^device:/);
      const r3 = await h.get<{ error: string }>('/api/log?since=-1');
      expect(r3.status).toBe(400);
      expect(r3.body.error).toMatch(/^since:/);
    });
  });

  it('the-live-log-feed-is-opt-in-and-the-plain-stream-never-carries-it', async () => {
    await withHost({ nodes: 2 }, async (h) => {
      const plain = await h.sse();
      const live = await SseReader.connect(`${h.url}/sse?log=1`);
      try {
        await plain.waitFor('master');
        await live.waitFor('master');
        await discoverAll(h);
        const ev = await live.waitFor('log', (d) =>
          (d as { entries: Entry[] }).entries.some((e) => e.msg === 'task done'),
        );
        expect((ev.data as { entries: Entry[] }).entries[0]).toMatchObject({
          seq: expect.any(Number),
          level: expect.any(String),
          category: expect.any(String),
        });
        // The plain client saw the same task end, and no log event at all.
        await plain.waitFor('task', (d) => (d as { state: string }).state === 'done');
        expect(plain.events.filter((e) => e.event === 'log')).toEqual([]);
      } finally {
        live.close();
      }
    });
  });
});

describe('signal history', () => {
  it('polls-fill-a-device-history-and-a-silent-poll-marks-the-timeline-offline', async () => {
    await withHost({ nodes: 3 }, async (h) => {
      await discoverAll(h);
      const [a] = simAddrs(h) as [string];
      await runTask(h, '/api/status', {});
      await runTask(h, '/api/status', {});
      const hist = (await h.get<HistoryBody>(`/api/devices/${a}/history`)).body;
      expect(hist.ok).toBe(true);
      expect(hist.samples.ts.length).toBeGreaterThan(0);
      expect(hist.samples.host_rssi.every((v) => v < 0)).toBe(true);
      expect(hist.samples.node_rssi.some((v) => v !== null && v < 0)).toBe(true);
      const row = (
        await h.get<{ devices: { addr: string; voltage_mV: number }[] }>('/api/devices')
      ).body.devices.find((d) => d.addr === a);
      expect(hist.samples.voltage_mV.at(-1)).toBe(row?.voltage_mV || null);
      expect(hist.replies).toBeGreaterThanOrEqual(3);
      expect(hist.timeline[0]).toMatchObject({ online: true });

      h.host.sim?.fleet.faults.silence(a);
      await runTask(h, '/api/status', {});
      const after = (await h.get<HistoryBody>(`/api/devices/${a}/history`)).body;
      expect(after.failures).toBe(1);
      expect(after.timeline.at(-1)).toMatchObject({ online: false });

      const links = (
        await h.get<{ links: { addr: string; failures: number; online_ratio: number | null }[] }>(
          '/api/links',
        )
      ).body.links;
      expect(links).toHaveLength(3);
      expect(links.find((l) => l.addr === a)).toMatchObject({ failures: 1 });
    });
  });

  it('history-of-an-unknown-device-is-404-and-a-bad-address-400', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      expect((await h.get('/api/devices/ABCDEF/history')).status).toBe(404);
      const bad = await h.get<{ error: string }>('/api/devices/nothex/history');
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatch(/^mac:/);
    });
  });
});

describe('link test', () => {
  it('link-test-reports-loss-rtt-and-signal-ranges-per-device', async () => {
    await withHost({ nodes: 3 }, async (h) => {
      await discoverAll(h);
      const [a, b] = simAddrs(h) as [string, string];
      h.host.sim?.fleet.faults.silence(b);
      const sse = await h.sse();
      const t = await runTask(h, '/api/link-test', { macs: [a, b], count: 3 });
      expect(t.name).toBe('link_test');
      expect(t.state, t.last_error ?? '').toBe('done');
      await sse.waitFor(
        'task',
        (d) =>
          (d as { id: number; state: string }).id === t.id && (d as { state: string }).state !== 'running',
      );
      const progress = sse.events.filter(
        (e) => e.event === 'task' && (e.data as { name: string }).name === 'link_test',
      );
      expect(progress.some((e) => (e.data as { meta: { index: number } }).meta.index === 6)).toBe(true);
      const res = t.result as { count: number; devices: Record<string, unknown>[] };
      expect(res.count).toBe(3);
      const ra = res.devices.find((d) => d.addr === a);
      const rb = res.devices.find((d) => d.addr === b);
      expect(ra).toMatchObject({ sent: 3, received: 3, loss_pct: 0 });
      const rtt = ra?.rtt_ms as { min: number; avg: number; max: number };
      expect(rtt.min).toBeGreaterThan(0);
      expect(rtt.min).toBeLessThanOrEqual(rtt.avg);
      expect(rtt.avg).toBeLessThanOrEqual(rtt.max);
      expect(ra?.host_rssi).toMatchObject({ min: expect.any(Number), max: expect.any(Number) });
      expect(rb).toMatchObject({ sent: 3, received: 0, loss_pct: 100, rtt_ms: null, host_rssi: null });
      const hist = (await h.get<HistoryBody>(`/api/devices/${b}/history`)).body;
      expect(hist.failures).toBe(3);
    });
  });

  it('link-test-validates-its-body', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      const r1 = await h.post<{ error: string }>('/api/link-test', {});
      expect(r1.status).toBe(400);
      expect(r1.body.error).toMatch(/^macs:/);
      const r2 = await h.post<{ error: string }>('/api/link-test', { macs: ['ABCDEF'], count: 0 });
      expect(r2.status).toBe(400);
      expect(r2.body.error).toMatch(/^count:/);
      const r3 = await h.post('/api/link-test', { macs: ['ABCDEF'] });
      expect(r3.status).toBe(404);
    });
  });
});
