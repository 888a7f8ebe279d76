/**
 * Host → gateway USB commands (§3): encoding on the host side and the gateway's own
 * dispatch (§2.6 order, §3.4 per-opcode body lengths) for the simulated gateway.
 */
import { GW_CMD, OPC, type GatewayCommand, type HostCommand, type RawFrame } from './types.ts';
import { addrToBytes, bytesToAddr } from './addr.ts';
import { concatBytes } from './bytes.ts';
import { encodeFrame } from './framing.ts';
import { encodeRequestBody, opcodeOf } from './packets.ts';
import { decodeRfConfig, encodeRfConfig } from './rf.ts';

export function encodeHostCommand(cmd: HostCommand): Uint8Array {
  switch (cmd.kind) {
    case 'identify':
      return encodeFrame(GW_CMD.IDENTIFY);
    case 'state_request':
      return encodeFrame(GW_CMD.STATE_REQUEST);
    case 'get_rf':
      return encodeFrame(GW_CMD.GET_RF_CONFIG);
    case 'set_rf':
      // The firmware persists only for exactly 0x01, so only 0x00/0x01 are ever sent.
      return encodeFrame(
        GW_CMD.SET_RF_CONFIG,
        concatBytes([cmd.persist ? 0x01 : 0x00], encodeRfConfig(cmd.rf)),
      );
    case 'm2n': {
      const body = encodeRequestBody(cmd.request);
      return encodeFrame(opcodeOf(cmd.request), concatBytes(addrToBytes(cmd.receiver), body));
    }
  }
}

/** Accepted M2N body lengths per opcode (§3.4): [min, max]. */
export const M2N_BODY_LEN: Readonly<Record<number, readonly [number, number]>> = {
  [OPC.DEVICES]: [2, 2],
  [OPC.SET_GROUP]: [1, 1],
  [OPC.STATUS]: [2, 2],
  [OPC.PRESET]: [4, 4],
  [OPC.CONFIG]: [5, 5],
  [OPC.SYNC]: [4, 5],
  [OPC.STREAM]: [1, 128],
  [OPC.CONTROL]: [3, 21],
  [OPC.OFFSET]: [2, 7],
  [OPC.GET_CONFIG]: [1, 1],
  [OPC.HEADLESS]: [2, 2],
  [OPC.INDICATE]: [2, 2],
  [OPC.RF_CONFIG]: [12, 12],
  [OPC.GET_RF_CONFIG]: [1, 1],
};

/** True when the gateway would accept an M2N body of this length for this opcode. */
export function m2nBodyLengthOk(opcode: number, n: number): boolean {
  const r = M2N_BODY_LEN[opcode];
  return r !== undefined && n >= r[0] && n <= r[1];
}

/** The gateway's dispatcher; null means the frame is silently ignored. */
export function decodeGatewayCommand(frame: RawFrame): GatewayCommand | null {
  const len = 1 + frame.data.length;
  const t = frame.type;
  if (len === 1 && t === GW_CMD.IDENTIFY) return { kind: 'identify' };
  if (len === 1 && t === GW_CMD.STATE_REQUEST) return { kind: 'state_request' };
  if (len === 1 && t === GW_CMD.GET_RF_CONFIG) return { kind: 'get_rf' };
  if (len === 14 && t === GW_CMD.SET_RF_CONFIG) {
    const rfBytes = frame.data.slice(1, 13);
    return { kind: 'set_rf', persistFlag: frame.data[0] as number, rf: decodeRfConfig(rfBytes), rfBytes };
  }
  if ((t & 0x80) === 0 && len >= 4) {
    const body = frame.data.slice(3);
    if (!m2nBodyLengthOk(t, body.length)) return null;
    return { kind: 'm2n', typeFull: t, receiver: bytesToAddr(frame.data, 0), body };
  }
  return null;
}
