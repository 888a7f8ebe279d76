/**
 * After a scene frame went out, the host's device rows follow what it asked the nodes to
 * show (as control does): an immediate PRESET sets preset and brightness, an immediate
 * CONTROL the effect, brightness and flags of every known device it addresses. Armed
 * CONTROLs change nothing until their SYNC, and what a node did is confirmed only by its
 * next status reply.
 */
import type { Device } from '../../domain/model.ts';
import { FLAG } from '../../protocol/flags.ts';
import { BROADCAST } from '../../protocol/types.ts';
import type { Store } from '../../state/store.ts';
import type { PlannedFrame } from './plan/planner.ts';

const BROADCAST_GROUP = 255;

/** What the mirror reads of a frame (a scene's planned frame, or a flag's look). */
export type SentFrame = Pick<PlannedFrame, 'receiver' | 'request' | 'network'>;

function reached(all: readonly Device[], f: SentFrame, groupId: number): Device[] {
  // A frame planned for one network reaches only that network's nodes.
  const devices = f.network === undefined ? all : all.filter((d) => d.network_id === f.network);
  if (f.receiver !== BROADCAST) return devices.filter((d) => d.addr === f.receiver);
  return groupId === BROADCAST_GROUP ? [...devices] : devices.filter((d) => d.groupId === groupId);
}

/** Applies the frames that were sent, in one store change. */
export function mirrorSentFrames(store: Store, frames: readonly SentFrame[]): void {
  const changes: (() => void)[] = [];
  for (const f of frames) {
    const r = f.request;
    if (r.op === 'PRESET') {
      for (const d of reached(store.state.devices, f, r.groupId))
        changes.push(() => {
          d.presetId = r.presetId;
          d.brightness = r.brightness;
        });
    } else if (r.op === 'CONTROL' && (r.flags & FLAG.ARM_ON_SYNC) === 0) {
      for (const d of reached(store.state.devices, f, r.groupId))
        changes.push(() => {
          d.flags = r.flags;
          if (r.fields.mode !== undefined) d.effectId = r.fields.mode;
          if ((r.flags & FLAG.POWER_ON) === 0) d.brightness = 0;
          else if (r.fields.brightness !== undefined) d.brightness = r.fields.brightness;
        });
    }
  }
  if (changes.length > 0) store.mutate(['DEVICES'], () => changes.forEach((c) => c()));
}
