/** The test vectors of wire-protocol.md §11, byte-exact in every direction given. */
import { describe, expect, it } from 'vitest';
import {
  GatewayFrameDecoder,
  HostFrameDecoder,
  decodeGatewayCommand,
  encodeIdentifyAnswer,
  encodeLoraPacket,
  type M2NRequest,
  type RawFrame,
} from '../../../src/protocol/index.ts';
import { hex, toHexSpaced } from './helpers.ts';
import { GW, NODE, checkGwToHost, checkHostToGw, m2n, onAir } from './vector-helpers.ts';

describe('§11 test vectors', () => {
  it('TV-01 identify request', () => {
    checkHostToGw({ kind: 'identify' }, '00 01 01');
    // host v0.1.5's trailing FF is discarded while hunting
    const frames = new GatewayFrameDecoder().push(hex('00 01 01 FF'), 0);
    expect(frames).toHaveLength(1);
    expect(decodeGatewayCommand(frames[0] as RawFrame)).toEqual({ kind: 'identify' });
  });

  it('TV-02 identify answer (unframed)', () => {
    const raw =
      '52 61 63 65 4C 69 6E 6B 5F 47 61 74 65 77 61 79 5F 76 34 34 38 3A 43 41 3A 34 33 3A 31 30 3A 32 30 3A 33 30';
    expect(toHexSpaced(encodeIdentifyAnswer('48:CA:43:10:20:30'))).toBe(raw);
    expect(toHexSpaced(encodeIdentifyAnswer('48ca43102030'))).toBe(raw);
    const items = new HostFrameDecoder().push(hex(raw), 0);
    expect(items).toEqual([{ kind: 'identify', mac: '48:CA:43:10:20:30' }]);
  });

  it('TV-03 state request and report', () => {
    checkHostToGw({ kind: 'state_request' }, '00 01 7F');
    checkGwToHost({ kind: 'state', report: true, state: 0, metadataMs: 0 }, '00 02 F5 00');
  });

  it('TV-04 state report with RX window', () => {
    checkGwToHost({ kind: 'state', report: true, state: 2, metadataMs: 1000 }, '00 04 F5 02 E8 03');
  });

  it('TV-05 transmit cycle events', () => {
    checkGwToHost({ kind: 'state', report: false, state: 1, metadataMs: 0 }, '00 02 F1 01');
    checkGwToHost({ kind: 'tx_done' }, '00 02 F3 01');
    checkGwToHost({ kind: 'state', report: false, state: 0, metadataMs: 0 }, '00 02 F1 00');
  });

  it('TV-06 EV_TX_REJECTED', () => {
    checkGwToHost({ kind: 'tx_rejected', typeFull: 0x08, reason: 0x01 }, '00 03 F4 08 01');
  });

  it('TV-07 RX window after broadcast stream', () => {
    checkGwToHost({ kind: 'state', report: false, state: 2, metadataMs: 2000 }, '00 04 F1 02 D0 07');
  });

  it('TV-08 discovery, unconfigured nodes', () => {
    const req: M2NRequest = { op: 'DEVICES', groupId: 0, flags: 0 };
    checkHostToGw(m2n('FFFFFF', req), '00 06 01 FF FF FF 00 00');
    expect(onAir('FFFFFF', req)).toBe('10 20 30 FF FF FF 01 00 00');
  });

  it('TV-09 discovery, every group', () => {
    const req: M2NRequest = { op: 'DEVICES', groupId: 255 };
    checkHostToGw(m2n('FFFFFF', req), '00 06 01 FF FF FF FF 00');
    expect(onAir('FFFFFF', req)).toBe('10 20 30 FF FF FF 01 FF 00');
  });

  const identifyReply = {
    kind: 'IDENTIFY_REPLY',
    fw: 2,
    devType: 12,
    groupId: 0,
    mac: '246F28AABBCC',
  } as const;

  it('TV-10 IDENTIFY_REPLY forwarded', () => {
    const packet = { sender: NODE, receiver: GW, typeFull: 0x81, body: hex('02 0C 00 24 6F 28 AA BB CC') };
    expect(toHexSpaced(encodeLoraPacket(packet))).toBe('AA BB CC 10 20 30 81 02 0C 00 24 6F 28 AA BB CC');
    checkGwToHost(
      { kind: 'packet', packet, rssi: -87, snr: 9, reply: identifyReply },
      '00 14 81 AA BB CC 10 20 30 81 02 0C 00 24 6F 28 AA BB CC A9 FF 09',
    );
  });

  it('TV-11 unsolicited boot announcement', () => {
    const packet = {
      sender: NODE,
      receiver: 'FFFFFF',
      typeFull: 0x81,
      body: hex('02 0C 00 24 6F 28 AA BB CC'),
    };
    expect(toHexSpaced(encodeLoraPacket(packet))).toBe('AA BB CC FF FF FF 81 02 0C 00 24 6F 28 AA BB CC');
    checkGwToHost(
      { kind: 'packet', packet, rssi: -60, snr: 10, reply: identifyReply },
      '00 14 81 AA BB CC FF FF FF 81 02 0C 00 24 6F 28 AA BB CC C4 FF 0A',
    );
  });

  it('TV-12 SET_GROUP', () => {
    const req: M2NRequest = { op: 'SET_GROUP', groupId: 3 };
    checkHostToGw(m2n(NODE, req), '00 05 02 AA BB CC 03');
    expect(onAir(NODE, req)).toBe('10 20 30 AA BB CC 02 03');
  });

  it('TV-13 ACK for SET_GROUP', () => {
    const packet = { sender: NODE, receiver: GW, typeFull: 0xfe, body: hex('02 00 00') };
    expect(toHexSpaced(encodeLoraPacket(packet))).toBe('AA BB CC 10 20 30 FE 02 00 00');
    checkGwToHost(
      { kind: 'packet', packet, rssi: -88, snr: 8, reply: { kind: 'ACK', ackOf: 2, status: 0, seq: 0 } },
      '00 0E FE AA BB CC 10 20 30 FE 02 00 00 A8 FF 08',
    );
  });

  it('TV-14 status poll, all groups', () => {
    const req: M2NRequest = { op: 'STATUS', groupId: 255, flags: 0 };
    checkHostToGw(m2n('FFFFFF', req), '00 06 03 FF FF FF FF 00');
    expect(onAir('FFFFFF', req)).toBe('10 20 30 FF FF FF 03 FF 00');
  });

  it('TV-15 STATUS_REPLY', () => {
    const packet = { sender: NODE, receiver: GW, typeFull: 0x83, body: hex('05 01 02 80 93 0F A4 07') };
    expect(toHexSpaced(encodeLoraPacket(packet))).toBe('AA BB CC 10 20 30 83 05 01 02 80 93 0F A4 07');
    const reply = {
      kind: 'STATUS_REPLY',
      flags: 5,
      configByte: 1,
      effectId: 2,
      brightness: 128,
      vbatMv: 3987,
      rssi: -92,
      snr: 7,
      legacy: false,
    } as const;
    checkGwToHost(
      { kind: 'packet', packet, rssi: -90, snr: 6, reply },
      '00 13 83 AA BB CC 10 20 30 83 05 01 02 80 93 0F A4 07 A6 FF 06',
    );
  });
});
