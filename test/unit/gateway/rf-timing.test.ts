import { describe, expect, it } from 'vitest';
import { loraParamsFromRf, packetAirtimeMs } from '../../../src/protocol/airtime.ts';
import { DEFAULT_RF, OPC, type N2MReply } from '../../../src/protocol/types.ts';
import { ack, identifyReply, replyFrom, TX_CYCLE, type FakeGateway } from './fake-gateway.ts';
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

const STATUS: N2MReply = {
  kind: 'STATUS_REPLY',
  flags: 1,
  configByte: 0,
  effectId: 0,
  brightness: 50,
  vbatMv: 0,
  rssi: -70,
  snr: 8,
  legacy: false,
};

/** Every unicast of `opcode` is answered `delayMs` after its TX_DONE. */
function answerLate(gw: FakeGateway, opcode: number, delayMs: number, reply: N2MReply): void {
  gw.onM2n = (f, g) => {
    g.emit(...TX_CYCLE);
    if (f.typeFull === opcode) g.later(delayMs, replyFrom(f.receiver, reply));
  };
}

describe('reply windows at the active RF settings', () => {
  // At SF12 a node's STATUS_REPLY alone takes 1.16 s on air, after 50-300 ms delay and CAD.
  const LATE = 1600;

  it('a unicast status answered 1.6 s after TX_DONE succeeds at SF12, but is too late at SF7', async () => {
    const slow = await rig({}, (g) => (g.rf = SF12));
    answerLate(slow.gw, OPC.STATUS, LATE, STATUS);
    const r = await slow.clock.run(slow.driver.statusUnicast('AABBCC', 2));
    expect(r).toMatchObject({ ok: true, value: { addr: 'AABBCC', reply: { brightness: 50 } } });

    const fast = await rig();
    answerLate(fast.gw, OPC.STATUS, LATE, STATUS);
    const late = await fast.clock.run(fast.driver.statusUnicast('AABBCC', 2));
    expect(late).toMatchObject({ ok: false, reason: 'no_reply' });
    expect(late.ok ? '' : late.detail).toContain('within 1150 ms');
  });

  it('setGroup answered 1.6 s after TX_DONE succeeds at SF12 on the first attempt, but not at SF7', async () => {
    const slow = await rig({}, (g) => (g.rf = SF12));
    answerLate(slow.gw, OPC.SET_GROUP, LATE, ack(OPC.SET_GROUP));
    const r = await slow.clock.run(slow.driver.setGroup('AABBCC', 3));
    expect(r).toMatchObject({ ok: true, value: { ok: true } });
    expect(slow.gw.frames).toHaveLength(1);

    const fast = await rig({ setGroupAttempts: 1 });
    answerLate(fast.gw, OPC.SET_GROUP, LATE, ack(OPC.SET_GROUP));
    expect(await fast.clock.run(fast.driver.setGroup('AABBCC', 3))).toMatchObject({
      ok: false,
      reason: 'no_reply',
    });
  });

  it('a silent node costs the stretched window at SF12 (status 3622 ms, SET_GROUP 3 × 3654 ms)', async () => {
    const { clock, driver, gw } = await rig({}, (g) => (g.rf = SF12));
    let t0 = clock.now();
    const r = await clock.run(driver.statusUnicast('AABBCC', 2));
    expect(r.ok ? '' : r.detail).toContain('within 3622 ms');
    expect(clock.now() - t0).toBeGreaterThanOrEqual(3622);
    expect(clock.now() - t0).toBeLessThan(3700);
    t0 = clock.now();
    const g = await clock.run(driver.setGroup('AABBCC', 3));
    expect(g.ok ? '' : g.detail).toContain('no reply within 3654 ms (attempt 3 of 3)');
    expect(clock.now() - t0).toBeGreaterThanOrEqual(3 * 3654 + 2 * 100);
    expect(gw.frames).toHaveLength(4);
  });

  it('getConfig and a caller-given CONFIG timeout are stretched too', async () => {
    const { clock, driver, gw } = await rig({}, (g) => (g.rf = SF12));
    answerLate(gw, OPC.GET_CONFIG, 2500, { kind: 'CONFIG_REPLY', option: 5, data: [1, 2, 3, 4] });
    expect(await clock.run(driver.getConfig('AABBCC', 5))).toMatchObject({ ok: true, value: { option: 5 } });
    // 1 s meant for SF7 becomes 1 s + 2 × the extra ACK slot (~3.15 s) at SF12.
    answerLate(gw, OPC.CONFIG, 2500, ack(OPC.CONFIG));
    const r = await clock.run(driver.config('AABBCC', 5, [60, 0, 0, 0], { timeoutMs: 1000, attempts: 1 }));
    expect(r).toMatchObject({ ok: true, value: { ok: true } });
  });

  it('a runtime switch to SF12 stretches the windows at once', async () => {
    const { clock, driver, gw } = await rig();
    expect(await clock.run(driver.setGatewayRf(SF12, false))).toMatchObject({ ok: true });
    answerLate(gw, OPC.STATUS, LATE, STATUS);
    expect(await clock.run(driver.statusUnicast('AABBCC', 2))).toMatchObject({ ok: true });
  });

  it('at SF12 one discovery round collects replies 1.7 s apart (idle gap > one reply on air)', async () => {
    const { clock, driver, gw } = await rig({}, (g) => (g.rf = SF12));
    const sentAt: number[] = [];
    gw.onM2n = (f, g) => {
      g.emit(...TX_CYCLE);
      if (f.typeFull !== OPC.DEVICES) return;
      sentAt.push(clock.now());
      if (sentAt.length > 1) return;
      ['000001', '000002', '000003'].forEach((a, i) =>
        g.later(1500 + 1700 * i, replyFrom(a, identifyReply(a))),
      );
    };
    const heardAt: number[] = [];
    const found = await clock.run(driver.discover({ groupId: 0, onReply: () => heardAt.push(clock.now()) }));
    expect(found.map((x) => x.addr)).toEqual(['000001', '000002', '000003']);
    // All in the first window; the second round hears nothing at all and ends the discovery.
    expect(sentAt).toHaveLength(2);
    expect(heardAt.every((t) => t < (sentAt[1] ?? 0))).toBe(true);
  });

  it('at SF12 a status poll of 3 collects replies 1.4 s apart in one round', async () => {
    const { clock, driver, gw } = await rig({}, (g) => (g.rf = SF12));
    gw.onM2n = (_f, g) => {
      g.emit(...TX_CYCLE);
      ['000001', '000002', '000003'].forEach((a, i) => g.later(1400 + 1400 * i, replyFrom(a, STATUS)));
    };
    const r = await clock.run(driver.statusBroadcast({ groupId: 255, expected: 3 }));
    expect(r.map((x) => x.addr)).toEqual(['000001', '000002', '000003']);
    expect(gw.frames).toHaveLength(1);
  });
});
