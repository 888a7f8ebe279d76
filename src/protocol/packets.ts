/**
 * M2N request bodies (§6), LoRa packets (§5.1) and the OFFSET arithmetic (§6.9).
 * `encodeRequestBody` produces the body the host puts in its USB request frame (for STREAM:
 * the whole logical payload, which the gateway fragments); `decodeRequestBody` is the strict
 * node-side parse.
 */
import { OPC, type LoraPacket, type M2NRequest, type OffsetConfig } from './types.ts';
import { addrToBytes, bytesToAddr } from './addr.ts';
import { checkInt, i16le, rd8, rdI16, rdU16, u16le, u8 } from './bytes.ts';
import { decodeControl, encodeControl } from './control.ts';
import { decodeRfConfig, encodeRfConfig, RF_CONFIG_LEN } from './rf.ts';

export { controlBodyLength, FIELD, EXT } from './control.ts';
export {
  fragmentStream,
  StreamReassembler,
  STREAM_START,
  STREAM_STOP,
  STREAM_MAX_PAYLOAD,
} from './stream.ts';

export const HEADER_LEN = 7;

export function opcodeOf(req: M2NRequest): number {
  return OPC[req.op];
}

export const OFFSET_MODE = { NONE: 0x00, EXPLICIT: 0x01, LINEAR: 0x02, VSHAPE: 0x03, MODULO: 0x04 } as const;
const OFFSET_BODY_LEN: Record<number, number> = { 0: 2, 1: 4, 2: 6, 3: 7, 4: 7 };

function encodeOffset(groupId: number, o: OffsetConfig): number[] {
  const head = [u8('groupId', groupId), OFFSET_MODE[o.mode]];
  switch (o.mode) {
    case 'NONE':
      return head;
    case 'EXPLICIT':
      return [...head, ...u16le('offsetMs', o.offsetMs)];
    case 'LINEAR':
      return [...head, ...i16le('baseMs', o.baseMs), ...i16le('stepMs', o.stepMs)];
    case 'VSHAPE':
      return [...head, ...i16le('baseMs', o.baseMs), ...i16le('stepMs', o.stepMs), u8('center', o.center)];
    case 'MODULO':
      return [...head, ...i16le('baseMs', o.baseMs), ...i16le('stepMs', o.stepMs), u8('cycle', o.cycle)];
  }
}

function decodeOffset(b: Uint8Array): OffsetConfig | null {
  const mode = rd8(b, 1);
  if (OFFSET_BODY_LEN[mode] !== b.length) return null;
  switch (mode) {
    case 0:
      return { mode: 'NONE' };
    case 1:
      return { mode: 'EXPLICIT', offsetMs: rdU16(b, 2) };
    case 2:
      return { mode: 'LINEAR', baseMs: rdI16(b, 2), stepMs: rdI16(b, 4) };
    case 3:
      return { mode: 'VSHAPE', baseMs: rdI16(b, 2), stepMs: rdI16(b, 4), center: rd8(b, 6) };
    default:
      return { mode: 'MODULO', baseMs: rdI16(b, 2), stepMs: rdI16(b, 4), cycle: rd8(b, 6) };
  }
}

/** Per-node offset (§6.9): 32-bit signed arithmetic, clamped to 0..65535. */
export function computeOffsetMs(cfg: OffsetConfig, groupId: number): number {
  const g = groupId | 0;
  let v: number;
  switch (cfg.mode) {
    case 'NONE':
      return 0;
    case 'EXPLICIT':
      v = cfg.offsetMs;
      break;
    case 'LINEAR':
      v = (cfg.baseMs + Math.imul(g, cfg.stepMs)) | 0;
      break;
    case 'VSHAPE':
      v = (cfg.baseMs + Math.imul(Math.abs(g - cfg.center), cfg.stepMs)) | 0;
      break;
    case 'MODULO': {
      const cycle = cfg.cycle === 0 ? 1 : cfg.cycle;
      v = (cfg.baseMs + Math.imul(g % cycle, cfg.stepMs)) | 0;
      break;
    }
  }
  return Math.min(65535, Math.max(0, v));
}

