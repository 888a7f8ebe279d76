import { describe, expect, it } from 'vitest';
import { GatewayTxError } from '../../../src/gateway/errors.ts';
import { OPC, type N2MReply } from '../../../src/protocol/types.ts';
import { ack, identifyReply, replyFrom, TX_CYCLE, type M2N } from './fake-gateway.ts';
import { rig } from './setup.ts';

const status = (brightness: number): N2MReply => ({
  kind: 'STATUS_REPLY',
  flags: 1,
  configByte: 0,
  effectId: 0,
  brightness,
  vbatMv: 0,
  rssi: -70,
  snr: 8,
  legacy: false,
});

describe('unicast operations', () => {
  it('setGroup retries after a lost ACK and succeeds on the second attempt', async () => {
    const { clock, driver, gw } = await rig();
    let n = 0;
    gw.onM2n = (f, g) => {
      g.emit(...TX_CYCLE);
      if (f.typeFull === OPC.SET_GROUP && n++ === 1) g.later(200, replyFrom(f.receiver, ack(OPC.SET_GROUP)));
    };
    const r = await clock.run(driver.setGroup('AABBCC', 3));
    expect(r).toMatchObject({ ok: true, value: { addr: 'AABBCC', ok: true, status: 0, rssi: -80, snr: 7 } });
    expect(gw.frames).toHaveLength(2);
  });

  it('setGroup gives up after 3 attempts of 1.5 s with a clear detail', async () => {
    const { clock, driver, gw } = await rig();
    const t0 = clock.now();
    const r = await clock.run(driver.setGroup('AABBCC', 3));
    expect(r).toMatchObject({ ok: false, reason: 'no_reply' });
    expect(r.ok ? '' : r.detail).toContain('attempt 3 of 3');
    expect(gw.frames).toHaveLength(3);
    expect(clock.now() - t0).toBeGreaterThanOrEqual(3 * 1500 + 2 * 100);
  });

  it('an ACK from another node or for another opcode does not satisfy setGroup', async () => {
    const { clock, driver, gw } = await rig({ setGroupAttempts: 1 });
    gw.onM2n = (f, g) => {
      g.emit(...TX_CYCLE);
      g.later(100, replyFrom('DDEEFF', ack(OPC.SET_GROUP)), replyFrom(f.receiver, ack(OPC.CONFIG)));
    };
    expect(await clock.run(driver.setGroup('AABBCC', 3))).toMatchObject({ ok: false, reason: 'no_reply' });
  });

  it('a NACK is an answer: no retry, value.ok false', async () => {
    const { clock, driver, gw } = await rig();
    gw.onM2n = (f, g) => {
      g.emit(...TX_CYCLE);
      g.later(100, replyFrom(f.receiver, ack(OPC.CONFIG, 2)));
    };
    const r = await clock.run(driver.config('AABBCC', 0x05, [60, 0, 0, 0]));
    expect(r).toMatchObject({ ok: true, value: { ok: false, status: 2 } });
    expect(gw.frames).toHaveLength(1);
  });

  it('config without ACK wait resolves on TX_DONE', async () => {
    const { clock, driver } = await rig();
    expect(await clock.run(driver.config('AABBCC', 0x81, [1, 0, 0, 0], { waitForAck: false }))).toEqual({
      ok: true,
      value: null,
    });
  });

  it('getConfig ignores a reply for another option (discriminator) and times out after one attempt', async () => {
    const { clock, driver, gw } = await rig();
    gw.onM2n = (f, g) => {
      g.emit(...TX_CYCLE);
      g.later(100, replyFrom(f.receiver, { kind: 'CONFIG_REPLY', option: 0x06, data: [0, 0, 150, 0] }));
    };
    const r = await clock.run(driver.getConfig('AABBCC', 0x05));
    expect(r).toMatchObject({ ok: false, reason: 'no_reply' });
    expect(gw.frames).toHaveLength(1);
    const ok = await clock.run(driver.getConfig('AABBCC', 0x06));
    expect(ok).toEqual({ ok: true, value: { addr: 'AABBCC', option: 6, data: [0, 0, 150, 0] } });
  });

  it('a rejected frame counts as an attempt; link-independent failures are returned as-is', async () => {
    const { clock, driver, gw } = await rig({ txPendingRetries: 0 });
    gw.onM2n = (f, g) => g.emit({ kind: 'tx_rejected', typeFull: f.typeFull, reason: 0xff });
    const r = await clock.run(driver.setGroup('AABBCC', 3));
    expect(r).toMatchObject({ ok: false, reason: 'rejected' });
    expect(gw.frames).toHaveLength(3);
  });

  it('statusUnicast matches the one sender within 1.15 s', async () => {
    const { clock, driver, gw } = await rig();
    gw.onM2n = (f, g) => {
      g.emit(...TX_CYCLE);
      g.later(300, replyFrom(f.receiver, status(99)));
    };
    const r = await clock.run(driver.statusUnicast('AABBCC', 2));
    expect(r).toMatchObject({ ok: true, value: { addr: 'AABBCC', reply: { brightness: 99 } } });
    expect(gw.frames[0]?.body).toEqual(Uint8Array.from([2, 0]));
  });

  it('stream waits for the ACK of the last fragment', async () => {
    const { clock, driver, gw } = await rig();
    gw.onM2n = (f, g) => {
      g.emit(...TX_CYCLE);
      g.later(900, replyFrom(f.receiver, ack(OPC.STREAM)));
    };
    const r = await clock.run(driver.stream('AABBCC', new Uint8Array(40).fill(7)));
    expect(r).toMatchObject({ ok: true, value: { ok: true } });
    expect(driver.stats().airtimeMs).toBeCloseTo(5 * 51.456, 3);
  });
});

