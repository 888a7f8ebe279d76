/** Property tests: every message kind survives encode → decode unchanged. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  GatewayFrameDecoder,
  HostFrameDecoder,
  decodeGatewayCommand,
  decodeGatewayInbound,
  decodeLoraPacket,
  decodeReplyBody,
  decodeRequestBody,
  encodeGatewayInbound,
  encodeHostCommand,
  encodeLoraPacket,
  encodeReplyBody,
  encodeRequestBody,
  opcodeOf,
  replyTypeFull,
  type RawFrame,
} from '../../../src/protocol/index.ts';
import { addrArb, hostCommandArb, inboundArb, replyArb, requestArb } from './arbitraries.ts';

const opts = { seed: 0x5eed, numRuns: 500 };

describe('round trips', () => {
  it('M2NRequest: decodeRequestBody(encodeRequestBody(x)) = x', () => {
    fc.assert(
      fc.property(requestArb, (req) => {
        const body = encodeRequestBody(req);
        expect(decodeRequestBody(opcodeOf(req), body)).toEqual(req);
      }),
      opts,
    );
  });

  it('N2MReply: decodeReplyBody(replyTypeFull(x), encodeReplyBody(x)) = x', () => {
    fc.assert(
      fc.property(replyArb, (r) => {
        expect(decodeReplyBody(replyTypeFull(r), encodeReplyBody(r))).toEqual(r);
      }),
      opts,
    );
  });

  it('LoraPacket: decode(encode(p)) = p', () => {
    fc.assert(
      fc.property(
        addrArb,
        addrArb,
        fc.integer({ min: 0, max: 255 }),
        fc.uint8Array({ maxLength: 30 }),
        (s, r, t, body) => {
          const p = { sender: s, receiver: r, typeFull: t, body };
          expect(decodeLoraPacket(encodeLoraPacket(p))).toEqual(p);
        },
      ),
      opts,
    );
  });

  it('GatewayInbound: host decoder + decodeGatewayInbound give back the event', () => {
    fc.assert(
      fc.property(inboundArb, (ev) => {
        const items = new HostFrameDecoder().push(encodeGatewayInbound(ev), 0);
        expect(items).toHaveLength(1);
        const item = items[0];
        if (item?.kind !== 'frame') throw new Error('not a frame');
        expect(decodeGatewayInbound(item.frame)).toEqual(ev);
      }),
      opts,
    );
  });

  it('N2M reply packets forwarded by the gateway decode to the same reply', () => {
    fc.assert(
      fc.property(replyArb, addrArb, addrArb, (reply, sender, receiver) => {
        const packet = { sender, receiver, typeFull: replyTypeFull(reply), body: encodeReplyBody(reply) };
        const frame = encodeGatewayInbound({ kind: 'packet', packet, rssi: -90, snr: -3, reply });
        const items = new HostFrameDecoder().push(frame, 0);
        const item = items[0];
        if (item?.kind !== 'frame') throw new Error('not a frame');
        expect(decodeGatewayInbound(item.frame)).toEqual({
          kind: 'packet',
          packet,
          rssi: -90,
          snr: -3,
          reply,
        });
      }),
      opts,
    );
  });

  it('HostCommand: gateway decoder + decodeGatewayCommand accept every host command', () => {
    fc.assert(
      fc.property(hostCommandArb, (cmd) => {
        const frames = new GatewayFrameDecoder().push(encodeHostCommand(cmd), 0);
        expect(frames).toHaveLength(1);
        const gc = decodeGatewayCommand(frames[0] as RawFrame);
        switch (cmd.kind) {
          case 'm2n':
            if (gc?.kind !== 'm2n') throw new Error(`expected m2n, got ${JSON.stringify(gc)}`);
            expect(gc.typeFull).toBe(opcodeOf(cmd.request));
            expect(gc.receiver).toBe(cmd.receiver);
            expect(decodeRequestBody(gc.typeFull, gc.body)).toEqual(cmd.request);
            break;
          case 'set_rf':
            expect(gc).toMatchObject({ kind: 'set_rf', persistFlag: cmd.persist ? 1 : 0, rf: cmd.rf });
            break;
          default:
            expect(gc).toEqual({ kind: cmd.kind });
        }
      }),
      opts,
    );
  });
});
