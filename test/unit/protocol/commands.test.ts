import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RF,
  decodeGatewayCommand,
  encodeHostCommand,
  encodeRfConfig,
  m2nBodyLengthOk,
  type RawFrame,
} from '../../../src/protocol/index.ts';
import { hex } from './helpers.ts';

const m2nFrame = (type: number, bodyLen: number): RawFrame => ({
  type,
  data: new Uint8Array([0xaa, 0xbb, 0xcc, ...new Array<number>(bodyLen).fill(0x11)]),
});

describe('decodeGatewayCommand (§2.6 dispatch, §3.4 lengths)', () => {
  it.each([
    [0x01, 2, 3],
    [0x02, 1, 2],
    [0x03, 2, 1],
    [0x04, 4, 5],
    [0x05, 5, 4],
    [0x06, 4, 3],
    [0x06, 5, 6],
    [0x07, 1, 0],
    [0x07, 128, 129],
    [0x08, 3, 2],
    [0x08, 21, 22],
    [0x09, 2, 1],
    [0x09, 7, 8],
    [0x0a, 1, 2],
    [0x0b, 2, 3],
    [0x0c, 2, 1],
    [0x0d, 12, 11],
    [0x0e, 1, 2],
  ])('opcode 0x%s: body %i accepted, body %i ignored', (op, ok, bad) => {
    const g = decodeGatewayCommand(m2nFrame(op, ok));
    expect(g).toMatchObject({ kind: 'm2n', typeFull: op, receiver: 'AABBCC' });
    if (g?.kind === 'm2n') expect(g.body).toHaveLength(ok);
    expect(decodeGatewayCommand(m2nFrame(op, bad))).toBeNull();
    expect(m2nBodyLengthOk(op, ok)).toBe(true);
    expect(m2nBodyLengthOk(op, bad)).toBe(false);
  });

  it('unknown and N2M opcodes are ignored', () => {
    for (const op of [0x00, 0x0f, 0x10, 0x7e, 0x7f, 0x81, 0xfe]) {
      for (const n of [1, 2, 3, 5, 9, 12]) expect(decodeGatewayCommand(m2nFrame(op, n))).toBeNull();
    }
  });

  it('USB-only commands need LEN exactly 1 (or 14 for SET_RF_CONFIG)', () => {
    expect(decodeGatewayCommand({ type: 0x01, data: new Uint8Array(0) })).toEqual({ kind: 'identify' });
    expect(decodeGatewayCommand({ type: 0x7f, data: new Uint8Array(0) })).toEqual({ kind: 'state_request' });
    expect(decodeGatewayCommand({ type: 0x03, data: new Uint8Array(0) })).toEqual({ kind: 'get_rf' });
    // LEN 2/3 are neither USB commands nor M2N (LEN < 4)
    for (const t of [0x01, 0x02, 0x03, 0x7f]) {
      expect(decodeGatewayCommand({ type: t, data: new Uint8Array(1) })).toBeNull();
      expect(decodeGatewayCommand({ type: t, data: new Uint8Array(2) })).toBeNull();
    }
    expect(decodeGatewayCommand({ type: 0x02, data: new Uint8Array(0) })).toBeNull();
    // 0x7F with LEN 1 is STATE_REQUEST, with LEN >= 4 an unknown M2N opcode → ignored
    expect(decodeGatewayCommand(m2nFrame(0x7f, 1))).toBeNull();
  });

  it('0x01 with LEN >= 4 is an M2N DEVICES request', () => {
    expect(decodeGatewayCommand({ type: 0x01, data: hex('FF FF FF 00 00') })).toMatchObject({
      kind: 'm2n',
      typeFull: 0x01,
      receiver: 'FFFFFF',
    });
  });

  it('0x02 with LEN 14 is SET_RF_CONFIG before SET_GROUP; LEN 13/15 are ignored', () => {
    const rf = encodeRfConfig(DEFAULT_RF);
    expect(decodeGatewayCommand({ type: 0x02, data: new Uint8Array([0x03, ...rf]) })).toEqual({
      kind: 'set_rf',
      persistFlag: 3,
      rf: DEFAULT_RF,
      rfBytes: rf,
    });
    expect(decodeGatewayCommand({ type: 0x02, data: new Uint8Array(12) })).toBeNull();
    expect(decodeGatewayCommand({ type: 0x02, data: new Uint8Array(14) })).toBeNull();
    expect(decodeGatewayCommand({ type: 0x02, data: hex('AA BB CC 05') })).toMatchObject({
      kind: 'm2n',
      typeFull: 2,
    });
  });
});

describe('encodeHostCommand', () => {
  it('persist flag is exactly 0x01 or 0x00', () => {
    expect(encodeHostCommand({ kind: 'set_rf', persist: true, rf: DEFAULT_RF })[3]).toBe(1);
    expect(encodeHostCommand({ kind: 'set_rf', persist: false, rf: DEFAULT_RF })[3]).toBe(0);
  });
  it('largest M2N frame (STREAM 128) has LEN 132', () => {
    const f = encodeHostCommand({
      kind: 'm2n',
      receiver: 'FFFFFF',
      request: { op: 'STREAM', payload: new Uint8Array(128) },
    });
    expect(f[1]).toBe(132);
    expect(f).toHaveLength(134);
  });
  it('rejects an invalid receiver address', () => {
    expect(() =>
      encodeHostCommand({ kind: 'm2n', receiver: 'AABB', request: { op: 'SET_GROUP', groupId: 1 } }),
    ).toThrow(RangeError);
  });
});
