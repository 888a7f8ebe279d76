/**
 * Builds the USB frame for one M2N request and refuses what the gateway or the nodes would
 * silently drop (or what would do harm as a broadcast), so the caller gets an 'invalid'
 * answer at once instead of a guard timeout or a fleet-wide side effect.
 */
import { isBroadcast } from '../protocol/addr.ts';
import { encodeHostCommand, m2nBodyLengthOk } from '../protocol/commands.ts';
import { OPC, type Addr, type M2NRequest } from '../protocol/types.ts';
import { errText } from '../util/err-text.ts';

/**
 * Opcodes the host refuses to broadcast: the ones nodes only accept as unicast (§8.4), and
 * SET_GROUP, which nodes would accept, but as a broadcast it would move every node in range
 * into one group ("host always unicasts", §8.4).
 */
const UNICAST_ONLY = new Set<number>([
  OPC.SET_GROUP,
  OPC.CONFIG,
  OPC.GET_CONFIG,
  OPC.RF_CONFIG,
  OPC.GET_RF_CONFIG,
]);

export type M2nFrame = { ok: true; frame: Uint8Array; typeFull: number } | { ok: false; detail: string };

export function buildM2nFrame(receiver: Addr, request: M2NRequest, label: string): M2nFrame {
  let frame: Uint8Array;
  try {
    frame = encodeHostCommand({ kind: 'm2n', receiver, request });
  } catch (err) {
    return { ok: false, detail: `${label}: ${errText(err)}` };
  }
  const typeFull = frame[2] as number;
  // The gateway silently drops wrong lengths (§3.4): catch it here, not after a 2 s guard.
  if (!m2nBodyLengthOk(typeFull, frame.length - 6)) {
    return { ok: false, detail: `${label}: body length not accepted` };
  }
  if (UNICAST_ONLY.has(typeFull) && isBroadcast(receiver)) {
    return { ok: false, detail: `${label}: unicast only, not broadcast` };
  }
  return { ok: true, frame, typeFull };
}
