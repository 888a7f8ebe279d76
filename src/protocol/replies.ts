/** N2M reply bodies (§6.1, §6.3, §6.10, §6.14, §6.15). */
import { DIR_N2M, OPC, type N2MReply } from './types.ts';
import { i8, rd8, rdI8, rdU16, u16le, u8 } from './bytes.ts';
import { macToString } from './addr.ts';
import { decodeRfConfig, encodeRfConfig, RF_CONFIG_LEN } from './rf.ts';

export { encodeRfConfig, decodeRfConfig, validateRfConfig, VALID_BW_KHZ_X10, RF_CONFIG_LEN } from './rf.ts';

export const TYPE_ACK = DIR_N2M | OPC.ACK; // 0xFE

export function replyTypeFull(r: N2MReply): number {
  switch (r.kind) {
    case 'IDENTIFY_REPLY':
      return DIR_N2M | OPC.DEVICES;
    case 'STATUS_REPLY':
      return DIR_N2M | OPC.STATUS;
    case 'ACK':
      return TYPE_ACK;
    case 'CONFIG_REPLY':
      return DIR_N2M | OPC.GET_CONFIG;
    case 'RF_CONFIG_REPLY':
      return DIR_N2M | OPC.GET_RF_CONFIG;
    case 'UNKNOWN':
      return DIR_N2M | (r.opcode & 0x7f);
  }
}

function macBytes(mac: string): number[] {
  const hex = mac.replace(/[^0-9a-fA-F]/g, '');
  if (hex.length !== 12) throw new RangeError(`mac must have 12 hex digits (got ${JSON.stringify(mac)})`);
  const out: number[] = [];
  for (let i = 0; i < 12; i += 2) out.push(parseInt(hex.slice(i, i + 2), 16));
  return out;
}

export function encodeReplyBody(r: N2MReply): Uint8Array {
  switch (r.kind) {
    case 'IDENTIFY_REPLY':
      return Uint8Array.from([
        u8('fw', r.fw),
        u8('devType', r.devType),
        u8('groupId', r.groupId),
        ...macBytes(r.mac),
      ]);
    case 'STATUS_REPLY': {
      const tail = [...u16le('vbatMv', r.vbatMv), i8('rssi', r.rssi), i8('snr', r.snr)];
      const head = r.legacy
        ? [u8('flags', r.flags), u8('effectId', r.effectId), u8('brightness', r.brightness)]
        : [
            u8('flags', r.flags),
            u8('configByte', r.configByte),
            u8('effectId', r.effectId),
            u8('brightness', r.brightness),
          ];
      return Uint8Array.from([...head, ...tail]);
    }
    case 'ACK':
      return Uint8Array.from([u8('ackOf', r.ackOf), u8('status', r.status), u8('seq', r.seq)]);
    case 'CONFIG_REPLY':
      if (r.data.length !== 4) throw new RangeError('data must have 4 bytes');
      return Uint8Array.from([u8('option', r.option), ...r.data.map((d, i) => u8(`data${i}`, d))]);
    case 'RF_CONFIG_REPLY':
      return encodeRfConfig(r.rf);
    case 'UNKNOWN':
      return Uint8Array.from(r.body);
  }
}

/** Never throws: unknown opcodes and mis-sized bodies come back as UNKNOWN. */
export function decodeReplyBody(typeFull: number, body: Uint8Array): N2MReply {
  const unknown: N2MReply = { kind: 'UNKNOWN', opcode: typeFull & 0x7f, body: Uint8Array.from(body) };
  if ((typeFull & DIR_N2M) === 0) return unknown;
  const n = body.length;
  switch (typeFull & 0x7f) {
    case OPC.DEVICES:
      if (n !== 9) return unknown;
      return {
        kind: 'IDENTIFY_REPLY',
        fw: rd8(body, 0),
        devType: rd8(body, 1),
        groupId: rd8(body, 2),
        mac: macToString(body.subarray(3, 9)),
      };
    case OPC.STATUS:
      if (n === 8) {
        return {
          kind: 'STATUS_REPLY',
          flags: rd8(body, 0),
          configByte: rd8(body, 1),
          effectId: rd8(body, 2),
          brightness: rd8(body, 3),
          vbatMv: rdU16(body, 4),
          rssi: rdI8(body, 6),
          snr: rdI8(body, 7),
          legacy: false,
        };
      }
      if (n === 7) {
        return {
          kind: 'STATUS_REPLY',
          flags: rd8(body, 0),
          configByte: 0,
          effectId: rd8(body, 1),
          brightness: rd8(body, 2),
          vbatMv: rdU16(body, 3),
          rssi: rdI8(body, 5),
          snr: rdI8(body, 6),
          legacy: true,
        };
      }
      return unknown;
    case OPC.ACK:
      return n === 3
        ? { kind: 'ACK', ackOf: rd8(body, 0) & 0x7f, status: rd8(body, 1), seq: rd8(body, 2) }
        : unknown;
    case OPC.GET_CONFIG:
      return n === 5
        ? {
            kind: 'CONFIG_REPLY',
            option: rd8(body, 0),
            data: [rd8(body, 1), rd8(body, 2), rd8(body, 3), rd8(body, 4)],
          }
        : unknown;
    case OPC.GET_RF_CONFIG:
      return n === RF_CONFIG_LEN ? { kind: 'RF_CONFIG_REPLY', rf: decodeRfConfig(body) } : unknown;
    default:
      return unknown;
  }
}
