import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  GatewayFrameDecoder,
  HostFrameDecoder,
  decodeGatewayCommand,
  encodeFrame,
  encodeGatewayInbound,
  encodeIdentifyAnswer,
  type DecodedItem,
  type RawFrame,
} from '../../../src/protocol/index.ts';
import { inboundArb } from './arbitraries.ts';
import { hex } from './helpers.ts';

const opts = { seed: 0xf00d, numRuns: 300 };

function frames(items: DecodedItem[]): string[] {
  return items.map((i) =>
    i.kind === 'frame'
      ? `${i.frame.type.toString(16)}:${Buffer.from(i.frame.data).toString('hex')}`
      : `id:${i.mac}`,
  );
}

const key = (bytes: Uint8Array): string => {
  const f = { type: bytes[2] as number, data: bytes.subarray(3) };
  return `${f.type.toString(16)}:${Buffer.from(f.data).toString('hex')}`;
};

/** Splits bytes at the given fractional cut points. */
function split(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const idx = [...new Set(cuts.map((c) => Math.floor(c * (bytes.length + 1))))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const i of idx) {
    if (i > prev && i < bytes.length) {
      out.push(bytes.subarray(prev, i));
      prev = i;
    }
  }
  out.push(bytes.subarray(prev));
  return out;
}

describe('encodeFrame', () => {
  it('builds SOF, LEN, TYPE, DATA', () => {
    expect(encodeFrame(0x7f)).toEqual(hex('00 01 7F'));
    expect(encodeFrame(0xf4, hex('08 01'))).toEqual(hex('00 03 F4 08 01'));
    expect(encodeFrame(1, new Uint8Array(254))).toHaveLength(257);
  });
  it('throws RangeError when LEN > 255', () => {
    expect(() => encodeFrame(1, new Uint8Array(255))).toThrow(RangeError);
  });
});