describe('broadcast collections', () => {
  it('statusBroadcast exits early at the expected count and reports only who answered', async () => {
    const { clock, driver, gw } = await rig();
    gw.onM2n = (_f, g) => {
      g.emit(...TX_CYCLE);
      g.later(100, replyFrom('000001', status(1)));
      g.later(150, replyFrom('000002', status(2)));
    };
    const t0 = clock.now();
    const seen: string[] = [];
    const r = await clock.run(
      driver.statusBroadcast({ groupId: 255, expected: 2, onReply: (x) => seen.push(x.addr) }),
    );
    expect(r.map((x) => x.addr)).toEqual(['000001', '000002']);
    expect(seen).toEqual(['000001', '000002']);
    expect(clock.now() - t0).toBeLessThan(400);
  });

  it('statusBroadcast with silent nodes re-polls once, then reports only who answered', async () => {
    const { clock, driver, gw } = await rig();
    gw.onM2n = (_f, g) => {
      g.emit(...TX_CYCLE);
      g.later(100, replyFrom('000001', status(1)));
    };
    const r = await clock.run(driver.statusBroadcast({ groupId: 255, expected: 5 }));
    expect(r.map((x) => x.addr)).toEqual(['000001']);
    // Round 2 brought nobody new (000001 answering again is not news): no third round.
    expect(gw.frames).toHaveLength(2);
  });

  it('statusBroadcast gives collided replies another round (no targets known)', async () => {
    const { clock, driver, gw } = await rig();
    const perRound = [['000001', '000003'], ['000001', '000002', '000003'], []];
    let round = 0;
    gw.onM2n = (_f, g) => {
      g.emit(...TX_CYCLE);
      (perRound[round++] ?? []).forEach((a, i) => g.later(80 + 50 * i, replyFrom(a, status(i))));
    };
    const seen: string[] = [];
    const r = await clock.run(
      driver.statusBroadcast({ groupId: 255, expected: 3, onReply: (x) => seen.push(x.addr) }),
    );
    expect(r.map((x) => x.addr)).toEqual(['000001', '000003', '000002']);
    expect(seen).toEqual(['000001', '000003', '000002']);
    expect(round).toBe(2);
  });

  it('statusBroadcast polls a few missing targets by unicast after the rounds', async () => {
    const { clock, driver, gw } = await rig();
    gw.onM2n = (f, g) => {
      g.emit(...TX_CYCLE);
      if (f.receiver === 'FFFFFF') g.later(100, replyFrom('000001', status(1)));
      else if (f.receiver === '000002') g.later(150, replyFrom('000002', status(2)));
    };
    const r = await clock.run(
      driver.statusBroadcast({
        groupId: 4,
        expected: 3,
        targets: ['000001', '000002', '000003'].map((addr) => ({ addr, groupId: 4 })),
      }),
    );
    expect(r.map((x) => x.addr)).toEqual(['000001', '000002']);
    // One reply in a 700 ms round is slower than polling the two stragglers directly.
    expect(gw.frames.map((f) => f.receiver)).toEqual(['FFFFFF', '000002', '000003']);
    expect(gw.frames[1]?.body).toEqual(Uint8Array.from([4, 0]));
  });

  it('a poll of all groups asks each straggler with its stored group, never 255', async () => {
    const { clock, driver, gw } = await rig();
    gw.onM2n = (f, g) => {
      g.emit(...TX_CYCLE);
      if (f.receiver === 'FFFFFF') g.later(100, replyFrom('000001', status(1)));
    };
    const targets = [
      { addr: '000001', groupId: 1 },
      { addr: '000002', groupId: 3 },
      { addr: '000003', groupId: 7 },
    ];
    await clock.run(driver.statusBroadcast({ groupId: 255, expected: 3, targets }));
    const unicasts = gw.frames.filter((f) => f.receiver !== 'FFFFFF');
    expect(unicasts.map((f) => [f.receiver, f.body[0]])).toEqual([
      ['000002', 3],
      ['000003', 7],
    ]);
  });

  it('statusBroadcast throws when the poll could not be sent', async () => {
    const { clock, driver, gw } = await rig({ txPendingRetries: 0 });
    gw.onM2n = (f, g) => g.emit({ kind: 'tx_rejected', typeFull: f.typeFull, reason: 1 });
    await expect(clock.run(driver.statusBroadcast({ groupId: 255, expected: 1 }))).rejects.toBeInstanceOf(
      GatewayTxError,
    );
  });

  it('discovery stops after three rounds without news; news resets the count', async () => {
    const { clock, driver, gw } = await rig();
    const perRound = [
      ['000001'],
      ['000001'],
      ['000002', '000001'],
      ['000001'],
      ['000002'],
      ['000001', '000002'],
      ['000001'],
    ];
    let round = 0;
    gw.onM2n = (f: M2N, g) => {
      g.emit(...TX_CYCLE);
      if (f.typeFull !== OPC.DEVICES) return;
      (perRound[round++] ?? []).forEach((a, i) => g.later(80 + 60 * i, replyFrom(a, identifyReply(a))));
    };
    const found = await clock.run(driver.discover({ groupId: 0 }));
    expect(found.map((x) => x.addr).sort()).toEqual(['000001', '000002']);
    expect(round).toBe(6);
  });

  it('discovery keeps going through collisions until three rounds bring nobody new; announcements count', async () => {
    const { clock, driver, gw } = await rig();
    // Collisions: each round only some of the nodes get through.
    const perRound = [
      ['000001', '000002'],
      ['000002', '000003'],
      ['000001', '000003'],
      ['000002'],
      ['000001'],
    ];
    let round = 0;
    gw.onM2n = (f: M2N, g) => {
      g.emit(...TX_CYCLE);
      if (f.typeFull !== OPC.DEVICES) return;
      (perRound[round++] ?? []).forEach((a, i) => g.later(80 + 60 * i, replyFrom(a, identifyReply(a))));
      if (round === 2) g.later(300, replyFrom('0000B0', identifyReply('0000B0'), 'FFFFFF'));
    };
    const found = await clock.run(driver.discover({ groupId: 0 }));
    expect(found.map((x) => x.addr).sort()).toEqual(['000001', '000002', '000003', '0000B0']);
    expect(round).toBe(5);
    expect(found[0]?.reply.mac).toBe('246F28000001');
    expect(found.find((x) => x.addr === '0000B0')?.source).toBe('announcement');
    expect(found.find((x) => x.addr === '000001')?.source).toBe('reply');
  });

  it('discovery of a silent air ends after one window (empty or fully configured fleet)', async () => {
    const { clock, driver, gw } = await rig();
    const t0 = clock.now();
    expect(await clock.run(driver.discover({ groupId: 0 }))).toEqual([]);
    expect(gw.frames).toHaveLength(1);
    // One 5 s collection window (plus the frame's TX cycle), not three.
    expect(clock.now() - t0).toBeGreaterThanOrEqual(5000);
    expect(clock.now() - t0).toBeLessThan(5200);
  });

  it('a round with replies but nothing new is not silence: three such rounds are needed', async () => {
    const { clock, driver, gw } = await rig();
    gw.onM2n = (f, g) => {
      g.emit(...TX_CYCLE);
      if (f.typeFull === OPC.DEVICES) g.later(80, replyFrom('000001', identifyReply('000001')));
    };
    const found = await clock.run(driver.discover({ groupId: 0 }));
    expect(found.map((x) => x.addr)).toEqual(['000001']);
    expect(gw.frames).toHaveLength(4);
  });

  it('discovery ignores nodes outside the group filter', async () => {
    const { clock, driver, gw } = await rig();
    gw.onM2n = (f, g) => {
      g.emit(...TX_CYCLE);
      if (f.typeFull === OPC.DEVICES) {
        g.later(80, replyFrom('000001', identifyReply('000001', 0)));
        g.later(120, replyFrom('000002', identifyReply('000002', 4)));
      }
    };
    const found = await clock.run(driver.discover({ groupId: 4 }));
    expect(found.map((x) => x.addr)).toEqual(['000002']);
  });

  it('discovery stops at the round bound', async () => {
    const { clock, driver, gw } = await rig({ discoveryMaxRounds: 3 });
    let next = 1;
    gw.onM2n = (f, g) => {
      g.emit(...TX_CYCLE);
      const a = (next++).toString(16).padStart(6, '0').toUpperCase();
      if (f.typeFull === OPC.DEVICES) g.later(80, replyFrom(a, identifyReply(a)));
    };
    const found = await clock.run(driver.discover({ groupId: 0 }));
    expect(found).toHaveLength(3);
    expect(gw.frames).toHaveLength(3);
  });

  it('interactive frames go out during a discovery window', async () => {
    const { clock, driver, gw } = await rig();
    gw.onM2n = (f, g) => {
      g.emit(...TX_CYCLE);
      if (f.typeFull === OPC.DEVICES) g.later(100, replyFrom('000001', identifyReply('000001')));
    };
    const disc = driver.discover({ groupId: 0 });
    await clock.advance(50);
    const ctl = await clock.run(driver.send('FFFFFF', { op: 'INDICATE', type: 4, durationSec: 1 }));
    expect(ctl).toEqual({ ok: true });
    await clock.run(disc);
    expect(gw.frames.map((f) => f.typeFull)).toEqual([
      OPC.DEVICES,
      OPC.INDICATE,
      OPC.DEVICES,
      OPC.DEVICES,
      OPC.DEVICES,
    ]);
  });
});

