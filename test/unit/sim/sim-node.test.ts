import { describe, expect, it } from 'vitest';
import { bootQuietly, HubRadio, nodeWorld } from './fixtures.ts';
import { DEFAULT_RF } from '../../../src/protocol/types.ts';

describe('simulated node: boot and announcements (§8.1, §8.6)', () => {
  it('announces twice to FF FF FF: +1 s after radio up, then 3 s after the first went on air', () => {
    const w = nodeWorld();
    const starts: number[] = [];
    w.air.events.on('tx', (t) => t.sender === 'AABBCC' && starts.push(t.start));
    const t0 = w.clock.now();
    w.sched.runExternal(() => w.node.powerOn());
    w.run(10_000);
    expect(w.gw.got.map((p) => p.receiver)).toEqual(['FFFFFF', 'FFFFFF']);
    const first = (starts[0] ?? 0) - t0;
    expect(first).toBeGreaterThanOrEqual(800 + 1000 + 50);
    expect(first).toBeLessThanOrEqual(800 + 1000 + 305);
    const gap = (starts[1] ?? 0) - (starts[0] ?? 0);
    expect(gap).toBeGreaterThanOrEqual(3050);
    expect(gap).toBeLessThanOrEqual(3305);
    expect(w.replies()[0]).toMatchObject({
      kind: 'IDENTIFY_REPLY',
      fw: 2,
      devType: 12,
      groupId: 0,
      mac: '246F28AABBCC',
    });
  });

  it('stops announcing once a SET_GROUP gave it a group', () => {
    const w = nodeWorld();
    w.sched.runExternal(() => w.node.powerOn());
    w.run(2500);
    w.send('AABBCC', { op: 'SET_GROUP', groupId: 4 });
    w.run(8000);
    const anns = w.gw.got.filter((p) => p.receiver === 'FFFFFF');
    expect(anns).toHaveLength(1);
  });
});

describe('simulated node: filters and master binding (§8.2–§8.4)', () => {
  it('before SET_GROUP only DEVICES/SET_GROUP pass; rssi is stored even for dropped packets', () => {
    const w = nodeWorld();
    bootQuietly(w);
    w.send('AABBCC', { op: 'STATUS', groupId: 0 });
    w.run(500);
    expect(w.gw.got).toHaveLength(0);
    expect(w.node.lastRssi).toBeLessThan(-60);
    w.send('FFFFFF', { op: 'DEVICES', groupId: 0 });
    w.run(500);
    expect(w.replies().map((r) => r.kind)).toEqual(['IDENTIFY_REPLY']);
    expect(w.gw.got[0]?.receiver).toBe('102030');
  });

  it('binds to the SET_GROUP sender; another master is then ignored until CONFIG 0x02', () => {
    const w = nodeWorld();
    const other = new HubRadio('505050');
    w.air.register(other, { rssi: -60, snr: 10 });
    bootQuietly(w);
    w.send('AABBCC', { op: 'SET_GROUP', groupId: 7 });
    w.run(500);
    expect(w.node.master).toBe('102030');
    w.send('AABBCC', { op: 'SET_GROUP', groupId: 9 }, other);
    w.send('FFFFFF', { op: 'DEVICES', groupId: 255 }, other);
    w.run(500);
    expect(w.node.groupId).toBe(7);
    expect(other.got.filter((p) => p.receiver === '505050')).toHaveLength(0);
    w.send('AABBCC', { op: 'CONFIG', option: 0x02, data: [0, 0, 0, 0] });
    w.run(500);
    expect(w.node.master).toBeNull();
    w.send('AABBCC', { op: 'SET_GROUP', groupId: 9 }, other);
    w.run(500);
    expect(w.node.master).toBe('505050');
    expect(w.node.groupId).toBe(9);
  });

  it('with the MAC filter off every sender is accepted for every opcode', () => {
    const w = nodeWorld();
    const other = new HubRadio('505050');
    w.air.register(other, { rssi: -60, snr: 10 });
    bootQuietly(w);
    w.send('AABBCC', { op: 'SET_GROUP', groupId: 1 });
    // The node is deaf until its ACK has left (§8.5).
    w.run(400);
    w.send('AABBCC', { op: 'CONFIG', option: 0x01, data: [0, 0, 0, 0] });
    w.run(500);
    expect(w.node.configByte).toBe(0);
    w.send('AABBCC', { op: 'STATUS', groupId: 1 }, other);
    w.run(500);
    expect(other.got.map((p) => p.typeFull)).toContain(0x83);
  });

  it('master persistence restores the master after a reboot; RF_CONFIG turns it off', () => {
    const w = nodeWorld();
    bootQuietly(w);
    w.send('AABBCC', { op: 'SET_GROUP', groupId: 2 });
    w.run(400);
    w.send('AABBCC', { op: 'CONFIG', option: 0x03, data: [1, 0, 0, 0] });
    w.run(400);
    w.sched.runExternal(() => w.node.reboot());
    w.run(3000);
    expect(w.node.master).toBe('102030');
    expect(w.node.groupId).toBe(0);
    expect(w.node.configByte).toBe(0x03);
    w.send('AABBCC', { op: 'RF_CONFIG', rf: { ...DEFAULT_RF, freqHz: 868_700_000 } });
    w.run(6000);
    expect(w.node.snapshot().rf.freqHz).toBe(868_700_000);
    expect(w.node.master).toBeNull();
    expect(w.node.configByte).toBe(0x01);
  });

  it('an OFFSET for another group is ignored; a matching one becomes pending', () => {
    const w = nodeWorld();
    bootQuietly(w);
    w.send('AABBCC', { op: 'SET_GROUP', groupId: 2 });
    w.run(400);
    w.send('FFFFFF', { op: 'OFFSET', groupId: 3, offset: { mode: 'EXPLICIT', offsetMs: 100 } });
    expect(w.node.led.pending).toBeNull();
    w.send('FFFFFF', { op: 'OFFSET', groupId: 2, offset: { mode: 'EXPLICIT', offsetMs: 100 } });
    expect(w.node.led.pending).toEqual({ mode: 'EXPLICIT', offsetMs: 100 });
  });
});

