/**
 * What each gate was last told to show, so a lap flash can put it back. Fed with every frame
 * the scene runner sent (scenes, race phase looks, Event Action presets): immediate CONTROL
 * fields accumulate per address (a CONTROL changes only the fields it carries), a PRESET
 * replaces the look. Armed CONTROLs are ignored (they apply at a SYNC; the next immediate
 * frame is what stays).
 */
import { FLAG } from '../../../protocol/flags.ts';
import { BROADCAST, type ControlFields, type M2NRequest } from '../../../protocol/types.ts';

export type Look =
  | { kind: 'control'; flags: number; fields: ControlFields }
  | { kind: 'preset'; flags: number; presetId: number; brightness: number };

interface Entry {
  look: Look;
  seq: number;
}

const ALL = 255;
const key = (receiver: string, groupId: number): string => `${receiver}/${groupId}`;

export class LookMemory {
  private readonly byKey = new Map<string, Entry>();
  private seq = 0;

  note(frames: readonly { receiver: string; request: M2NRequest }[]): void {
    for (const f of frames) {
      const r = f.request;
      if (r.op === 'PRESET') {
        this.set(f.receiver, r.groupId, {
          kind: 'preset',
          flags: r.flags,
          presetId: r.presetId,
          brightness: r.brightness,
        });
      } else if (r.op === 'CONTROL' && (r.flags & FLAG.ARM_ON_SYNC) === 0) {
        const k = key(f.receiver, r.groupId);
        const prev = this.byKey.get(k)?.look;
        const fields = prev?.kind === 'control' ? { ...prev.fields, ...r.fields } : { ...r.fields };
        this.set(f.receiver, r.groupId, { kind: 'control', flags: r.flags, fields });
      }
    }
  }

  /**
   * The newest look that reached this address: its own, its group's (for a device), or
   * one sent to every device.
   */
  lookFor(receiver: string, groupId: number): Look | null {
    const candidates = [
      this.byKey.get(key(receiver, groupId)),
      receiver !== BROADCAST ? this.byKey.get(key(BROADCAST, groupId)) : undefined,
      this.byKey.get(key(BROADCAST, ALL)),
    ];
    let best: Entry | undefined;
    for (const c of candidates) if (c && (!best || c.seq > best.seq)) best = c;
    return best?.look ?? null;
  }

  private set(receiver: string, groupId: number, look: Look): void {
    this.byKey.set(key(receiver, groupId), { look, seq: this.seq++ });
  }
}
