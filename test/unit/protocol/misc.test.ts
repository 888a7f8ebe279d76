import { describe, expect, it } from 'vitest';
import {
  CONFIG_BYTE,
  CONFIG_OPTIONS,
  DEVICE_TYPES,
  FLAG,
  RAW_CONFIG_OPTIONS,
  SYNC_FLAG_TRIGGER_ARMED,
  addrToBytes,
  buildControlFlags,
  bytesToAddr,
  configOptionInfo,
  decodeGatewayInbound,
  deviceTypeInfo,
  encodeGatewayInbound,
  isBroadcast,
  macToString,
  normalizeAddr,
  packConfigValue,
  rejectReasonName,
  stateName,
  unpackConfigValue,
  userFlagsFromObject,
  userFlagsToObject,
} from '../../../src/protocol/index.ts';
import { hex } from './helpers.ts';

describe('addresses', () => {
  it.each([
    ['aabbcc', 'AABBCC'],
    ['AA:BB:CC', 'AABBCC'],
    ['aa-bb-cc', 'AABBCC'],
    ['24:6F:28:AA:BB:CC', 'AABBCC'],
    ['24-6f-28-aa-bb-cc', 'AABBCC'],
    ['246F28AABBCC', 'AABBCC'],
    [' ffffff ', 'FFFFFF'],
    ['0x1a2b3c4', 'A2B3C4'],
  ])('normalizeAddr(%j) = %s', (input, out) => {
    expect(normalizeAddr(input)).toBe(out);
  });

  it.each(['', 'AABBC', 'AA:BB', 'xyz', 'GGGGGG'])('normalizeAddr(%j) = null', (input) => {
    expect(normalizeAddr(input)).toBeNull();
  });

  it('bytes conversion, MAC string, broadcast', () => {
    expect(addrToBytes('AABBCC')).toEqual(hex('AA BB CC'));
    expect(addrToBytes('aabbcc')).toEqual(hex('AA BB CC'));
    expect(() => addrToBytes('AABBC')).toThrow(RangeError);
    expect(bytesToAddr(hex('00 10 20 30'), 1)).toBe('102030');
    expect(() => bytesToAddr(hex('10 20'))).toThrow(RangeError);
    expect(macToString(hex('24 6F 28 AA BB CC'))).toBe('246F28AABBCC');
    expect(isBroadcast('FFFFFF')).toBe(true);
    expect(isBroadcast('ffffff')).toBe(true);
    expect(isBroadcast('FFFFFE')).toBe(false);
  });
});

describe('flags', () => {
  it('constants', () => {
    expect(FLAG).toEqual({
      POWER_ON: 1,
      ARM_ON_SYNC: 2,
      HAS_BRI: 4,
      FORCE_TT0: 8,
      FORCE_REAPPLY: 16,
      OFFSET_MODE: 32,
    });
    expect(CONFIG_BYTE).toEqual({ MAC_FILTER: 1, MASTER_PERSIST: 2, AP_ACTIVE: 4 });
    expect(SYNC_FLAG_TRIGGER_ARMED).toBe(1);
  });

  it('user flags object conversion', () => {
    expect(userFlagsFromObject({ arm_on_sync: true, offset_mode: true })).toBe(0x22);
    expect(userFlagsFromObject({ force_tt0: true, force_reapply: true })).toBe(0x18);
    expect(userFlagsFromObject({})).toBe(0);
    expect(userFlagsToObject(0x3f)).toEqual({
      arm_on_sync: true,
      force_tt0: true,
      force_reapply: true,
      offset_mode: true,
    });
    expect(userFlagsToObject(0x05)).toEqual({
      arm_on_sync: false,
      force_tt0: false,
      force_reapply: false,
      offset_mode: false,
    });
  });

  it('buildControlFlags: HAS_BRI always, POWER_ON iff brightness > 0 or no brightness', () => {
    expect(buildControlFlags(0, 200)).toBe(0x05);
    expect(buildControlFlags(0, 0)).toBe(0x04);
    expect(buildControlFlags(0, undefined)).toBe(0x05);
    expect(buildControlFlags(FLAG.ARM_ON_SYNC, 255)).toBe(0x07);
    // caller-supplied POWER_ON/HAS_BRI/reserved bits do not leak through
    expect(buildControlFlags(0xff, 0)).toBe(0x3e & ~FLAG.POWER_ON);
  });
});

