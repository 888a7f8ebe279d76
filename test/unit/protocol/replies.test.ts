import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RF,
  decodeRfConfig,
  decodeReplyBody,
  encodeReplyBody,
  encodeRfConfig,
  replyTypeFull,
  validateRfConfig,
  type RfConfig,
} from '../../../src/protocol/index.ts';
import { hex } from './helpers.ts';

describe('replies', () => {
  it('STATUS_REPLY legacy 7-byte form', () => {
    const r = decodeReplyBody(0x83, hex('05 02 80 93 0F A4 07'));
    expect(r).toEqual({
      kind: 'STATUS_REPLY',
      flags: 5,
      configByte: 0,
      effectId: 2,
      brightness: 128,
      vbatMv: 3987,
      rssi: -92,
      snr: 7,
      legacy: true,
    });
    expect(encodeReplyBody(r)).toEqual(hex('05 02 80 93 0F A4 07'));
  });

  it('ACK ackOf masks bit 7', () => {
    expect(decodeReplyBody(0xfe, hex('82 00 00'))).toEqual({ kind: 'ACK', ackOf: 2, status: 0, seq: 0 });
  });

  it('mis-sized, unknown and M2N types decode as UNKNOWN without throwing', () => {
    const cases: [number, string][] = [
      [0x81, '02 0C 00 24 6F 28 AA BB'],
      [0x83, '05 01 02 80 93 0F'],
      [0x83, '05 01 02 80 93 0F A4 07 00'],
      [0xfe, '02 00 00 00'],
      [0x8a, '06 00 00 96'],
      [0x8e, '40 AE BF 33 E2 04 07 05 12 0E 08'],
      [0x85, '00'],
      [0x01, '02 0C 00 24 6F 28 AA BB CC'],
    ];
    for (const [t, b] of cases) {
      expect(decodeReplyBody(t, hex(b))).toEqual({ kind: 'UNKNOWN', opcode: t & 0x7f, body: hex(b) });
    }
    expect(decodeReplyBody(0x81, new Uint8Array(0)).kind).toBe('UNKNOWN');
  });

  it('reply type bytes', () => {
    expect(
      replyTypeFull({ kind: 'IDENTIFY_REPLY', fw: 2, devType: 12, groupId: 0, mac: '246F28AABBCC' }),
    ).toBe(0x81);
    expect(replyTypeFull({ kind: 'ACK', ackOf: 5, status: 0, seq: 0 })).toBe(0xfe);
    expect(replyTypeFull({ kind: 'CONFIG_REPLY', option: 6, data: [0, 0, 0, 0] })).toBe(0x8a);
    expect(replyTypeFull({ kind: 'RF_CONFIG_REPLY', rf: DEFAULT_RF })).toBe(0x8e);
  });

  it('encode throws RangeError naming the field', () => {
    expect(() => encodeReplyBody({ kind: 'ACK', ackOf: 2, status: 256, seq: 0 })).toThrow('status');
    expect(() =>
      encodeReplyBody({ kind: 'IDENTIFY_REPLY', fw: 2, devType: 12, groupId: 0, mac: 'AABB' }),
    ).toThrow('mac');
    expect(() =>
      encodeReplyBody({
        kind: 'STATUS_REPLY',
        flags: 0,
        configByte: 0,
        effectId: 0,
        brightness: 0,
        vbatMv: 0,
        rssi: -129,
        snr: 0,
        legacy: false,
      }),
    ).toThrow('rssi');
  });
});

describe('P_RfConfig', () => {
  it('default encodes as documented and round-trips at an offset', () => {
    const b = encodeRfConfig(DEFAULT_RF);
    expect(b).toEqual(hex('20 0D B8 33 E2 04 07 05 12 0E 08 00'));
    expect(decodeRfConfig(new Uint8Array([9, ...b]), 1)).toEqual(DEFAULT_RF);
    expect(() => decodeRfConfig(b, 1)).toThrow(RangeError);
  });

  it('negative TX power is an i8', () => {
    const rf = { ...DEFAULT_RF, txPowerDbm: -9 };
    expect(encodeRfConfig(rf)[9]).toBe(0xf7);
    expect(decodeRfConfig(encodeRfConfig(rf))).toEqual(rf);
  });

  it('validation per §7.6 names the failing field', () => {
    const ok = (p: Partial<RfConfig>): string | null => validateRfConfig({ ...DEFAULT_RF, ...p });
    expect(ok({})).toBeNull();
    expect(ok({ freqHz: 863_000_000 })).toBeNull();
    expect(ok({ freqHz: 928_000_000 })).toBeNull();
    expect(ok({ freqHz: 862_999_999 })).toBe('freqHz');
    expect(ok({ freqHz: 928_000_001 })).toBe('freqHz');
    for (const bw of [78, 104, 156, 208, 313, 417, 625, 1250, 2500, 5000])
      expect(ok({ bwKhzX10: bw })).toBeNull();
    expect(ok({ bwKhzX10: 1251 })).toBe('bwKhzX10');
    expect(ok({ sf: 5 })).toBeNull();
    expect(ok({ sf: 12 })).toBeNull();
    expect(ok({ sf: 4 })).toBe('sf');
    expect(ok({ sf: 13 })).toBe('sf');
    expect(ok({ crDen: 8 })).toBeNull();
    expect(ok({ crDen: 4 })).toBe('crDen');
    expect(ok({ crDen: 9 })).toBe('crDen');
    expect(ok({ txPowerDbm: -9 })).toBeNull();
    expect(ok({ txPowerDbm: 22 })).toBeNull();
    expect(ok({ txPowerDbm: -10 })).toBe('txPowerDbm');
    expect(ok({ txPowerDbm: 23 })).toBe('txPowerDbm');
    expect(ok({ preamble: 6 })).toBeNull();
    expect(ok({ preamble: 5 })).toBe('preamble');
    expect(ok({ syncWord: 0x34 })).toBeNull();
  });
});