describe('HostFrameDecoder', () => {
  it('treats 0x00 in LEN position as a new SOF', () => {
    const d = new HostFrameDecoder();
    expect(frames(d.push(hex('00 00 00 02 F3 01'), 0))).toEqual(['f3:01']);
    expect(d.droppedBytes).toBe(2);
    expect(d.framesOk).toBe(1);
  });

  it('resyncs on LEN > maxLen', () => {
    const d = new HostFrameDecoder();
    expect(frames(d.push(hex('00 41 00 02 F3 01'), 0))).toEqual(['f3:01']);
    expect(frames(new HostFrameDecoder({ maxLen: 0x41 }).push(hex('00 41 00 02 F3 01'), 0))).toEqual([]);
  });

  it('on validation failure resumes at the byte after the rejected SOF', () => {
    const d = new HostFrameDecoder();
    // LEN 3 claims TX_DONE with two data bytes (invalid) and swallows the next frame's SOF
    expect(frames(d.push(hex('00 03 F3 01 00 02 F1 00'), 0))).toEqual(['f1:00']);
    // a bogus 00 nn inside garbage that swallows a complete real frame
    expect(frames(d.push(hex('00 06 00 02 F3 01 AA BB'), 1))).toEqual(['f3:01']);
  });

  it('rejects a forwarded packet whose DATA[6] does not repeat the TYPE, or that is too short', () => {
    const d = new HostFrameDecoder();
    expect(frames(d.push(hex('00 0E FE AA BB CC 10 20 30 FD 02 00 00 A8 FF 08'), 0))).toEqual([]);
    expect(frames(d.push(hex('00 0A FE AA BB CC 10 20 30 FE A8 FF'), 0))).toEqual([]);
    expect(frames(d.push(hex('00 0B FE AA BB CC 10 20 30 FE A8 FF 08'), 0))).toEqual([
      'fe:aabbcc102030fea8ff08',
    ]);
  });

  it('validates event lengths', () => {
    const d = new HostFrameDecoder();
    const bad = [
      '00 03 F1 01 02',
      '00 01 F3',
      '00 03 F3 01 01',
      '00 02 F4 01',
      '00 0D F6' + ' 00'.repeat(12),
    ];
    for (const b of bad) expect(frames(d.push(hex(b), 0))).toEqual([]);
    expect(frames(d.push(hex('00 01 F0'), 0))).toEqual(['f0:']);
    expect(frames(d.push(hex('00 04 F5 02 E8 03'), 0))).toEqual(['f5:02e803']);
  });

  it('discards a partial frame after the timeout, but recovers a frame inside it', () => {
    const d = new HostFrameDecoder({ partialTimeoutMs: 50 });
    expect(d.push(hex('00 05 F1'), 0)).toEqual([]);
    expect(frames(d.push(hex('00 02 F3 01'), 100))).toEqual(['f3:01']);
    // within the timeout the bytes are appended to the partial frame; LEN 5 then fails
    // validation and the re-scan still finds the real frame
    expect(d.push(hex('00 05 F1'), 200)).toEqual([]);
    expect(frames(d.push(hex('00 02 F3 01'), 230))).toEqual(['f3:01']);
    // a real frame buried in a stale bogus candidate is recovered when the gap is noticed
    expect(d.push(hex('00 20 00 02 F1 00'), 300)).toEqual([]);
    expect(frames(d.push(new Uint8Array(0), 351))).toEqual(['f1:00']);
  });

  it('timeout boundary: exactly partialTimeoutMs keeps the partial frame', () => {
    const d = new HostFrameDecoder({ partialTimeoutMs: 50 });
    d.push(hex('00 02'), 0);
    expect(frames(d.push(hex('F3 01'), 50))).toEqual(['f3:01']);
    d.push(hex('00 02'), 100);
    expect(frames(d.push(hex('F3 01'), 151))).toEqual([]);
  });

  it('reset() drops the partial frame', () => {
    const d = new HostFrameDecoder();
    d.push(hex('00 02'), 0);
    d.reset();
    expect(d.push(hex('F3 01'), 1)).toEqual([]);
  });

  const ident = encodeIdentifyAnswer('48:CA:43:10:20:30');

  it('finds the identify answer split across chunks after event frames', () => {
    const stream = new Uint8Array([...hex('00 02 F1 00 00 02 F1 01 00 02 F3 01 00 02 F1 00'), ...ident]);
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 }), (cuts) => {
        const d = new HostFrameDecoder();
        const out = split(stream, cuts).flatMap((c, i) => d.push(c, i));
        expect(frames(out)).toEqual(['f1:00', 'f1:01', 'f3:01', 'f1:00', 'id:48:CA:43:10:20:30']);
        expect(d.droppedBytes).toBe(0);
      }),
      opts,
    );
  });

  it('finds the identify answer surrounded by hunted garbage', () => {
    const d = new HostFrameDecoder();
    const garbage = new TextEncoder().encode('RaceLink_Gatew\xff\x13');
    const out = [
      ...d.push(garbage, 0),
      ...d.push(ident.subarray(0, 10), 1),
      ...d.push(ident.subarray(10), 2),
      ...d.push(hex('45 67 00 02 F3 01'), 3),
    ];
    expect(frames(out)).toEqual(['id:48:CA:43:10:20:30', 'f3:01']);
  });

  it('finds the identify answer swallowed by a bogus candidate', () => {
    const d = new HostFrameDecoder();
    // LEN 0x20: the candidate completes inside the identify text and fails validation
    expect(frames(d.push(new Uint8Array([0x00, 0x20, ...ident]), 0))).toEqual(['id:48:CA:43:10:20:30']);
    // LEN 0x30: the candidate stays incomplete until the quiet gap is noticed
    expect(d.push(new Uint8Array([0x00, 0x30, ...ident]), 10)).toEqual([]);
    expect(frames(d.push(new Uint8Array(0), 100))).toEqual(['id:48:CA:43:10:20:30']);
  });

  it('does not report a malformed identify answer', () => {
    const bad = new TextEncoder().encode('RaceLink_Gateway_v448:CA:43:10:20-30');
    expect(new HostFrameDecoder().push(bad, 0)).toEqual([]);
    expect(
      frames(
        new HostFrameDecoder().push(new TextEncoder().encode('RaceLink_Gateway_v448:ca:43:10:20:30'), 0),
      ),
    ).toEqual(['id:48:CA:43:10:20:30']);
  });

  it('random bytes never throw and every byte is accounted for', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 20 }),
        fc.array(fc.integer({ min: 0, max: 80 }), { minLength: 20, maxLength: 20 }),
        (chunks, gaps) => {
          const d = new HostFrameDecoder();
          let t = 0;
          let total = 0;
          let consumed = 0;
          const all: DecodedItem[] = [];
          chunks.forEach((c, i) => {
            t += gaps[i] ?? 0;
            total += c.length;
            all.push(...d.push(c, t));
          });
          all.push(...d.push(new Uint8Array(0), t + 1000));
          for (const it of all) consumed += it.kind === 'frame' ? 3 + it.frame.data.length : 36;
          expect(d.internalErrors).toBe(0);
          expect(consumed + d.droppedBytes).toBe(total);
          expect(d.framesOk).toBe(all.filter((x) => x.kind === 'frame').length);
        },
      ),
      { ...opts, numRuns: 1000 },
    );
  });

  it('valid frames interleaved with 0x00-free garbage come out exactly once, in order, at any chunking', () => {
    const garbage = fc.uint8Array({ maxLength: 12 }).map((g) => g.map((b) => (b === 0 ? 0x55 : b)));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(garbage, inboundArb), { maxLength: 12 }),
        garbage,
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 30 }),
        (pairs, tail, cuts) => {
          const encoded = pairs.map(([, ev]) => encodeGatewayInbound(ev));
          const stream = Buffer.concat([...pairs.flatMap(([g], i) => [g, encoded[i] as Uint8Array]), tail]);
          const d = new HostFrameDecoder();
          const out = split(new Uint8Array(stream), cuts).flatMap((c, i) => d.push(c, i * 5));
          expect(frames(out)).toEqual(encoded.map(key));
        },
      ),
      opts,
    );
  });

  it('garbage with 0x00 never throws; frames surrounded by quiet gaps are recovered', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.uint8Array({ maxLength: 70 }), inboundArb), { minLength: 1, maxLength: 8 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 }),
        (pairs, cuts) => {
          const d = new HostFrameDecoder({ partialTimeoutMs: 50 });
          const out: DecodedItem[] = [];
          let t = 0;
          const expected: string[] = [];
          for (const [g, ev] of pairs) {
            out.push(...d.push(g, t));
            t += 60; // quiet gap before the frame
            const f = encodeGatewayInbound(ev);
            expected.push(key(f));
            for (const c of split(f, cuts)) out.push(...d.push(c, t++));
            t += 60; // quiet gap after the frame
          }
          out.push(...d.push(new Uint8Array(0), t + 100));
          expect(d.internalErrors).toBe(0);
          // garbage may also yield spurious frames; the real ones must all appear, in order
          const got = frames(out);
          let j = 0;
          for (const g of got) if (g === expected[j]) j++;
          expect(j).toBe(expected.length);
        },
      ),
      opts,
    );
  });
});