describe('device types', () => {
  it('table with neutral names and sorted caps', () => {
    expect(deviceTypeInfo(1)).toEqual({ code: 1, name: 'Gateway_Rev1', caps: [] });
    expect(deviceTypeInfo(12)).toEqual({ code: 12, name: 'LED_Rev4', caps: ['LED'] });
    expect(deviceTypeInfo(14)).toEqual({ code: 14, name: 'LED_Eth_Gledopto', caps: ['LED'] });
    expect(deviceTypeInfo(50)).toEqual({
      code: 50,
      name: 'LED_Startblock_Rev3',
      caps: ['LED', 'STARTBLOCK'],
    });
    expect(deviceTypeInfo(51)).toEqual({ code: 51, name: 'LED_Startblock_HWP', caps: ['LED', 'STARTBLOCK'] });
    expect(deviceTypeInfo(99)).toEqual({ code: 99, name: 'UNKNOWN_99', caps: [] });
    expect(DEVICE_TYPES.map((d) => d.code)).toEqual([1, 10, 11, 12, 13, 14, 50, 51]);
    expect(DEVICE_TYPES.map((d) => d.name)).toContain('LED_Rev1');
  });
});

describe('config options', () => {
  it('table properties', () => {
    const readable = CONFIG_OPTIONS.filter((o) => o.readable).map((o) => o.option);
    expect(readable).toEqual([0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x8c, 0x8d]);
    const led = CONFIG_OPTIONS.filter((o) => o.capability === 'LED').map((o) => o.option);
    expect(led).toEqual([0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0f]);
    for (const o of [0x01, 0x02, 0x03, 0x04, 0x80, 0x81]) expect(configOptionInfo(o)?.capability).toBeNull();
    expect(configOptionInfo(0x8c)?.capability).toBe('STARTBLOCK');
    expect(RAW_CONFIG_OPTIONS).toEqual([0x01, 0x03, 0x04, 0x80, 0x81]);
    expect(new Set(CONFIG_OPTIONS.map((o) => o.name)).size).toBe(CONFIG_OPTIONS.length);
  });

  it('packing per kind (TV-25, TV-28)', () => {
    expect(packConfigValue(0x06, { start: 0, stop: 150 })).toEqual([0, 0, 0x96, 0]);
    expect(packConfigValue(0x04, 1)).toEqual([1, 0, 0, 0]);
    expect(packConfigValue(0x08, 1500)).toEqual([0xdc, 0x05, 0, 0]);
    expect(packConfigValue(0x05, 250)).toEqual([250, 0, 0, 0]);
    expect(packConfigValue(0x8d, 8)).toEqual([8, 0, 0, 0]);
    expect(packConfigValue(0x81, 1)).toEqual([1, 0, 0, 0]);
    expect(packConfigValue(0x42, 7)).toEqual([7, 0, 0, 0]);
  });

  it('out-of-range values throw naming the option', () => {
    expect(() => packConfigValue(0x05, 251)).toThrow('target_fps');
    expect(() => packConfigValue(0x8c, 0)).toThrow('startblock_slots');
    expect(() => packConfigValue(0x8c, 9)).toThrow(RangeError);
    expect(() => packConfigValue(0x01, 2)).toThrow('mac_filter');
    expect(() => packConfigValue(0x0a, 65536)).toThrow('transition_ms');
    expect(() => packConfigValue(0x06, { start: 0, stop: 65536 })).toThrow('segment0.stop');
    expect(() => packConfigValue(0x06, 5)).toThrow(RangeError);
    expect(() => packConfigValue(0x05, { start: 0, stop: 1 })).toThrow(RangeError);
  });

  it('unpacking', () => {
    expect(unpackConfigValue(0x06, [0, 0, 0x96, 0])).toEqual({ start: 0, stop: 150 });
    expect(unpackConfigValue(0x08, [0xdc, 0x05, 9, 9])).toBe(1500);
    expect(unpackConfigValue(0x05, [75, 1, 2, 3])).toBe(75);
    expect(unpackConfigValue(0x01, [5, 0, 0, 0])).toBe(1);
    for (const o of CONFIG_OPTIONS.filter((x) => x.kind !== 'method')) {
      const v = o.kind === 'pair' ? { start: 3, stop: 200 } : o.range[1];
      expect(unpackConfigValue(o.option, packConfigValue(o.option, v))).toEqual(v);
    }
  });
});

