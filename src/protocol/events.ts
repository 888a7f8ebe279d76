/** Gateway → host frames (§4): events and forwarded LoRa packets. */
import { EV, GW_STATE, TX_REJECT, DIR_N2M, type GatewayInbound, type RawFrame } from './types.ts';
import { concatBytes, rd8, rdI16, rdI8, rdU16, u8 } from './bytes.ts';
import { encodeFrame, hostFrameValid } from './framing.ts';
import { decodeLoraPacket, encodeLoraPacket } from './packets.ts';
import { decodeReplyBody } from './replies.ts';
import { decodeRfConfig, encodeRfConfig } from './rf.ts';

/** Largest raw LoRa packet the gateway copies into a forwarded frame. */
export const FORWARD_MAX_PACKET = 32;

const clampInt = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, Math.trunc(v)));

export function encodeGatewayInbound(ev: GatewayInbound): Uint8Array {
  switch (ev.kind) {
    case 'state': {
      const type = ev.report ? EV.STATE_REPORT : EV.STATE_CHANGED;
      const state = u8('state', ev.state);
      if (state !== GW_STATE.RX_WINDOW) return encodeFrame(type, Uint8Array.from([state]));
      const ms = clampInt(ev.metadataMs, 0, 0xffff);
      return encodeFrame(type, Uint8Array.from([state, ms & 0xff, ms >>> 8]));
    }
    case 'tx_done':
      return encodeFrame(EV.TX_DONE, Uint8Array.from([0x01]));
    case 'tx_rejected':
      return encodeFrame(
        EV.TX_REJECTED,
        Uint8Array.from([u8('typeFull', ev.typeFull), u8('reason', ev.reason)]),
      );
    case 'rf_changed':
      return encodeFrame(EV.RF_CHANGED, concatBytes([u8('reason', ev.reason)], encodeRfConfig(ev.rf)));
    case 'error':
      return encodeFrame(EV.ERROR, new TextEncoder().encode(ev.text));
    case 'packet': {
      const raw = encodeLoraPacket(ev.packet).subarray(0, FORWARD_MAX_PACKET);
      const rssi = clampInt(ev.rssi, -32768, 32767) & 0xffff;
      const snr = clampInt(ev.snr, -128, 127) & 0xff;
      return encodeFrame(ev.packet.typeFull, concatBytes(raw, [rssi & 0xff, rssi >>> 8, snr]));
    }
  }
}

/** Host side; null for frames that do not fit any known shape. */
export function decodeGatewayInbound(frame: RawFrame): GatewayInbound | null {
  const { type, data } = frame;
  if (!hostFrameValid(type, data)) return null;
  switch (type) {
    case EV.ERROR:
      return { kind: 'error', text: new TextDecoder().decode(data) };
    case EV.STATE_CHANGED:
    case EV.STATE_REPORT:
      return {
        kind: 'state',
        report: type === EV.STATE_REPORT,
        state: rd8(data, 0),
        metadataMs: data.length === 3 ? rdU16(data, 1) : 0,
      };
    case EV.TX_DONE:
      return { kind: 'tx_done' };
    case EV.TX_REJECTED:
      return { kind: 'tx_rejected', typeFull: rd8(data, 0), reason: rd8(data, 1) };
    case EV.RF_CHANGED:
      return { kind: 'rf_changed', reason: rd8(data, 0), rf: decodeRfConfig(data, 1) };
  }
  const n = data.length;
  const packet = decodeLoraPacket(data.subarray(0, n - 3));
  if (!packet) return null;
  const reply = packet.typeFull & DIR_N2M ? decodeReplyBody(packet.typeFull, packet.body) : null;
  return { kind: 'packet', packet, rssi: rdI16(data, n - 3), snr: rdI8(data, n - 1), reply };
}

const STATE_NAMES: Record<number, string> = {
  [GW_STATE.IDLE]: 'IDLE',
  [GW_STATE.TX]: 'TX',
  [GW_STATE.RX_WINDOW]: 'RX_WINDOW',
  [GW_STATE.RX]: 'RX',
  [GW_STATE.ERROR]: 'ERROR',
  [GW_STATE.UNKNOWN]: 'UNKNOWN',
};

const hexByte = (b: number): string => `0x${(b & 0xff).toString(16).padStart(2, '0').toUpperCase()}`;

export function stateName(b: number): string {
  return STATE_NAMES[b] ?? hexByte(b);
}

const REJECT_NAMES: Record<number, string> = {
  [TX_REJECT.TXPENDING]: 'txPending',
  [TX_REJECT.OVERSIZE]: 'oversize',
  [TX_REJECT.ZEROLEN]: 'zeroLen',
  [TX_REJECT.UNKNOWN]: 'unknown',
};

export function rejectReasonName(code: number): string {
  return REJECT_NAMES[code] ?? hexByte(code);
}