describe('GatewayFrameDecoder (§2.3)', () => {
  const cmd = (fs: RawFrame[]): (string | null)[] => fs.map((f) => decodeGatewayCommand(f)?.kind ?? null);

  it('a stray 0x00 before a frame destroys it: 00 | 00 01 7F', () => {
    const d = new GatewayFrameDecoder();
    expect(d.push(hex('00 00 01 7F'), 0)).toEqual([]);
    expect(cmd(d.push(hex('00 01 7F'), 1))).toEqual(['state_request']);
  });

  it('LEN > 254 abandons; the LEN byte is not re-examined but the next 0x00 is a SOF', () => {
    const d = new GatewayFrameDecoder();
    expect(cmd(d.push(hex('00 FF 00 01 7F'), 0))).toEqual(['state_request']);
    const big = new Uint8Array([0x00, 0xfe, 0x07, ...new Array<number>(253).fill(1)]);
    const out = new GatewayFrameDecoder().push(big, 0);
    expect(out).toHaveLength(1);
    expect(out[0]?.data.length).toBe(253);
  });

  it('a garbage 00 nn swallows the following bytes as a bogus frame', () => {
    const d = new GatewayFrameDecoder();
    const out = d.push(hex('00 05 00 01 7F 00 01 7F'), 0);
    expect(out).toEqual([{ type: 0x00, data: hex('01 7F 00 01') }]);
    expect(cmd(out)).toEqual([null]);
  });

  it('discards a partial frame after more than 25 ms of silence', () => {
    const d = new GatewayFrameDecoder();
    d.push(hex('00 01'), 0);
    expect(d.push(hex('7F'), 26)).toEqual([]);
    d.push(hex('00 01'), 100);
    expect(cmd(d.push(hex('7F'), 125))).toEqual(['state_request']);
    // a lone SOF that went stale no longer turns the next SOF into LEN 0
    d.push(hex('00'), 200);
    expect(cmd(d.push(hex('00 01 7F'), 230))).toEqual(['state_request']);
    d.push(hex('00'), 300);
    expect(d.push(hex('00 01 7F'), 310)).toEqual([]);
  });

  it('decodes the same frames at any chunking', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 20 }),
        (bytes, cuts) => {
          const whole = new GatewayFrameDecoder().push(bytes, 0);
          const d = new GatewayFrameDecoder();
          const parts = split(bytes, cuts).flatMap((c) => d.push(c, 0));
          expect(parts).toEqual(whole);
        },
      ),
      opts,
    );
  });
});
