import { describe, expect, it } from 'vitest';
import { loraParamsFromRf, packetAirtimeMs } from '../../../src/protocol/airtime.ts';
import { DEFAULT_RF } from '../../../src/protocol/types.ts';
import { TX_CYCLE } from './fake-gateway.ts';
import { rig } from './setup.ts';

const INDICATE = { op: 'INDICATE', type: 4, durationSec: 5 } as const;
const SF12 = { ...DEFAULT_RF, sf: 12 };
/** INDICATE has a 2-byte body. */
const indicateMs = (rf = DEFAULT_RF): number => packetAirtimeMs(2, loraParamsFromRf(rf));

describe('timing at the active RF settings', () => {
  it('the connect sequence reads the RF settings; airtime stats use them', async () => {
    const { clock, driver, gw } = await rig({}, (g) => (g.rf = SF12));
    expect(gw.rfReads).toBe(1);
    expect(await clock.run(driver.send('AABB01', INDICATE))).toEqual({ ok: true });
    expect(driver.stats().airtimeMs).toBeCloseTo(indicateMs(SF12), 6);
    expect(indicateMs(SF12)).toBeGreaterThan(900);
  });

  it('an unanswered RF read does not stop the connect; the default settings stay', async () => {
    const { clock, driver, gw } = await rig({}, (g) => {
      g.rf = SF12;
      g.answerRfRequests = false;
    });
    expect(gw.rfReads).toBe(1);
    expect(driver.readiness()).toMatchObject({ ready: true, failure_count: 0 });
    expect(await clock.run(driver.send('AABB01', INDICATE))).toEqual({ ok: true });
    expect(driver.stats().airtimeMs).toBeCloseTo(indicateMs(), 6);
  });

  it('a volatile setGatewayRf switches the settings the driver computes with', async () => {
    const { clock, driver } = await rig();
    expect(await clock.run(driver.setGatewayRf(SF12, false))).toMatchObject({ ok: true });
    expect(await clock.run(driver.send('AABB01', INDICATE))).toEqual({ ok: true });
    expect(driver.stats().airtimeMs).toBeCloseTo(indicateMs(SF12), 6);
  });

  it('the outcome guard grows with the airtime (2 × airtime + 500 ms, at least 2 s)', async () => {
    const late = 2300; // past the 2 s floor, within 2 × 991 + 500 ms at SF12
    const slow = await rig({}, (g) => (g.rf = SF12));
    slow.gw.onM2n = (_f, g) => g.later(late, ...TX_CYCLE);
    expect(await slow.clock.run(slow.driver.send('AABB01', INDICATE))).toEqual({ ok: true });
    const fast = await rig();
    fast.gw.onM2n = (_f, g) => g.later(late, ...TX_CYCLE);
    const r = await fast.clock.run(fast.driver.send('AABB01', INDICATE));
    expect(r).toMatchObject({ ok: false, reason: 'timeout' });
    expect(r.ok ? '' : r.detail).toContain('within 2000 ms');
  });

  it('a STREAM guard covers all of its fragments', async () => {
    const { clock, driver, gw } = await rig({}, (g) => (g.rf = { ...DEFAULT_RF, sf: 10 }));
    const fragmentMs = packetAirtimeMs(9, loraParamsFromRf({ ...DEFAULT_RF, sf: 10 }));
    // 16 fragments at SF10 take ~5.3 s; the outcome arrives after all but the last.
    const late = Math.round(15 * fragmentMs);
    expect(late).toBeGreaterThan(4000);
    gw.onM2n = (_f, g) => g.later(late, ...TX_CYCLE);
    const r = await clock.run(driver.send('AABB01', { op: 'STREAM', payload: new Uint8Array(128) }));
    expect(r).toEqual({ ok: true });
    expect(driver.stats().airtimeMs).toBeCloseTo(16 * fragmentMs, 6);
  });

  it('waits while the gateway transmits for as long as a full STREAM takes at the active settings', async () => {
    const { clock, driver, gw } = await rig({}, (g) => (g.rf = SF12));
    gw.emit({ kind: 'state', report: false, state: 1, metadataMs: 0 });
    await clock.advance(1);
    const sent = driver.send('AABB01', INDICATE);
    // At SF7 a stale TX mirror would be given up after 1.5 s; at SF12 fragments take 1.3 s each.
    await clock.advance(5000);
    expect(gw.frames).toHaveLength(0);
    gw.emit({ kind: 'state', report: false, state: 0, metadataMs: 0 });
    expect(await clock.run(sent)).toEqual({ ok: true });
    expect(gw.frames).toHaveLength(1);
  });
});
