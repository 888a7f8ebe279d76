import type { Clock } from '../../../src/clock.ts';
import type { Link } from '../../../src/transport/link.ts';

export const GATEWAY_MAC = '48:CA:43:10:20:30';
export const ascii = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s, 'latin1'));
export const IDENTIFY_ANSWER = ascii(`RaceLink_Gateway_v4${GATEWAY_MAC}`);

/** A chunk the fake sends `afterMs` virtual ms after the previous one (or the trigger). */
export interface Emission {
  afterMs: number;
  bytes: Uint8Array;
}

export interface FakeGatewayScript {
  /** Sent right after the connection opens (reset garbage, boot events). */
  onConnect?: Emission[];
  /** Reply to the n-th identify request (0-based); null stays silent. */
  answer: (n: number) => Emission[] | null;
}

/**
 * Just enough gateway to test the identify handshake: it counts `00 01 01` requests in
 * what it receives and plays back scripted bytes on the clock.
 */
export function attachFakeGateway(
  device: Link,
  clock: Clock,
  script: FakeGatewayScript,
): { requests: () => number; received: () => number[] } {
  const received: number[] = [];
  let requests = 0;
  let scanFrom = 0;
  const play = (emissions: Emission[]): void => {
    let delay = 0;
    for (const e of emissions) {
      delay += e.afterMs;
      clock.setTimeout(() => {
        if (device.isOpen) void device.write(e.bytes).catch(() => undefined);
      }, delay);
    }
  };
  device.onData((chunk) => {
    received.push(...chunk);
    for (; scanFrom + 2 < received.length; scanFrom += 1) {
      if (received[scanFrom] === 0 && received[scanFrom + 1] === 1 && received[scanFrom + 2] === 1) {
        const reply = script.answer(requests);
        requests += 1;
        if (reply) play(reply);
        scanFrom += 2;
      }
    }
  });
  if (script.onConnect) play(script.onConnect);
  return { requests: () => requests, received: () => [...received] };
}

/** The full messy answer: events, garbage, then the identify string in pieces. */
export function messyAnswer(mac = GATEWAY_MAC): Emission[] {
  const answer = ascii(`RaceLink_Gateway_v4${mac}`);
  return [
    { afterMs: 5, bytes: Uint8Array.of(0x00, 0x02, 0xf1, 0x01) }, // autosync TX
    { afterMs: 5, bytes: Uint8Array.of(0x00, 0x02, 0xf3, 0x01, 0x00, 0x02, 0xf1, 0x00) },
    { afterMs: 5, bytes: Uint8Array.of(0xff, 0x13, 0x00, 0x8a, 0x52, 0x61, 0x63, 0x65) }, // "Race" in garbage
    { afterMs: 10, bytes: answer.slice(0, 7) },
    { afterMs: 10, bytes: answer.slice(7, 20) },
    { afterMs: 10, bytes: answer.slice(20, 23) },
    { afterMs: 10, bytes: Uint8Array.of(...answer.slice(23), 0x00, 0x02, 0xf1, 0x00) },
  ];
}
