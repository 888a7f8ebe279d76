import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  StreamReassembler,
  computeOffsetMs,
  controlBodyLength,
  decodeLoraPacket,
  decodeRequestBody,
  encodeRequestBody,
  fragmentStream,
  type M2NRequest,
} from '../../../src/protocol/index.ts';
import { hex } from './helpers.ts';

const frag = (ctrl: number, fill = 0): Uint8Array =>
  new Uint8Array([ctrl, ...new Array<number>(8).fill(fill)]);

describe('fragmentStream', () => {
  it('single fragment has ctrl 0xC0 and is zero padded', () => {
    expect(fragmentStream(hex('01 02 03'))).toEqual([hex('C0 01 02 03 00 00 00 00 00')]);
  });
  it('16 fragments for 128 bytes, packets_left counting down', () => {
    const p = Uint8Array.from({ length: 128 }, (_, i) => i);
    const f = fragmentStream(p);
    expect(f).toHaveLength(16);
    expect(f.map((x) => x[0])).toEqual([0x8f, ...Array.from({ length: 14 }, (_, i) => 14 - i), 0x40]);
    expect(f[15]?.subarray(1)).toEqual(p.subarray(120));
  });
  it('rejects empty and oversized payloads', () => {
    expect(() => fragmentStream(new Uint8Array(0))).toThrow(RangeError);
    expect(() => fragmentStream(new Uint8Array(129))).toThrow(RangeError);
  });
});

describe('StreamReassembler (§6.7)', () => {
  it('reassembles any fragmented payload into the padded buffer', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 128 }), (p) => {
        const r = new StreamReassembler();
        const frags = fragmentStream(p);
        const results = frags.map((f) => r.push(f));
        const k = frags.length;
        expect(results.slice(0, -1).every((x) => x === null)).toBe(true);
        const out = results[k - 1];
        expect(out).toHaveLength(8 * k);
        expect(out?.subarray(0, p.length)).toEqual(p);
        expect(out?.subarray(p.length).every((b) => b === 0)).toBe(true);
        expect(r.errors).toBe(0);
      }),
      { seed: 7, numRuns: 200 },
    );
  });

  it('ignores bodies that are not exactly 9 bytes', () => {
    const r = new StreamReassembler();
    expect(r.push(hex('C0 01'))).toBeNull();
    expect(r.push(new Uint8Array(10).fill(0xc0))).toBeNull();
    expect(r.errors).toBe(2);
  });

  it('error: packets_left >= 16', () => {
    const r = new StreamReassembler();
    expect(r.push(frag(0x80 | 16))).toBeNull();
    expect(r.inProgress).toBe(false);
    expect(r.errors).toBe(1);
  });

  it('error: START+STOP with packets_left != 0', () => {
    const r = new StreamReassembler();
    expect(r.push(frag(0xc1))).toBeNull();
    expect(r.errors).toBe(1);
  });

  it('error: START without STOP and packets_left == 0', () => {
    const r = new StreamReassembler();
    expect(r.push(frag(0x80))).toBeNull();
    expect(r.inProgress).toBe(false);
    expect(r.errors).toBe(1);
  });

  it('error: non-START fragment while no stream is active', () => {
    const r = new StreamReassembler();
    expect(r.push(frag(0x40))).toBeNull();
    expect(r.push(frag(0x02))).toBeNull();
    expect(r.errors).toBe(2);
  });

  it('error: STOP with packets_left != 0, or after a fragment whose packets_left != 1', () => {
    const r = new StreamReassembler();
    r.push(frag(0x82, 1));
    expect(r.push(frag(0x41))).toBeNull(); // STOP with left 1
    expect(r.push(frag(0x40))).toBeNull(); // previous left is 2, not 1
    expect(r.errors).toBe(2);
    expect(r.push(frag(0x01, 2))).toBeNull(); // still in progress: the middle fragment fits
    expect(r.push(frag(0x40, 3))).toEqual(
      new Uint8Array([
        ...new Array<number>(8).fill(1),
        ...new Array<number>(8).fill(2),
        ...new Array<number>(8).fill(3),
      ]),
    );
  });

  it('error: middle fragment that is not exactly previous - 1', () => {
    const r = new StreamReassembler();
    r.push(frag(0x83, 1));
    expect(r.push(frag(0x01))).toBeNull(); // skipped 2
    expect(r.push(frag(0x03))).toBeNull(); // repeated 3
    expect(r.errors).toBe(2);
    expect(r.push(frag(0x02))).toBeNull();
    expect(r.errors).toBe(2);
  });

  it('a START always restarts reassembly', () => {
    const r = new StreamReassembler();
    r.push(frag(0x81, 9));
    expect(r.push(frag(0x81, 1))).toBeNull();
    expect(r.push(frag(0x40, 2))).toEqual(
      new Uint8Array([...new Array<number>(8).fill(1), ...new Array<number>(8).fill(2)]),
    );
    expect(r.inProgress).toBe(false);
    // completed stream: a trailing STOP is an error
    expect(r.push(frag(0x40))).toBeNull();
    expect(r.errors).toBe(1);
  });
});

