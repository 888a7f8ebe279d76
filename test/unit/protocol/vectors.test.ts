/** The 33 test vectors of wire-protocol.md §11, byte-exact in every direction given. */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RF,
  GatewayFrameDecoder,
  HostFrameDecoder,
  decodeGatewayCommand,
  decodeGatewayInbound,
  decodeLoraPacket,
  decodeRequestBody,
  encodeGatewayInbound,
  encodeHostCommand,
  encodeIdentifyAnswer,
  encodeLoraPacket,
  encodeRequestBody,
  fragmentStream,
  opcodeOf,
  type GatewayInbound,
  type HostCommand,
  type M2NRequest,
  type RawFrame,
  type RfConfig,
} from '../../../src/protocol/index.ts';
import { hex, toHexSpaced } from './helpers.ts';

const GW = '102030';
const NODE = 'AABBCC';
const RF_868_2: RfConfig = { ...DEFAULT_RF, freqHz: 868_200_000 };

/** Host decoder over a whole byte string; expects exactly one framed item. */
function hostDecodeOne(bytes: Uint8Array): RawFrame {
  const d = new HostFrameDecoder();
  const items = d.push(bytes, 0);
  expect(items).toHaveLength(1);
  const it0 = items[0];
  if (!it0 || it0.kind !== 'frame') throw new Error('expected a frame');
  return it0.frame;
}

/** Gateway decoder over a whole byte string; expects exactly one frame. */
function gwDecodeOne(bytes: Uint8Array): RawFrame {
  const frames = new GatewayFrameDecoder().push(bytes, 0);
  expect(frames).toHaveLength(1);
  return frames[0] as RawFrame;
}

/** host→gw: encode byte-exact, and the gateway side decodes it back. */
function checkHostToGw(cmd: HostCommand, usb: string): void {
  const bytes = encodeHostCommand(cmd);
  expect(toHexSpaced(bytes)).toBe(usb);
  const gc = decodeGatewayCommand(gwDecodeOne(bytes));
  expect(gc).not.toBeNull();
  if (cmd.kind === 'm2n') {
    expect(gc).toMatchObject({ kind: 'm2n', typeFull: opcodeOf(cmd.request), receiver: cmd.receiver });
    if (gc?.kind === 'm2n') expect(gc.body).toEqual(encodeRequestBody(cmd.request));
  } else {
    expect(gc?.kind).toBe(cmd.kind);
  }
}

/** gw→host: encode byte-exact, and the host side decodes the same event. */
function checkGwToHost(ev: GatewayInbound, usb: string): void {
  const bytes = encodeGatewayInbound(ev);
  expect(toHexSpaced(bytes)).toBe(usb);
  const decoded = decodeGatewayInbound(hostDecodeOne(bytes));
  expect(decoded).toEqual(ev);
}

/** M2N request as the gateway would put it on air (sender = gateway). */
function onAir(receiver: string, req: M2NRequest): string {
  return toHexSpaced(
    encodeLoraPacket({ sender: GW, receiver, typeFull: opcodeOf(req), body: encodeRequestBody(req) }),
  );
}

function m2n(receiver: string, request: M2NRequest): HostCommand {
  return { kind: 'm2n', receiver, request };
}

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
