import { describe, expect, it } from 'vitest';
import { SteppedClock } from '../../../src/clock.ts';
import { SampleRing, BYTES_PER_SAMPLE } from '../../../src/services/history/index.ts';
import { categorize, deviceOf, LogBuffer, teeLogger } from '../../../src/services/logs/index.ts';
import { silentLogger } from '../../../src/logger.ts';
import { matchesFilter, toText, type LogEntry } from '../../../ui/src/log/model.ts';
import { LinkStats } from '../../../src/services/link-test/index.ts';

describe('activity log ring', () => {
  it('keeps the newest entries, filters and pages by seq', () => {
    const ring = new LogBuffer(new SteppedClock(1, 0), 3);
    for (let i = 1; i <= 5; i++)
      ring.push({
        level: i % 2 ? 'info' : 'warn',
        category: 'radio',
        device: i === 5 ? 'ABCDEF' : null,
        msg: `m${i}`,
        fields: { n: i },
      });
    expect(ring.length).toBe(3);
    expect(ring.query().map((e) => e.msg)).toEqual(['m3', 'm4', 'm5']);
    expect(ring.query({ level: 'warn' }).map((e) => e.msg)).toEqual(['m4']);
    expect(ring.query({ device: 'abcdef' }).map((e) => e.msg)).toEqual(['m5']);
    expect(ring.query({ since: 4 }).map((e) => e.msg)).toEqual(['m5']);
    expect(ring.query({ q: 'M3' }).map((e) => e.seq)).toEqual([3]);
    expect(ring.query({ limit: 1 }).map((e) => e.msg)).toEqual(['m5']);
    expect(ring.lastSeq).toBe(5);
  });

  it('the tee records children with their bindings, classified, and honours its own level', () => {
    const ring = new LogBuffer(new SteppedClock(1, 0));
    const log = teeLogger(silentLogger(), ring, 'info');
    log.child({ mod: 'ota' }).warn({ addr: 'a1b2c3', big: { x: 'y'.repeat(500) } }, 'upload failed');
    log.debug({}, 'dropped');
    const [e] = ring.query();
    expect(ring.length).toBe(1);
    expect(e).toMatchObject({ level: 'warn', category: 'ota', device: 'A1B2C3', msg: 'upload failed' });
    expect(String(e?.fields.big).length).toBeLessThanOrEqual(201);
    expect(categorize({ task: 'status' })).toBe('task');
    expect(categorize({ cat: 'security', mod: 'ota' })).toBe('security');
    expect(deviceOf({ mac: 'nothex' })).toBeNull();
  });

  it('the UI applies the same filter to live entries and writes plain text', () => {
    const e: LogEntry = {
      seq: 1,
      ts: 0,
      level: 'debug',
      category: 'radio',
      device: 'ABCDEF',
      msg: 'device offline',
      fields: { why: 'x y' },
    };
    expect(matchesFilter(e, { level: 'debug', category: 'radio', device: 'abcdef', q: 'OFFLINE' })).toBe(
      true,
    );
    expect(matchesFilter(e, { level: 'info', category: '', device: '', q: '' })).toBe(false);
    expect(toText([e], new Map([['ABCDEF', 'Gate']]))).toBe(
      '1970-01-01T00:00:00.000Z DEBUG radio    ABCDEF (Gate) device offline why="x y"\n',
    );
  });
});

describe('signal history ring', () => {
  it('merges samples within a bucket, grows by doubling and wraps at capacity', () => {
    const r = new SampleRing(4, 10);
    r.add({ ts: 0, host_rssi: -80, host_snr: 5 });
    r.add({ ts: 5, host_rssi: -70, host_snr: 6.25, node_rssi: -60, node_snr: -2, voltage_mV: 3900 });
    expect(r.length).toBe(1);
    expect(r.toJson()).toEqual({
      ts: [5],
      host_rssi: [-70],
      host_snr: [6.25],
      node_rssi: [-60],
      node_snr: [-2],
      voltage_mV: [3900],
    });
    for (let t = 10; t <= 60; t += 10) r.add({ ts: t, host_rssi: -t, host_snr: 0 });
    expect(r.length).toBe(4);
    expect(r.bytes).toBe(4 * BYTES_PER_SAMPLE);
    expect(BYTES_PER_SAMPLE).toBe(12);
    expect(r.toJson().ts).toEqual([30, 40, 50, 60]);
    expect(r.toJson(45).ts).toEqual([50, 60]);
    expect(r.toJson().node_rssi).toEqual([null, null, null, null]);
    expect(r.worst()).toEqual({ host_rssi: -60, host_snr: 0, node_rssi: null, node_snr: null });
  });
});

describe('link test stats', () => {
  it('loss, round trip and ranges', () => {
    const s = new LinkStats('ABCDEF', 'Gate');
    s.heard({ rttMs: 100, hostRssi: -80, hostSnr: 5, nodeRssi: -82, nodeSnr: 4 });
    s.lost();
    s.heard({ rttMs: 140, hostRssi: -90, hostSnr: 2, nodeRssi: -85, nodeSnr: 1 });
    expect(s.result()).toEqual({
      addr: 'ABCDEF',
      name: 'Gate',
      sent: 3,
      received: 2,
      loss_pct: 33.3,
      rtt_ms: { min: 100, avg: 120, max: 140 },
      host_rssi: { min: -90, max: -80 },
      host_snr: { min: 2, max: 5 },
      node_rssi: { min: -85, max: -82 },
      node_snr: { min: 1, max: 4 },
    });
  });
});