describe('computeOffsetMs (§6.9)', () => {
  it('NONE and EXPLICIT', () => {
    expect(computeOffsetMs({ mode: 'NONE' }, 7)).toBe(0);
    expect(computeOffsetMs({ mode: 'EXPLICIT', offsetMs: 750 }, 4)).toBe(750);
    expect(computeOffsetMs({ mode: 'EXPLICIT', offsetMs: 65535 }, 4)).toBe(65535);
  });
  it('LINEAR: base + g*step, clamped', () => {
    expect(computeOffsetMs({ mode: 'LINEAR', baseMs: 0, stepMs: 200 }, 3)).toBe(600);
    expect(computeOffsetMs({ mode: 'LINEAR', baseMs: -100, stepMs: 10 }, 5)).toBe(0);
    expect(computeOffsetMs({ mode: 'LINEAR', baseMs: -100, stepMs: 30 }, 5)).toBe(50);
    expect(computeOffsetMs({ mode: 'LINEAR', baseMs: 32767, stepMs: 32767 }, 255)).toBe(65535);
    expect(computeOffsetMs({ mode: 'LINEAR', baseMs: 1000, stepMs: -32768 }, 255)).toBe(0);
  });
  it('VSHAPE: base + |g - center|*step', () => {
    const v = { mode: 'VSHAPE', baseMs: -100, stepMs: 150, center: 3 } as const;
    expect([0, 1, 2, 3, 4, 5, 6].map((g) => computeOffsetMs(v, g))).toEqual([350, 200, 50, 0, 50, 200, 350]);
  });
  it('MODULO: base + (g mod cycle)*step, cycle 0 treated as 1', () => {
    const m = { mode: 'MODULO', baseMs: 10, stepMs: 100, cycle: 3 } as const;
    expect([0, 1, 2, 3, 4, 5].map((g) => computeOffsetMs(m, g))).toEqual([10, 110, 210, 10, 110, 210]);
    expect(computeOffsetMs({ mode: 'MODULO', baseMs: 10, stepMs: 100, cycle: 0 }, 5)).toBe(10);
  });
});

