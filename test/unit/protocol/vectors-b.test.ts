/** The test vectors of wire-protocol.md §11, byte-exact in every direction given. */
import { describe, expect, it } from 'vitest';
import {
  decodeGatewayCommand,
  decodeLoraPacket,
  decodeRequestBody,
  encodeLoraPacket,
  encodeRequestBody,
  fragmentStream,
  type M2NRequest,
} from '../../../src/protocol/index.ts';
import { hex, toHexSpaced } from './helpers.ts';
import {
  GW,
  NODE,
  RF_868_2,
  checkGwToHost,
  checkHostToGw,
  gwDecodeOne,
  m2n,
  onAir,
} from './vector-helpers.ts';

describe('§11 test vectors (TV-16..TV-33)', () => {
  it('TV-16 CONTROL group 3', () => {
    const req: M2NRequest = {
      op: 'CONTROL',
      groupId: 3,
      flags: 0x05,
      fields: { brightness: 200, mode: 2, palette: 6, color1: [0xff, 0x80, 0x00] },
    };
    checkHostToGw(m2n('FFFFFF', req), '00 0E 08 FF FF FF 03 05 83 C8 02 03 06 FF 80 00');
    expect(onAir('FFFFFF', req)).toBe('10 20 30 FF FF FF 08 03 05 83 C8 02 03 06 FF 80 00');
    expect(decodeRequestBody(0x08, encodeRequestBody(req))).toEqual(req);
  });

  it('TV-17 CONTROL worst case', () => {
    const req: M2NRequest = {
      op: 'CONTROL',
      groupId: 255,
      flags: 0x07,
      fields: {
        brightness: 255,
        mode: 35,
        speed: 128,
        intensity: 64,
        custom1: 1,
        custom2: 2,
        custom3: 31,
        check1: true,
        check2: false,
        check3: true,
        palette: 10,
        color1: [1, 2, 3],
        color2: [4, 5, 6],
        color3: [7, 8, 9],
      },
    };
    checkHostToGw(
      m2n('FFFFFF', req),
      '00 19 08 FF FF FF FF 07 FF FF 23 80 40 01 02 BF 0F 0A 01 02 03 04 05 06 07 08 09',
    );
    expect(onAir('FFFFFF', req)).toBe(
      '10 20 30 FF FF FF 08 FF 07 FF FF 23 80 40 01 02 BF 0F 0A 01 02 03 04 05 06 07 08 09',
    );
    expect(decodeRequestBody(0x08, encodeRequestBody(req))).toEqual(req);
  });

  it('TV-18 OFFSET LINEAR', () => {
    const req: M2NRequest = {
      op: 'OFFSET',
      groupId: 255,
      offset: { mode: 'LINEAR', baseMs: 0, stepMs: 200 },
    };
    checkHostToGw(m2n('FFFFFF', req), '00 0A 09 FF FF FF FF 02 00 00 C8 00');
    expect(onAir('FFFFFF', req)).toBe('10 20 30 FF FF FF 09 FF 02 00 00 C8 00');
  });

  it('TV-19 OFFSET VSHAPE negative base', () => {
    const req: M2NRequest = {
      op: 'OFFSET',
      groupId: 255,
      offset: { mode: 'VSHAPE', baseMs: -100, stepMs: 150, center: 3 },
    };
    checkHostToGw(m2n('FFFFFF', req), '00 0B 09 FF FF FF FF 03 9C FF 96 00 03');
    expect(decodeRequestBody(0x09, encodeRequestBody(req))).toEqual(req);
  });

  it('TV-20 OFFSET EXPLICIT', () => {
    checkHostToGw(
      m2n('FFFFFF', { op: 'OFFSET', groupId: 4, offset: { mode: 'EXPLICIT', offsetMs: 750 } }),
      '00 08 09 FF FF FF 04 01 EE 02',
    );
  });

  it('TV-21 OFFSET NONE', () => {
    checkHostToGw(
      m2n('FFFFFF', { op: 'OFFSET', groupId: 255, offset: { mode: 'NONE' } }),
      '00 06 09 FF FF FF FF 00',
    );
  });

  it('TV-22 deliberate SYNC (5-byte), re-stamped on air', () => {
    const req: M2NRequest = { op: 'SYNC', ts24: 0x123456, brightness: 0, flags: 0x01 };
    checkHostToGw(m2n('FFFFFF', req), '00 09 06 FF FF FF 56 34 12 00 01');
    const restamped: M2NRequest = { ...req, ts24: 0x0201d4c0 & 0xffffff };
    expect(onAir('FFFFFF', restamped)).toBe('10 20 30 FF FF FF 06 C0 D4 01 00 01');
    expect(decodeRequestBody(0x06, hex('C0 D4 01 00 01'))).toEqual(restamped);
  });

  it('TV-23 autosync (4-byte form)', () => {
    const req: M2NRequest = { op: 'SYNC', ts24: 0x01d4c0, brightness: 0x80 };
    expect(onAir('FFFFFF', req)).toBe('10 20 30 FF FF FF 06 C0 D4 01 80');
    expect(decodeRequestBody(0x06, hex('C0 D4 01 80'))).toEqual(req);
  });

  it('TV-24 PRESET', () => {
    const req: M2NRequest = { op: 'PRESET', groupId: 3, flags: 5, presetId: 12, brightness: 255 };
    checkHostToGw(m2n('FFFFFF', req), '00 08 04 FF FF FF 03 05 0C FF');
    expect(onAir('FFFFFF', req)).toBe('10 20 30 FF FF FF 04 03 05 0C FF');
  });

  it('TV-25 CONFIG segment 0 geometry', () => {
    const req: M2NRequest = { op: 'CONFIG', option: 0x06, data: [0, 0, 0x96, 0] };
    checkHostToGw(m2n(NODE, req), '00 09 05 AA BB CC 06 00 00 96 00');
    expect(onAir(NODE, req)).toBe('10 20 30 AA BB CC 05 06 00 00 96 00');
  });

  it('TV-26 ACK for CONFIG', () => {
    const packet = { sender: NODE, receiver: GW, typeFull: 0xfe, body: hex('05 00 00') };
    checkGwToHost(
      { kind: 'packet', packet, rssi: -80, snr: 9, reply: { kind: 'ACK', ackOf: 5, status: 0, seq: 0 } },
      '00 0E FE AA BB CC 10 20 30 FE 05 00 00 B0 FF 09',
    );
  });

  it('TV-27 GET_CONFIG request and reply', () => {
    checkHostToGw(m2n(NODE, { op: 'GET_CONFIG', option: 6 }), '00 05 0A AA BB CC 06');
    const packet = { sender: NODE, receiver: GW, typeFull: 0x8a, body: hex('06 00 00 96 00') };
    expect(toHexSpaced(encodeLoraPacket(packet))).toBe('AA BB CC 10 20 30 8A 06 00 00 96 00');
    checkGwToHost(
      {
        kind: 'packet',
        packet,
        rssi: -81,
        snr: 8,
        reply: { kind: 'CONFIG_REPLY', option: 6, data: [0, 0, 0x96, 0] },
      },
      '00 10 8A AA BB CC 10 20 30 8A 06 00 00 96 00 AF FF 08',
    );
  });

  it('TV-28 CONFIG open WiFi AP', () => {
    checkHostToGw(
      m2n(NODE, { op: 'CONFIG', option: 4, data: [1, 0, 0, 0] }),
      '00 09 05 AA BB CC 04 01 00 00 00',
    );
  });

  it('TV-29 INDICATE', () => {
    const req: M2NRequest = { op: 'INDICATE', type: 4, durationSec: 5 };
    checkHostToGw(m2n(NODE, req), '00 06 0C AA BB CC 04 05');
    expect(onAir(NODE, req)).toBe('10 20 30 AA BB CC 0C 04 05');
  });

  it('TV-30 STREAM fragmented by the gateway, ACK forwarded', () => {
    const payload = hex('01 02 52 31 05 41 6C 69 63 65');
    const req: M2NRequest = { op: 'STREAM', payload };
    checkHostToGw(m2n(NODE, req), '00 0E 07 AA BB CC 01 02 52 31 05 41 6C 69 63 65');
    const frags = fragmentStream(payload).map((body) =>
      toHexSpaced(encodeLoraPacket({ sender: GW, receiver: NODE, typeFull: 0x07, body })),
    );
    expect(frags).toEqual([
      '10 20 30 AA BB CC 07 81 01 02 52 31 05 41 6C 69',
      '10 20 30 AA BB CC 07 40 63 65 00 00 00 00 00 00',
    ]);
    const packet = { sender: NODE, receiver: GW, typeFull: 0xfe, body: hex('07 00 00') };
    checkGwToHost(
      { kind: 'packet', packet, rssi: -85, snr: 7, reply: { kind: 'ACK', ackOf: 7, status: 0, seq: 0 } },
      '00 0E FE AA BB CC 10 20 30 FE 07 00 00 AB FF 07',
    );
  });

  it('TV-31 gateway RF change (volatile) and confirmation', () => {
    checkHostToGw(
      { kind: 'set_rf', persist: false, rf: RF_868_2 },
      '00 0E 02 00 40 AE BF 33 E2 04 07 05 12 0E 08 00',
    );
    const gc = decodeGatewayCommand(gwDecodeOne(hex('00 0E 02 00 40 AE BF 33 E2 04 07 05 12 0E 08 00')));
    expect(gc).toEqual({
      kind: 'set_rf',
      persistFlag: 0,
      rf: RF_868_2,
      rfBytes: hex('40 AE BF 33 E2 04 07 05 12 0E 08 00'),
    });
    checkGwToHost(
      { kind: 'rf_changed', reason: 0, rf: RF_868_2 },
      '00 0E F6 00 40 AE BF 33 E2 04 07 05 12 0E 08 00',
    );
  });

  it('TV-32 gateway RF read-back', () => {
    checkHostToGw({ kind: 'get_rf' }, '00 01 03');
  });

  it('TV-33 node RF write and read-back', () => {
    checkHostToGw(
      m2n(NODE, { op: 'RF_CONFIG', rf: RF_868_2 }),
      '00 10 0D AA BB CC 40 AE BF 33 E2 04 07 05 12 0E 08 00',
    );
    checkHostToGw(m2n(NODE, { op: 'GET_RF_CONFIG', reserved: 0 }), '00 05 0E AA BB CC 00');
    checkHostToGw(m2n(NODE, { op: 'GET_RF_CONFIG' }), '00 05 0E AA BB CC 00');
    const packet = {
      sender: NODE,
      receiver: GW,
      typeFull: 0x8e,
      body: hex('40 AE BF 33 E2 04 07 05 12 0E 08 00'),
    };
    checkGwToHost(
      { kind: 'packet', packet, rssi: -70, snr: 11, reply: { kind: 'RF_CONFIG_REPLY', rf: RF_868_2 } },
      '00 17 8E AA BB CC 10 20 30 8E 40 AE BF 33 E2 04 07 05 12 0E 08 00 BA FF 0B',
    );
    expect(decodeLoraPacket(hex('AA BB CC 10 20 30 8E'))).toEqual({
      sender: NODE,
      receiver: GW,
      typeFull: 0x8e,
      body: new Uint8Array(0),
    });
  });
});
