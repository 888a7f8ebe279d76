import { describe, expect, it } from 'vitest';
import { createGatewayDriver } from '../../../src/gateway/driver.ts';
import type { GatewayReadiness } from '../../../src/gateway/types.ts';
import { encodeGatewayInbound } from '../../../src/protocol/events.ts';
import { DEFAULT_RF } from '../../../src/protocol/types.ts';
import { FakeGateway, GW_MAC, TX_CYCLE } from './fake-gateway.ts';
import { ManualClock } from './manual-clock.ts';
import { rig } from './setup.ts';

const INDICATE = { op: 'INDICATE', type: 4, durationSec: 5 } as const;

describe('driver lifecycle', () => {
  it('comes up through boot noise: identifies, seeds the state mirror, reports ready', async () => {
    const noise = [
      Uint8Array.from([0x45, 0x53, 0x50, 0x00, 0x3f, 0x12, 0xff, 0x00, 0x00, 0x9a]),
      encodeGatewayInbound({ kind: 'state', report: false, state: 0, metadataMs: 0 }),
      ...TX_CYCLE.map((e) => encodeGatewayInbound(e)),
    ];
    const { driver } = await rig({}, (gw) => (gw.bootNoise = noise));
    const r = driver.readiness();
    expect(r).toMatchObject({ ready: true, last_error: null, failure_count: 0, gateway_mac: GW_MAC });
    expect(r.transport).toBe('sim');
    const m = driver.master();
    expect(m.state).toBe('IDLE');
    expect(m.state_byte).toBe(0);
    expect(m.last_event).toBe('STATE_REPORT');
  });

  it('starts with the UNKNOWN master snapshot', () => {
    const clock = new ManualClock();
    const gw = new FakeGateway(clock);
    const driver = createGatewayDriver({
      linkFactory: gw.endpoint.factory,
      clock,
      transport: 'sim',
      port: null,
    });
    expect(driver.master()).toEqual({
      state: 'UNKNOWN',
      state_byte: 255,
      state_metadata_ms: 0,
      last_event: null,
      last_event_ts: 0,
      last_error: null,
    });
    expect(driver.readiness()).toMatchObject({ ready: false, failure_count: 0, port: null });
  });

  it('counts failed attempts and backs off 1 s doubling to 15 s while nothing answers', async () => {
    const clock = new ManualClock();
    const gw = new FakeGateway(clock);
    gw.identifyAnswers = false;
    const driver = createGatewayDriver({
      linkFactory: gw.endpoint.factory,
      clock,
      transport: 'sim',
      port: 'x',
    });
    const seen: GatewayReadiness[] = [];
    driver.on('readiness', (r) => seen.push(r));
    await clock.run(driver.start());
    expect(driver.readiness()).toMatchObject({ ready: false, failure_count: 1, next_retry_in_s: 1 });
    expect(driver.readiness().last_error).toMatch(/identify/);
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      const next = driver.readiness().next_retry_in_s;
      delays.push(next ?? -1);
      const before = driver.readiness().failure_count;
      await clock.run(
        new Promise<void>((resolve) => {
          const off = driver.on('readiness', (r) => r.failure_count > before && (off(), resolve()));
        }),
        120_000,
        50,
      );
    }
    expect(delays).toEqual([1, 2, 4, 8, 15, 15]);
    expect(seen.every((r) => !r.ready)).toBe(true);
    // Plugging the gateway back in (it answers again) brings the link up and resets the count.
    gw.identifyAnswers = true;
    await clock.run(
      new Promise<void>((resolve) => {
        const off = driver.on('readiness', (r) => r.ready && (off(), resolve()));
      }),
      60_000,
      50,
    );
    expect(driver.readiness()).toMatchObject({ ready: true, failure_count: 0, last_error: null });
    await driver.stop();
  });

  it('fails in-flight and queued work on link loss, then reconnects and re-identifies', async () => {
    const { clock, driver, gw } = await rig();
    gw.onM2n = () => undefined; // never completes
    const events: GatewayReadiness[] = [];
    driver.on('readiness', (r) => events.push(r));
    const inflight = driver.send('AABB01', INDICATE);
    const queued = driver.send('AABB02', INDICATE);
    const reply = driver.setGroup('AABB03', 3);
    await clock.advance(20);
    gw.endpoint.drop(new Error('cable pulled'));
    const [a, b] = await clock.run(Promise.all([inflight, queued]));
    expect(a).toMatchObject({ ok: false, reason: 'link_down' });
    expect(b).toMatchObject({ ok: false, reason: 'link_down' });
    expect(a.ok ? '' : a.detail).toContain('cable pulled');
    expect(await clock.run(reply)).toMatchObject({ ok: false, reason: 'link_down' });
    expect(events[0]).toMatchObject({ ready: false, next_retry_in_s: 1 });
    expect(events[0]?.last_error).toContain('cable pulled');
    expect(driver.master()).toMatchObject({ state: 'UNKNOWN', last_event: 'USB_ERROR' });
    gw.onM2n = (_f, g) => g.emit(...TX_CYCLE);
    await clock.advance(3000);
    expect(driver.readiness()).toMatchObject({ ready: true, failure_count: 0 });
    expect(events.at(-1)).toMatchObject({ ready: true });
    expect(gw.endpoint.connectionCount).toBe(2);
    expect(driver.master().state).toBe('IDLE');
    expect(await clock.run(driver.send('AABB01', INDICATE))).toEqual({ ok: true });
    expect(driver.diagnostics().linkLosses).toBe(1);
  });

  it('an EV_ERROR frame is recorded in the master mirror but leaves the link alone', async () => {
    const { clock, driver, gw } = await rig();
    const events: GatewayReadiness[] = [];
    driver.on('readiness', (r) => events.push(r));
    gw.emit({ kind: 'error', text: 'radio init failed' });
    await clock.advance(1);
    expect(driver.master()).toMatchObject({
      last_event: 'GATEWAY_ERROR',
      last_error: 'radio init failed',
      state: 'IDLE',
    });
    await clock.advance(3000);
    expect(events).toEqual([]);
    expect(driver.readiness()).toMatchObject({ ready: true, failure_count: 0, last_error: null });
    expect(gw.endpoint.connectionCount).toBe(1);
    expect(driver.diagnostics().linkLosses).toBe(0);
    expect(await clock.run(driver.send('AABB01', INDICATE))).toEqual({ ok: true });
  });

  it('retry() reconnects at once and resets the backoff', async () => {
    const { clock, driver, gw } = await rig();
    gw.endpoint.unplug();
    await clock.advance(1);
    await clock.advance(1100); // first automatic attempt fails (unplugged)
    await clock.advance(10);
    expect(driver.readiness()).toMatchObject({ ready: false, failure_count: 1 });
    expect(driver.readiness().next_retry_in_s).toBeGreaterThan(1.5);
    expect(driver.readiness().next_retry_in_s).toBeLessThanOrEqual(2);
    gw.endpoint.plug();
    const r = await clock.run(driver.retry());
    expect(r).toMatchObject({ ready: true, failure_count: 0, next_retry_in_s: null });
  });

  it('retry() on a healthy link closes the port and connects anew', async () => {
    const { clock, driver, gw } = await rig();
    const r = await clock.run(driver.retry());
    expect(r.ready).toBe(true);
    expect(gw.endpoint.connectionCount).toBe(2);
  });

  it('stop() closes the link and never reconnects', async () => {
    const { clock, driver, gw } = await rig();
    await driver.stop();
    await clock.advance(60_000);
    expect(gw.endpoint.connectionCount).toBe(1);
    expect(gw.connected).toBe(false);
    expect(driver.readiness().ready).toBe(false);
    expect(await clock.run(driver.send('AABB01', INDICATE))).toMatchObject({
      ok: false,
      reason: 'link_down',
    });
  });

  it('queryState answers from the report, and falls back to the mirror on timeout', async () => {
    const { clock, driver, gw } = await rig();
    expect(await clock.run(driver.queryState())).toEqual({
      ok: true,
      state: 'IDLE',
      state_byte: 0,
      state_metadata_ms: 0,
    });
    gw.answerStateRequests = false;
    const t0 = clock.now();
    const r = await clock.run(driver.queryState());
    expect(r).toMatchObject({ ok: false, state: 'IDLE', state_byte: 0 });
    expect(clock.now() - t0).toBeGreaterThanOrEqual(500);
  });

  it('mirrors RX_WINDOW metadata and names rejections in last_event', async () => {
    const { clock, driver, gw } = await rig();
    gw.emit({ kind: 'state', report: false, state: 2, metadataMs: 2000 });
    await clock.advance(1);
    expect(driver.master()).toMatchObject({ state: 'RX_WINDOW', state_byte: 2, state_metadata_ms: 2000 });
    gw.emit({ kind: 'tx_rejected', typeFull: 8, reason: 1 });
    await clock.advance(1);
    expect(driver.master().last_event).toBe('TX_REJECTED (txPending)');
    expect(driver.master().last_event_ts).toBeCloseTo(clock.now() / 1000, 2);
  });

  it('reads and sets the gateway RF configuration', async () => {
    const { clock, driver, gw } = await rig();
    const got = await clock.run(driver.getGatewayRf());
    expect(got).toMatchObject({ ok: true, value: { sf: 7, bwKhzX10: 1250 } });
    const rf = {
      freqHz: 868_200_000,
      bwKhzX10: 1250,
      sf: 9,
      crDen: 5,
      syncWord: 0x12,
      txPowerDbm: 14,
      preamble: 8,
    };
    const set = await clock.run(driver.setGatewayRf(rf, false));
    expect(set).toEqual({ ok: true, value: { reason: 0, rf } });
    const bad = await clock.run(driver.setGatewayRf({ ...rf, sf: 400 }, false));
    expect(bad).toMatchObject({ ok: false, reason: 'invalid' });
    // A volatile change keeps the link as it is.
    expect(gw.endpoint.connectionCount).toBe(1);
  });

  it('a persisted RF change reconnects and re-identifies (the port of a CP2102 board stays open)', async () => {
    const { clock, driver, gw } = await rig();
    expect(gw.identifyCount).toBe(1);
    const rf = { ...DEFAULT_RF, sf: 8 };
    const set = await clock.run(driver.setGatewayRf(rf, true));
    expect(set).toEqual({ ok: true, value: { reason: 0, rf } });
    expect(gw.endpoint.connectionCount).toBe(2);
    expect(gw.identifyCount).toBe(2);
    expect(driver.readiness()).toMatchObject({ ready: true, failure_count: 0 });
    expect(await clock.run(driver.send('AABB01', INDICATE))).toEqual({ ok: true });
  });

  it('a refused RF change is a failure with the reason spelled out, and nothing reconnects', async () => {
    const { clock, driver, gw } = await rig();
    const rf = { ...DEFAULT_RF, sf: 9 };
    gw.rfReason = 0x01;
    const range = await clock.run(driver.setGatewayRf(rf, false));
    expect(range).toMatchObject({ ok: false, reason: 'rejected' });
    expect(range.ok ? '' : range.detail).toMatch(/REJECTED_RANGE 0x01.*SF7/);
    gw.rfReason = 0x03;
    const nvs = await clock.run(driver.setGatewayRf(rf, true));
    expect(nvs).toMatchObject({ ok: false, reason: 'rejected' });
    expect(nvs.ok ? '' : nvs.detail).toMatch(/NVS_FAIL 0x03/);
    expect(gw.endpoint.connectionCount).toBe(1);
    expect(driver.readiness().ready).toBe(true);
  });
});