describe('boot announcements', () => {
  it('count as discovered until the node is moved to another group', async () => {
    const { clock, driver, gw } = await rig();
    gw.emit(replyFrom('0000A1', identifyReply('0000A1'), 'FFFFFF'));
    gw.emit(replyFrom('0000A2', identifyReply('0000A2'), 'FFFFFF'));
    await clock.advance(10);
    gw.onM2n = (f, g) => {
      g.emit(...TX_CYCLE);
      if (f.typeFull === OPC.SET_GROUP) g.later(100, replyFrom(f.receiver, ack(OPC.SET_GROUP)));
    };
    const first = await clock.run(driver.discover({ groupId: 0 }));
    expect(first.map((x) => [x.addr, x.source])).toEqual([
      ['0000A1', 'announcement'],
      ['0000A2', 'announcement'],
    ]);
    expect(await clock.run(driver.setGroup('0000A2', 7))).toMatchObject({ ok: true });
    const again = await clock.run(driver.discover({ groupId: 0 }));
    expect(again.map((x) => x.addr)).toEqual(['0000A1']);
    const inSeven = await clock.run(driver.discover({ groupId: 7 }));
    expect(inSeven.map((x) => x.addr)).toEqual(['0000A2']);
  });

  it('count only if heard within 60 s before the discovery started (default)', async () => {
    const { clock, driver, gw } = await rig();
    expect(driver.options.discoveryAnnouncementMaxAgeMs).toBe(60_000);
    gw.emit(replyFrom('0000A1', identifyReply('0000A1'), 'FFFFFF'));
    await clock.advance(2000);
    gw.emit(replyFrom('0000A2', identifyReply('0000A2'), 'FFFFFF'));
    await clock.advance(59_000);
    // A1 is 61 s old, A2 59 s.
    const found = await clock.run(driver.discover({ groupId: 0 }));
    expect(found.map((x) => x.addr)).toEqual(['0000A2']);
  });

  it('expire after the configured age', async () => {
    const { clock, driver, gw } = await rig({ discoveryAnnouncementMaxAgeMs: 1000 });
    gw.emit(replyFrom('0000A1', identifyReply('0000A1'), 'FFFFFF'));
    await clock.advance(1500);
    expect(await clock.run(driver.discover({ groupId: 0 }))).toEqual([]);
  });
});
