/** Shared checks for the §11 test-vector suites. */
import { expect } from 'vitest';
import {
  DEFAULT_RF,
  GatewayFrameDecoder,
  HostFrameDecoder,
  decodeGatewayCommand,
  decodeGatewayInbound,
  encodeGatewayInbound,
  encodeHostCommand,
  encodeLoraPacket,
  encodeRequestBody,
  opcodeOf,
  type GatewayInbound,
  type HostCommand,
  type M2NRequest,
  type RawFrame,
  type RfConfig,
} from '../../../src/protocol/index.ts';
import { toHexSpaced } from './helpers.ts';

export const GW = '102030';
export const NODE = 'AABBCC';
export const RF_868_2: RfConfig = { ...DEFAULT_RF, freqHz: 868_200_000 };

/** Host decoder over a whole byte string; expects exactly one framed item. */
export function hostDecodeOne(bytes: Uint8Array): RawFrame {
  const d = new HostFrameDecoder();
  const items = d.push(bytes, 0);
  expect(items).toHaveLength(1);
  const it0 = items[0];
  if (!it0 || it0.kind !== 'frame') throw new Error('expected a frame');
  return it0.frame;
}

/** Gateway decoder over a whole byte string; expects exactly one frame. */
export function gwDecodeOne(bytes: Uint8Array): RawFrame {
  const frames = new GatewayFrameDecoder().push(bytes, 0);
  expect(frames).toHaveLength(1);
  return frames[0] as RawFrame;
}

/** host→gw: encode byte-exact, and the gateway side decodes it back. */
export function checkHostToGw(cmd: HostCommand, usb: string): void {
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
export function checkGwToHost(ev: GatewayInbound, usb: string): void {
  const bytes = encodeGatewayInbound(ev);
  expect(toHexSpaced(bytes)).toBe(usb);
  const decoded = decodeGatewayInbound(hostDecodeOne(bytes));
  expect(decoded).toEqual(ev);
}

/** M2N request as the gateway would put it on air (sender = gateway). */
export function onAir(receiver: string, req: M2NRequest): string {
  return toHexSpaced(
    encodeLoraPacket({ sender: GW, receiver, typeFull: opcodeOf(req), body: encodeRequestBody(req) }),
  );
}

export function m2n(receiver: string, request: M2NRequest): HostCommand {
  return { kind: 'm2n', receiver, request };
}
