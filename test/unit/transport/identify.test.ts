import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ScaledClock } from '../../../src/clock.ts';
import { identifyGateway } from '../../../src/transport/detect.ts';
import { LinkClosedError } from '../../../src/transport/errors.ts';
import { IDENTIFY_ANSWER_LENGTH, IdentifyScanner } from '../../../src/transport/identify-scan.ts';
import { createMemoryLinkPair } from '../../../src/transport/memory-link.ts';
import { GATEWAY_MAC, IDENTIFY_ANSWER, ascii, attachFakeGateway, messyAnswer } from './fake-gateway.ts';

const clock = new ScaledClock(0.01);

describe('IdentifyScanner', () => {
  it('knows the answer is 36 bytes', () => {
    expect(IDENTIFY_ANSWER_LENGTH).toBe(36);
    expect(IDENTIFY_ANSWER.length).toBe(36);
  });

  it('finds the answer byte by byte', () => {
    const s = new IdentifyScanner();
    const hits = [...IDENTIFY_ANSWER].map((b) => s.push(Uint8Array.of(b)));
    expect(hits.slice(0, -1).every((h) => h === null)).toBe(true);
    expect(hits.at(-1)).toBe(GATEWAY_MAC);
  });

  it('finds the answer among random bytes split into random chunks', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200 }),
        fc.uint8Array({ maxLength: 200 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (before, after, cutSeeds) => {
          const stream = Uint8Array.of(...before, ...IDENTIFY_ANSWER, ...after);
          const cuts = [...new Set(cutSeeds.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b);
          const s = new IdentifyScanner();
          const hits: string[] = [];
          let from = 0;
          for (const to of [...cuts, stream.length]) {
            const hit = s.push(stream.slice(from, to));
            if (hit) hits.push(hit);
            from = to;
          }
          expect(hits).toEqual([GATEWAY_MAC]);
        },
      ),
      { seed: 0x5eed, numRuns: 300 },
    );
  });

  it('skips a prefix that is not followed by a MAC and finds the real answer after it', () => {
    const s = new IdentifyScanner();
    expect(s.push(ascii('RaceLink_Gateway_v4RaceLink_Gateway_v4'))).toBeNull();
    expect(s.push(ascii(GATEWAY_MAC))).toBe(GATEWAY_MAC);
  });

  it('handles a repeated partial prefix and normalises the MAC to upper case', () => {
    const s = new IdentifyScanner();
    expect(s.push(ascii('RaceLink_RaceLink_Gateway_v448:ca:43:10:20:3g'))).toBeNull();
    expect(s.push(ascii('RaceLink_Gateway_v4aa:bb:cc:dd:ee:0f'))).toBe('AA:BB:CC:DD:EE:0F');
  });

  it('ignores text without the prefix', () => {
    const s = new IdentifyScanner();
    expect(s.push(ascii(`RaceLink_Gateway_v3${GATEWAY_MAC}`))).toBeNull();
  });
});

describe('identifyGateway', () => {
  it('writes exactly 00 01 01 and accepts an answer wrapped in events and garbage, split in chunks', async () => {
    const [host, device] = createMemoryLinkPair();
    const gw = attachFakeGateway(device, clock, { answer: (n) => (n === 0 ? messyAnswer() : null) });
    expect(await identifyGateway(host, clock)).toEqual({ mac: GATEWAY_MAC });
    expect(gw.received()).toEqual([0x00, 0x01, 0x01]);
    expect(host.isOpen).toBe(true); // the caller decides what to do with the link
  });

  it('flushes what arrived during the settle delay (an old answer from before the reset does not count)', async () => {
    const [host, device] = createMemoryLinkPair();
    attachFakeGateway(device, clock, {
      onConnect: [
        { afterMs: 1, bytes: Uint8Array.of(0xe0, 0x00, 0xfc, 0x18, 0x80) }, // ROM boot log at the wrong baud
        { afterMs: 1, bytes: ascii('RaceLink_Gateway_v4AA:AA:AA:AA:AA:AA') },
        { afterMs: 100, bytes: Uint8Array.of(0x00, 0x02, 0xf1, 0x00) },
      ],
      answer: (n) => (n === 0 ? messyAnswer() : null),
    });
    // Nobody listens before identify subscribes: the stale bytes wait in the link's buffer.
    expect(await identifyGateway(host, clock)).toEqual({ mac: GATEWAY_MAC });
  });

  it('returns null when nothing answers, after the first probe and one retry', async () => {
    const [host, device] = createMemoryLinkPair();
    const gw = attachFakeGateway(device, clock, {
      answer: () => [{ afterMs: 5, bytes: Uint8Array.of(0x00, 0x02, 0xf1, 0x00) }],
    });
    expect(await identifyGateway(host, clock)).toBeNull();
    expect(gw.requests()).toBe(2);
  });

  it('honours retries: 0 probes once', async () => {
    const [host, device] = createMemoryLinkPair();
    const gw = attachFakeGateway(device, clock, { answer: () => null });
    expect(await identifyGateway(host, clock, { retries: 0 })).toBeNull();
    expect(gw.requests()).toBe(1);
  });

  it('accepts an answer that only comes on the retry', async () => {
    const [host, device] = createMemoryLinkPair();
    const askedAt: number[] = [];
    const gw = attachFakeGateway(device, clock, {
      answer: (n) => {
        askedAt.push(clock.now());
        return n === 1 ? messyAnswer() : null;
      },
    });
    expect(await identifyGateway(host, clock)).toEqual({ mac: GATEWAY_MAC });
    expect(gw.requests()).toBe(2);
    // Answer window (300) + retry pause (1000) lie between the probes; the bound leaves
    // room for timer jitter on the scaled clock but fails if the pause were skipped.
    expect((askedAt[1] ?? 0) - (askedAt[0] ?? 0)).toBeGreaterThanOrEqual(1000);
  });

  it('accepts a late answer to the first probe that arrives during the retry pause', async () => {
    const [host, device] = createMemoryLinkPair();
    const gw = attachFakeGateway(device, clock, {
      answer: (n) => (n === 0 ? [{ afterMs: 600, bytes: IDENTIFY_ANSWER }] : null),
    });
    expect(await identifyGateway(host, clock)).toEqual({ mac: GATEWAY_MAC });
    expect(gw.requests()).toBe(1);
  });

  it('rejects when the link closes during the handshake', async () => {
    const [host, device] = createMemoryLinkPair();
    attachFakeGateway(device, clock, { answer: () => null });
    clock.setTimeout(() => void device.close(), 600);
    await expect(identifyGateway(host, clock)).rejects.toThrow(/closed by peer/);
  });

  it('rejects on a link that is not open', async () => {
    const [host] = createMemoryLinkPair();
    await host.close();
    await expect(identifyGateway(host, clock)).rejects.toBeInstanceOf(LinkClosedError);
  });

  it('rejects with the reason when aborted', async () => {
    const [host, device] = createMemoryLinkPair();
    attachFakeGateway(device, clock, { answer: () => null });
    const ac = new AbortController();
    clock.setTimeout(() => ac.abort(new Error('shutting down')), 100);
    await expect(identifyGateway(host, clock, { signal: ac.signal })).rejects.toThrow('shutting down');
  });
});