describe('simulated node: deafness while a reply waits (§8.5)', () => {
  it('a request sent while the node waits to reply is lost', () => {
    const w = nodeWorld();
    bootQuietly(w);
    w.send('AABBCC', { op: 'SET_GROUP', groupId: 1 });
    w.send('AABBCC', { op: 'SET_GROUP', groupId: 2 });
    w.run(500);
    expect(w.node.groupId).toBe(1);
    expect(w.replies()).toHaveLength(1);
  });
});

describe('simulated node: CONFIG, GET_CONFIG, GET_RF_CONFIG (§8.12)', () => {
  function bound(): ReturnType<typeof nodeWorld> {
    const w = nodeWorld();
    bootQuietly(w);
    w.send('AABBCC', { op: 'SET_GROUP', groupId: 2 });
    w.run(400);
    w.gw.got = [];
    return w;
  }

  it('AP open sets configByte bit 2 and shows the AP indicator for 3 s', () => {
    const w = bound();
    w.send('AABBCC', { op: 'CONFIG', option: 0x04, data: [1, 0, 0, 0] });
    expect(w.node.snapshot().indicator?.name).toBe('AP_ENABLED');
    w.run(400);
    expect(w.replies()).toEqual([{ kind: 'ACK', ackOf: 5, status: 0, seq: 0 }]);
    expect(w.node.configByte).toBe(0x05);
  });

  it('default brightness sets live brightness; reset restores every override', () => {
    const w = bound();
    w.send('AABBCC', { op: 'CONFIG', option: 0x09, data: [42, 0, 0, 0] });
    w.run(400);
    expect(w.node.led.bri).toBe(42);
    w.send('AABBCC', { op: 'CONFIG', option: 0x08, data: [0xe8, 0x03, 0, 0] });
    w.run(400);
    w.send('AABBCC', { op: 'CONFIG', option: 0x0f, data: [0, 0, 0, 0] });
    w.run(400);
    expect(w.node.snapshot().overrides).toEqual({
      fps: 75,
      ablMa: 0,
      seg0: { start: 0, stop: 200 },
      seg1: null,
      briS: 128,
      transitionMs: 700,
    });
    expect(w.node.led.bri).toBe(128);
  });

  it('RF_CONFIG with a failing flash is answered with ACK_ERROR (5) and changes nothing', () => {
    const w = bound();
    w.node.nvsFail = true;
    w.send('AABBCC', { op: 'RF_CONFIG', rf: { ...DEFAULT_RF, freqHz: 868_700_000 } });
    w.run(500);
    expect(w.replies()).toEqual([{ kind: 'ACK', ackOf: 0x0d, status: 5, seq: 0 }]);
    expect(w.node.snapshot().persisted.rf).toEqual(DEFAULT_RF);
  });

  it('GET_CONFIG to broadcast and GET_RF_CONFIG with reserved ≠ 0 get no reply', () => {
    const w = bound();
    w.send('FFFFFF', { op: 'GET_CONFIG', option: 0x05 });
    w.send('AABBCC', { op: 'GET_RF_CONFIG', reserved: 1 });
    w.run(500);
    expect(w.gw.got).toHaveLength(0);
    w.send('AABBCC', { op: 'GET_RF_CONFIG' });
    w.run(500);
    expect(w.replies()).toEqual([{ kind: 'RF_CONFIG_REPLY', rf: DEFAULT_RF }]);
  });

  it('startblock options answer only on startblock types', () => {
    const w = bound();
    w.send('AABBCC', { op: 'GET_CONFIG', option: 0x8c });
    w.run(500);
    expect(w.gw.got).toHaveLength(0);
    const sb = nodeWorld({ devType: 51 });
    bootQuietly(sb);
    sb.send('AABBCC', { op: 'SET_GROUP', groupId: 2 });
    sb.run(400);
    sb.gw.got = [];
    sb.send('AABBCC', { op: 'GET_CONFIG', option: 0x8d });
    sb.run(500);
    expect(sb.replies()).toEqual([{ kind: 'CONFIG_REPLY', option: 0x8d, data: [1, 0, 0, 0] }]);
  });

  it('STATUS reports flags, configByte, effect, brightness, battery and node-side link', () => {
    const w = bound();
    w.send('FFFFFF', { op: 'CONTROL', groupId: 2, flags: 0x05, fields: { brightness: 200, mode: 7 } });
    w.send('AABBCC', { op: 'STATUS', groupId: 2 });
    w.run(500);
    const r = w.replies()[0];
    expect(r).toMatchObject({
      kind: 'STATUS_REPLY',
      flags: 0x05,
      configByte: 0x01,
      effectId: 7,
      brightness: 200,
    });
    if (r?.kind !== 'STATUS_REPLY') return;
    expect(Math.abs(r.vbatMv - 4000)).toBeLessThanOrEqual(8);
    expect(r.rssi).toBeLessThanOrEqual(-62);
    expect(r.rssi).toBeGreaterThanOrEqual(-67);
  });
});
