/**
 * SafetyRepeats: a safety round is repeated after a gap unless something that changes what a
 * known node shows was handed to a gateway in between (a repeat must never undo it).
 */
import { describe, expect, it } from 'vitest';
import { SafetyRepeats, reachesKnownDevice } from '../../../src/services/race/safety-repeats.ts';
import type { HandedFrame } from '../../../src/gateway/types.ts';
import { BROADCAST, type M2NRequest } from '../../../src/protocol/types.ts';
import { silentLogger } from '../../../src/logger.ts';

const devices = [
  { addr: 'AA0001', groupId: 1, network_id: 1 },
  { addr: 'AA0002', groupId: 2, network_id: 1 },
];

function rig() {
  let listener: ((f: HandedFrame) => void) | null = null;
  const sleeps: (() => void)[] = [];
  const held = { now: 0 };
  const repeats = new SafetyRepeats({
    driver: {
      on: ((e: string, fn: (f: HandedFrame) => void) => {
        if (e !== 'handed') return () => undefined;
        listener = fn;
        return () => (listener = null);
      }) as never,
    },
    clock: { sleep: () => new Promise<void>((r) => sleeps.push(r)), now: () => 0 },
    log: silentLogger(),
    reaches: (f) => reachesKnownDevice(devices, f),
    options: { gapsMs: [100, 200] },
    holdBulk: () => {
      held.now++;
      let done = false;
      return () => {
        if (!done) held.now--;
        done = true;
      };
    },
  });
  const hand = (request: M2NRequest, receiver = BROADCAST): void => listener?.({ receiver, request });
  const off: M2NRequest = { op: 'PRESET', groupId: 255, flags: 0, presetId: 0, brightness: 0 };
  const rounds: string[] = [];
  const round = (name: string) => () => {
    rounds.push(name);
    hand(off);
    return Promise.resolve(name);
  };
  /** Lets the pending gap end and the next round (if any) go. */
  const gap = async (): Promise<void> => {
    for (let i = 0; i < 5 && sleeps.length === 0; i++) await Promise.resolve();
    sleeps.shift()?.();
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { repeats, hand, round, rounds, gap, held };
}

const control = (groupId: number): M2NRequest => ({
  op: 'CONTROL',
  groupId,
  flags: 1,
  fields: { brightness: 200 },
});

describe('safety repeats', () => {
  it('repeats-a-round-twice-when-nothing-else-goes-out-and-answers-after-the-first', async () => {
    const r = rig();
    expect(await r.repeats.send('blackout', r.round('off'))).toBe('off');
    expect(r.rounds).toEqual(['off']);
    // A status poll started meanwhile waits: it would make the field deaf to the repeats.
    expect(r.held.now).toBe(1);
    await r.gap();
    await r.gap();
    await r.repeats.idle();
    expect(r.rounds).toEqual(['off', 'off', 'off']);
    expect(r.held.now).toBe(0);
  });

  it('a-later-look-for-a-known-group-drops-the-remaining-repeats', async () => {
    const r = rig();
    await r.repeats.send('blackout', r.round('off'));
    await r.gap();
    expect(r.rounds.length).toBe(2);
    r.hand(control(2));
    await r.gap();
    await r.repeats.idle();
    expect(r.rounds.length).toBe(2);
    expect(r.held.now).toBe(0);
  });

  it('frames-to-empty-groups-and-status-polls-do-not-stop-the-repeats', async () => {
    const r = rig();
    await r.repeats.send('blackout', r.round('off'));
    r.hand(control(101));
    r.hand({ op: 'STATUS', groupId: 255 });
    r.hand(control(1), 'FFFFFE');
    await r.gap();
    await r.gap();
    await r.repeats.idle();
    expect(r.rounds.length).toBe(3);
  });

  it('a-later-safety-send-ends-the-earlier-ones-repeats', async () => {
    const r = rig();
    await r.repeats.send('blackout', r.round('off'));
    await r.repeats.send('red flag', r.round('red'));
    for (let i = 0; i < 4; i++) await r.gap();
    await r.repeats.idle();
    expect(r.rounds).toEqual(['off', 'red', 'red', 'red']);
  });

  it('a-unicast-reaches-only-a-known-device-and-a-network-only-its-own', () => {
    expect(reachesKnownDevice(devices, { receiver: 'AA0002', request: control(2) })).toBe(true);
    expect(reachesKnownDevice(devices, { receiver: 'BB0009', request: control(2) })).toBe(false);
    expect(reachesKnownDevice(devices, { receiver: BROADCAST, request: control(1), network_id: 2 })).toBe(
      false,
    );
    expect(reachesKnownDevice(devices, { receiver: BROADCAST, request: control(255), network_id: 1 })).toBe(
      true,
    );
  });
});
