/** The frames a lap flash sends and the ones that put a gate's look back after it. */
import type { M2NRequest, Rgb } from '../../../protocol/types.ts';
import type { LookMemory } from './looks.ts';
import type { Frame } from './types.ts';

/** The frame that puts back the look `f`'s receiver and group showed (dark when none). */
export function restoreFrame(f: Frame, looks: Pick<LookMemory, 'lookFor'>): Frame {
  const net = f.network !== undefined ? { network: f.network } : {};
  const groupId = requestGroup(f.request);
  const look = looks.lookFor(f.receiver, groupId);
  if (!look)
    return {
      ...net,
      receiver: f.receiver,
      request: { op: 'CONTROL', groupId, flags: 0, fields: { brightness: 0 } },
    };
  if (look.kind === 'preset') {
    const { flags, presetId, brightness } = look;
    return {
      ...net,
      receiver: f.receiver,
      request: { op: 'PRESET', groupId, flags, presetId, brightness },
    };
  }
  // Every field the flash changed is put back; fields the look never set get neutral values.
  const black: Rgb = [0, 0, 0];
  const fields = { mode: 0, brightness: 0, color1: black, color2: black, color3: black, ...look.fields };
  return { ...net, receiver: f.receiver, request: { op: 'CONTROL', groupId, flags: look.flags, fields } };
}

export function requestGroup(r: M2NRequest): number {
  return 'groupId' in r ? r.groupId : 255;
}

export function withColors(f: Frame, c1: Rgb, c2: Rgb, c3: Rgb): Frame {
  const r = f.request;
  if (r.op !== 'CONTROL') return f;
  return {
    ...f,
    request: { ...r, fields: { ...r.fields, color1: c1, color2: c2, color3: c3 } },
  };
}