describe('events', () => {
  it('names', () => {
    expect([0, 1, 2, 3, 0xfe, 0xff, 0x42].map(stateName)).toEqual([
      'IDLE',
      'TX',
      'RX_WINDOW',
      'RX',
      'ERROR',
      'UNKNOWN',
      '0x42',
    ]);
    expect([1, 2, 3, 0xff].map(rejectReasonName)).toEqual(['txPending', 'oversize', 'zeroLen', 'unknown']);
  });

  it('state metadata only for RX_WINDOW; clamped', () => {
    expect(encodeGatewayInbound({ kind: 'state', report: false, state: 1, metadataMs: 500 })).toEqual(
      hex('00 02 F1 01'),
    );
    expect(encodeGatewayInbound({ kind: 'state', report: false, state: 2, metadataMs: 70000 })).toEqual(
      hex('00 04 F1 02 FF FF'),
    );
    expect(decodeGatewayInbound({ type: 0xf1, data: hex('00 E8 03') })).toEqual({
      kind: 'state',
      report: false,
      state: 0,
      metadataMs: 1000,
    });
  });

  it('forwarded packet: truncation to 32 bytes, RSSI/SNR truncation and clamping', () => {
    const packet = { sender: 'AABBCC', receiver: 'FFFFFF', typeFull: 0x07, body: new Uint8Array(30).fill(7) };
    const f = encodeGatewayInbound({ kind: 'packet', packet, rssi: -87.5, snr: 200, reply: null });
    expect(f[1]).toBe(1 + 32 + 3);
    expect(Array.from(f.subarray(-3))).toEqual([0xa9, 0xff, 0x7f]);
    const d = decodeGatewayInbound({ type: f[2] as number, data: f.subarray(3) });
    expect(d).toMatchObject({ kind: 'packet', rssi: -87, snr: 127, reply: null });
    if (d?.kind === 'packet') expect(d.packet.body).toHaveLength(25);
    const g = encodeGatewayInbound({ kind: 'packet', packet, rssi: -40000, snr: -3.25, reply: null });
    expect(Array.from(g.subarray(-3))).toEqual([0x00, 0x80, 0xfd]);
  });

  it('M2N packets heard from other masters decode with reply null', () => {
    const d = decodeGatewayInbound({ type: 0x06, data: hex('11 22 33 FF FF FF 06 C0 D4 01 80 C4 FF 0A') });
    expect(d).toMatchObject({
      kind: 'packet',
      packet: { sender: '112233', receiver: 'FFFFFF', typeFull: 6 },
      reply: null,
      rssi: -60,
      snr: 10,
    });
  });

  it('invalid frames decode to null', () => {
    expect(decodeGatewayInbound({ type: 0xf3, data: hex('01 01') })).toBeNull();
    expect(decodeGatewayInbound({ type: 0xf6, data: new Uint8Array(12) })).toBeNull();
    expect(decodeGatewayInbound({ type: 0x81, data: new Uint8Array(9) })).toBeNull();
    expect(decodeGatewayInbound({ type: 0x81, data: hex('AA BB CC 10 20 30 82 00 00 00') })).toBeNull();
  });
});