describe('request bodies', () => {
  it('optional fields default to 0 / 4-byte SYNC form', () => {
    expect(encodeRequestBody({ op: 'DEVICES', groupId: 3 })).toEqual(hex('03 00'));
    expect(encodeRequestBody({ op: 'STATUS', groupId: 3 })).toEqual(hex('03 00'));
    expect(encodeRequestBody({ op: 'SYNC', ts24: 1, brightness: 2 })).toEqual(hex('01 00 00 02'));
    expect(encodeRequestBody({ op: 'SYNC', ts24: 1, brightness: 2, flags: 0 })).toEqual(
      hex('01 00 00 02 00'),
    );
    expect(encodeRequestBody({ op: 'GET_RF_CONFIG' })).toEqual(hex('00'));
  });

  it.each<[M2NRequest, string]>([
    [{ op: 'SET_GROUP', groupId: 256 }, 'groupId'],
    [{ op: 'PRESET', groupId: 1, flags: 1, presetId: -1, brightness: 1 }, 'presetId'],
    [{ op: 'PRESET', groupId: 1, flags: 1, presetId: 1, brightness: 1.5 }, 'brightness'],
    [{ op: 'SYNC', ts24: 0x1000000, brightness: 0 }, 'ts24'],
    [{ op: 'CONFIG', option: 6, data: [0, 0, 0, 300] }, 'data3'],
    [{ op: 'STREAM', payload: new Uint8Array(0) }, 'payload'],
    [{ op: 'STREAM', payload: new Uint8Array(129) }, 'payload'],
    [{ op: 'CONTROL', groupId: 1, flags: 0, fields: { custom3: 32 } }, 'custom3'],
    [{ op: 'CONTROL', groupId: 1, flags: 0, fields: { speed: 300 } }, 'speed'],
    [{ op: 'CONTROL', groupId: 1, flags: 0, fields: { color2: [0, 256, 0] } }, 'color2'],
    [{ op: 'OFFSET', groupId: 1, offset: { mode: 'LINEAR', baseMs: -32769, stepMs: 0 } }, 'baseMs'],
    [{ op: 'OFFSET', groupId: 1, offset: { mode: 'LINEAR', baseMs: 0, stepMs: 32768 } }, 'stepMs'],
    [{ op: 'OFFSET', groupId: 1, offset: { mode: 'EXPLICIT', offsetMs: 65536 } }, 'offsetMs'],
    [{ op: 'OFFSET', groupId: 1, offset: { mode: 'MODULO', baseMs: 0, stepMs: 0, cycle: 256 } }, 'cycle'],
    [
      {
        op: 'RF_CONFIG',
        rf: { freqHz: 2 ** 32, bwKhzX10: 1250, sf: 7, crDen: 5, syncWord: 0x12, txPowerDbm: 14, preamble: 8 },
      },
      'freqHz',
    ],
    [
      {
        op: 'RF_CONFIG',
        rf: { freqHz: 868e6, bwKhzX10: 1250, sf: 7, crDen: 5, syncWord: 0x12, txPowerDbm: 128, preamble: 8 },
      },
      'txPowerDbm',
    ],
  ])('encode %j throws RangeError naming %s', (req, field) => {
    expect(() => encodeRequestBody(req)).toThrow(RangeError);
    expect(() => encodeRequestBody(req)).toThrow(field);
  });

  it('CONTROL: c3checks emitted when any part is given; ext only with ext fields', () => {
    expect(encodeRequestBody({ op: 'CONTROL', groupId: 1, flags: 5, fields: {} })).toEqual(hex('01 05 00'));
    expect(encodeRequestBody({ op: 'CONTROL', groupId: 1, flags: 5, fields: { check2: true } })).toEqual(
      hex('01 05 40 40'),
    );
    expect(encodeRequestBody({ op: 'CONTROL', groupId: 1, flags: 5, fields: { color3: [1, 2, 3] } })).toEqual(
      hex('01 05 80 08 01 02 03'),
    );
    expect(controlBodyLength({})).toBe(3);
    expect(controlBodyLength({ brightness: 1, custom3: 1, color1: [0, 0, 0] })).toBe(3 + 1 + 1 + 1 + 3);
  });

  it('CONTROL decode rejects short and long bodies', () => {
    expect(decodeRequestBody(0x08, hex('01 05'))).toBeNull();
    expect(decodeRequestBody(0x08, hex('01 05 03 C8'))).toBeNull(); // mode missing
    expect(decodeRequestBody(0x08, hex('01 05 01 C8 02'))).toBeNull(); // trailing byte
    expect(decodeRequestBody(0x08, hex('01 05 80'))).toBeNull(); // extMask missing
    expect(decodeRequestBody(0x08, hex('01 05 80 02 FF 80'))).toBeNull(); // colour cut short
    expect(decodeRequestBody(0x08, hex('01 05 80 00'))).toEqual({
      op: 'CONTROL',
      groupId: 1,
      flags: 5,
      fields: {},
    });
    expect(decodeRequestBody(0x08, new Uint8Array(22))).toBeNull();
  });

  it('OFFSET decode requires mode and length to match', () => {
    expect(decodeRequestBody(0x09, hex('FF 00 00'))).toBeNull();
    expect(decodeRequestBody(0x09, hex('FF 01 EE'))).toBeNull();
    expect(decodeRequestBody(0x09, hex('FF 02 00 00 C8 00 00'))).toBeNull();
    expect(decodeRequestBody(0x09, hex('FF 03 00 00 C8 00'))).toBeNull();
    expect(decodeRequestBody(0x09, hex('FF 05 00 00 C8 00 00'))).toBeNull();
    expect(decodeRequestBody(0x09, hex('FF'))).toBeNull();
    expect(decodeRequestBody(0x09, hex('FF 04 00 00 C8 00 00'))).toEqual({
      op: 'OFFSET',
      groupId: 255,
      offset: { mode: 'MODULO', baseMs: 0, stepMs: 200, cycle: 0 },
    });
  });

  it('exact lengths for fixed-size bodies; SYNC 4 or 5; unknown opcodes', () => {
    const fixed: [number, number][] = [
      [0x01, 2],
      [0x02, 1],
      [0x03, 2],
      [0x04, 4],
      [0x05, 5],
      [0x0a, 1],
      [0x0b, 2],
      [0x0c, 2],
      [0x0d, 12],
      [0x0e, 1],
    ];
    for (const [op, n] of fixed) {
      expect(decodeRequestBody(op, new Uint8Array(n))).not.toBeNull();
      expect(decodeRequestBody(op, new Uint8Array(n + 1))).toBeNull();
      expect(decodeRequestBody(op, new Uint8Array(n - 1))).toBeNull();
    }
    expect(decodeRequestBody(0x06, new Uint8Array(3))).toBeNull();
    expect(decodeRequestBody(0x06, new Uint8Array(6))).toBeNull();
    expect(decodeRequestBody(0x06, hex('01 02 03 04 01'))).toEqual({
      op: 'SYNC',
      ts24: 0x030201,
      brightness: 4,
      flags: 1,
    });
    expect(decodeRequestBody(0x07, new Uint8Array(0))).toBeNull();
    expect(decodeRequestBody(0x00, new Uint8Array(2))).toBeNull();
    expect(decodeRequestBody(0x7e, new Uint8Array(3))).toBeNull();
    expect(decodeRequestBody(0x81, new Uint8Array(9))).toBeNull();
  });

  it('decodeLoraPacket needs at least 7 bytes', () => {
    expect(decodeLoraPacket(hex('AA BB CC 10 20 30'))).toBeNull();
  });
});