export function encodeRequestBody(req: M2NRequest): Uint8Array {
  switch (req.op) {
    case 'DEVICES':
    case 'STATUS':
      return Uint8Array.from([u8('groupId', req.groupId), u8('flags', req.flags ?? 0)]);
    case 'SET_GROUP':
      return Uint8Array.from([u8('groupId', req.groupId)]);
    case 'PRESET':
      return Uint8Array.from([
        u8('groupId', req.groupId),
        u8('flags', req.flags),
        u8('presetId', req.presetId),
        u8('brightness', req.brightness),
      ]);
    case 'CONFIG':
      if (req.data.length !== 4) throw new RangeError('data must have 4 bytes');
      return Uint8Array.from([u8('option', req.option), ...req.data.map((d, i) => u8(`data${i}`, d))]);
    case 'SYNC': {
      const ts = checkInt('ts24', req.ts24, 0, 0xffffff);
      const b = [ts & 0xff, (ts >>> 8) & 0xff, (ts >>> 16) & 0xff, u8('brightness', req.brightness)];
      if (req.flags !== undefined) b.push(u8('flags', req.flags));
      return Uint8Array.from(b);
    }
    case 'STREAM':
      checkInt('payload length', req.payload.length, 1, 128);
      return Uint8Array.from(req.payload);
    case 'CONTROL':
      return encodeControl(req.groupId, req.flags, req.fields);
    case 'OFFSET':
      return Uint8Array.from(encodeOffset(req.groupId, req.offset));
    case 'GET_CONFIG':
      return Uint8Array.from([u8('option', req.option)]);
    case 'HEADLESS':
      return Uint8Array.from([u8('sceneId', req.sceneId), u8('brightness', req.brightness)]);
    case 'INDICATE':
      return Uint8Array.from([u8('type', req.type), u8('durationSec', req.durationSec)]);
    case 'RF_CONFIG':
      return encodeRfConfig(req.rf);
    case 'GET_RF_CONFIG':
      return Uint8Array.from([u8('reserved', req.reserved ?? 0)]);
  }
}

/**
 * Strict node-side parse (exact lengths, §6/§8.2 step 7). Returns null for anything the node
 * would silently ignore. STREAM here is the logical payload (1..128 B); on-air fragments go
 * through StreamReassembler.
 */
export function decodeRequestBody(opcode: number, b: Uint8Array): M2NRequest | null {
  const n = b.length;
  switch (opcode) {
    case OPC.DEVICES:
      return n === 2 ? { op: 'DEVICES', groupId: rd8(b, 0), flags: rd8(b, 1) } : null;
    case OPC.SET_GROUP:
      return n === 1 ? { op: 'SET_GROUP', groupId: rd8(b, 0) } : null;
    case OPC.STATUS:
      return n === 2 ? { op: 'STATUS', groupId: rd8(b, 0), flags: rd8(b, 1) } : null;
    case OPC.PRESET:
      return n === 4
        ? { op: 'PRESET', groupId: rd8(b, 0), flags: rd8(b, 1), presetId: rd8(b, 2), brightness: rd8(b, 3) }
        : null;
    case OPC.CONFIG:
      return n === 5
        ? { op: 'CONFIG', option: rd8(b, 0), data: [rd8(b, 1), rd8(b, 2), rd8(b, 3), rd8(b, 4)] }
        : null;
    case OPC.SYNC: {
      if (n !== 4 && n !== 5) return null;
      const ts24 = rd8(b, 0) | (rd8(b, 1) << 8) | (rd8(b, 2) << 16);
      return n === 5
        ? { op: 'SYNC', ts24, brightness: rd8(b, 3), flags: rd8(b, 4) }
        : { op: 'SYNC', ts24, brightness: rd8(b, 3) };
    }
    case OPC.STREAM:
      return n >= 1 && n <= 128 ? { op: 'STREAM', payload: Uint8Array.from(b) } : null;
    case OPC.CONTROL: {
      const c = decodeControl(b);
      return c ? { op: 'CONTROL', ...c } : null;
    }
    case OPC.OFFSET: {
      if (n < 2) return null;
      const offset = decodeOffset(b);
      return offset ? { op: 'OFFSET', groupId: rd8(b, 0), offset } : null;
    }
    case OPC.GET_CONFIG:
      return n === 1 ? { op: 'GET_CONFIG', option: rd8(b, 0) } : null;
    case OPC.HEADLESS:
      return n === 2 ? { op: 'HEADLESS', sceneId: rd8(b, 0), brightness: rd8(b, 1) } : null;
    case OPC.INDICATE:
      return n === 2 ? { op: 'INDICATE', type: rd8(b, 0), durationSec: rd8(b, 1) } : null;
    case OPC.RF_CONFIG:
      return n === RF_CONFIG_LEN ? { op: 'RF_CONFIG', rf: decodeRfConfig(b) } : null;
    case OPC.GET_RF_CONFIG:
      return n === 1 ? { op: 'GET_RF_CONFIG', reserved: rd8(b, 0) } : null;
    default:
      return null;
  }
}

export function encodeLoraPacket(p: LoraPacket): Uint8Array {
  const out = new Uint8Array(HEADER_LEN + p.body.length);
  out.set(addrToBytes(p.sender), 0);
  out.set(addrToBytes(p.receiver), 3);
  out[6] = u8('typeFull', p.typeFull);
  out.set(p.body, HEADER_LEN);
  return out;
}

export function decodeLoraPacket(bytes: Uint8Array): LoraPacket | null {
  if (bytes.length < HEADER_LEN) return null;
  return {
    sender: bytesToAddr(bytes, 0),
    receiver: bytesToAddr(bytes, 3),
    typeFull: bytes[6] as number,
    body: bytes.slice(HEADER_LEN),
  };
}
