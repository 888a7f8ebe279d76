import { describe, expect, it } from 'vitest';
import { MatcherRegistry, packetMatches, type MatchSpec } from '../../../src/gateway/matcher.ts';
import { MasterState, replyEventName } from '../../../src/gateway/master-state.ts';
import type { InboundPacket, MasterSnapshot } from '../../../src/gateway/types.ts';
import { OPC, type N2MReply } from '../../../src/protocol/types.ts';
import { replyTypeFull, encodeReplyBody } from '../../../src/protocol/replies.ts';
import { ManualClock } from './manual-clock.ts';

const pkt = (sender: string, reply: N2MReply, ts = 0): InboundPacket => ({
  packet: { sender, receiver: '102030', typeFull: replyTypeFull(reply), body: encodeReplyBody(reply) },
  reply,
  rssi: -70,
  snr: 5,
  ts,
});
const ack = (ackOf: number): N2MReply => ({ kind: 'ACK', ackOf, status: 0, seq: 0 });
const cfg = (option: number): N2MReply => ({ kind: 'CONFIG_REPLY', option, data: [1, 0, 0, 0] });
const base: MatchSpec = { senders: null, expected: null, idleMs: 0, maxMs: 1000 };

describe('packetMatches', () => {
  it('applies sender, opcode, ack_of and discriminator rules', () => {
    const a = pkt('AABBCC', ack(OPC.SET_GROUP));
    expect(packetMatches({ ...base, ackOf: OPC.SET_GROUP }, a)).toBe(true);
    expect(packetMatches({ ...base, ackOf: OPC.CONFIG }, a)).toBe(false);
    expect(packetMatches({ ...base, senders: new Set(['DDEEFF']), ackOf: OPC.SET_GROUP }, a)).toBe(false);
    expect(packetMatches({ ...base, opcode: OPC.GET_CONFIG }, a)).toBe(false);
    const c = pkt('AABBCC', cfg(6));
    const want7 = {
      ...base,
      opcode: OPC.GET_CONFIG,
      accept: (p: InboundPacket) => p.reply?.kind === 'CONFIG_REPLY' && p.reply.option === 7,
    };
    expect(packetMatches(want7, c)).toBe(false);
    expect(packetMatches({ ...want7, accept: () => true }, c)).toBe(true);
  });

  it('never matches an M2N packet', () => {
    const m2n: InboundPacket = {
      packet: { sender: 'AABBCC', receiver: 'FFFFFF', typeFull: OPC.DEVICES, body: Uint8Array.from([0, 0]) },
      reply: null,
      rssi: 0,
      snr: 0,
      ts: 0,
    };
    expect(packetMatches({ ...base, opcode: OPC.DEVICES }, m2n)).toBe(false);
  });
});

describe('MatcherRegistry', () => {
  it('ends on count, keeps the first packet per sender and consumes matches', async () => {
    const clock = new ManualClock();
    const reg = new MatcherRegistry(clock);
    const m = reg.register({ ...base, ackOf: OPC.CONFIG, expected: 2 });
    const other = reg.register({ ...base, ackOf: OPC.CONFIG });
    m.start();
    expect(reg.offer(pkt('000001', ack(OPC.CONFIG), 1))).toBe(true);
    expect(reg.offer(pkt('000001', ack(OPC.CONFIG), 2))).toBe(true);
    expect(m.matchCount).toBe(1);
    expect(reg.offer(pkt('000002', ack(OPC.CONFIG), 3))).toBe(true);
    const r = await m.done;
    expect(r.end).toBe('count');
    expect(r.matches.map((p) => [p.packet.sender, p.ts])).toEqual([
      ['000001', 1],
      ['000002', 3],
    ]);
    expect(other.matchCount).toBe(0);
    expect(reg.size).toBe(1);
    other.cancel();
    expect((await other.done).end).toBe('cancelled');
    expect(reg.size).toBe(0);
  });

  it('idle window restarts on every match; ceiling counts from start()', async () => {
    const clock = new ManualClock();
    const reg = new MatcherRegistry(clock);
    const m = reg.register({ ...base, opcode: OPC.GET_CONFIG, idleMs: 600, maxMs: 5000 });
    await clock.advance(10_000); // not started: no ceiling yet
    m.start();
    await clock.advance(500);
    reg.offer(pkt('000001', cfg(5)));
    await clock.advance(500);
    reg.offer(pkt('000002', cfg(5)));
    await clock.advance(599);
    expect(m.matchCount).toBe(2);
    let ended = false;
    void m.done.then(() => (ended = true));
    await clock.advance(0);
    expect(ended).toBe(false);
    await clock.advance(2);
    expect((await m.done).end).toBe('idle');
  });

  it('keepAlive packets postpone the idle end without counting', async () => {
    const clock = new ManualClock();
    const reg = new MatcherRegistry(clock);
    const counted = new Set(['000001']);
    const m = reg.register({
      ...base,
      opcode: OPC.GET_CONFIG,
      accept: (p) => !counted.has(p.packet.sender),
      keepAlive: (p) => p.reply?.kind === 'CONFIG_REPLY',
      idleMs: 600,
      maxMs: 5000,
    });
    m.start();
    reg.offer(pkt('000002', cfg(5)));
    await clock.advance(500);
    expect(reg.offer(pkt('000001', cfg(5)))).toBe(false);
    await clock.advance(500);
    expect(m.matchCount).toBe(1);
    let ended = false;
    void m.done.then(() => (ended = true));
    await clock.advance(0);
    expect(ended).toBe(false);
    await clock.advance(101);
    expect((await m.done).end).toBe('idle');
  });

  it('hits the ceiling when nothing matches, and cancelAll ends every matcher', async () => {
    const clock = new ManualClock();
    const reg = new MatcherRegistry(clock);
    const a = reg.register({ ...base, maxMs: 300 });
    const b = reg.register({ ...base, maxMs: 300 });
    a.start();
    await clock.advance(301);
    expect((await a.done).end).toBe('max');
    reg.cancelAll('link_down');
    expect((await b.done).end).toBe('link_down');
  });
});

describe('MasterState', () => {
  it('emits only on change, stamps unix seconds and clears errors on state events', () => {
    const clock = new ManualClock();
    const seen: MasterSnapshot[] = [];
    const m = new MasterState(clock, (s) => seen.push(s));
    m.txDone();
    m.txDone();
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ last_event: 'TX_DONE', last_event_ts: clock.now() / 1000 });
    m.usbError('link lost');
    expect(m.snapshot()).toMatchObject({ last_event: 'USB_ERROR', last_error: 'link lost' });
    m.applyState(false, 0, 0);
    expect(m.snapshot()).toMatchObject({
      state: 'IDLE',
      state_byte: 0,
      last_event: 'STATE_CHANGED',
      last_error: null,
    });
    m.txRejected(0xff);
    expect(m.snapshot().last_event).toBe('TX_REJECTED (unknown)');
    expect(replyEventName(ack(2))).toBe('ACK');
    expect(replyEventName({ kind: 'UNKNOWN', opcode: 0x0b, body: new Uint8Array(0) })).toBe('HEADLESS');
  });
});
