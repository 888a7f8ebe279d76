/**
 * The driver's inbound fan-out: every packet the gateway hears is tagged `offchannel` while
 * a lease is held, counted and mirrored when it is a reply, recorded when it is an
 * IDENTIFY_REPLY (announcements.ts), then handed to the observers, the `packet` event and
 * the reply matchers.
 */
import { BROADCAST } from '../protocol/types.ts';
import type { AnnouncementLog } from './announcements.ts';
import type { DriverDiagnostics } from './driver-types.ts';
import type { LeaseGate } from './lease.ts';
import type { MasterState } from './master-state.ts';
import type { MatcherRegistry } from './matcher.ts';
import type { DriverLog } from './operations.ts';
import type { InboundPacket } from './types.ts';
import { errText } from '../util/err-text.ts';

export interface InboundDeps {
  log: DriverLog;
  leases: LeaseGate;
  counters: Pick<DriverDiagnostics, 'replies'>;
  mirror: MasterState;
  announcements: AnnouncementLog;
  matchers: MatcherRegistry;
  /** The driver's guarded `packet` event. */
  emitPacket: (p: InboundPacket) => void;
}

export class InboundDispatch {
  private readonly observers = new Set<(p: InboundPacket) => void>();

  constructor(private readonly deps: InboundDeps) {}

  observe(fn: (p: InboundPacket) => void): () => boolean {
    this.observers.add(fn);
    return () => this.observers.delete(fn);
  }

  dispatch(raw: InboundPacket): void {
    const { leases, counters, mirror, announcements, log } = this.deps;
    const p: InboundPacket = leases.detail === null ? raw : { ...raw, offchannel: true };
    const r = p.reply;
    if (r) {
      counters.replies++;
      mirror.reply(r);
    }
    if (r?.kind === 'IDENTIFY_REPLY') {
      const id = { addr: p.packet.sender, reply: r, rssi: p.rssi, snr: p.snr, ts: p.ts };
      if (p.packet.receiver === BROADCAST) announcements.announced(id);
      else announcements.identified(id);
    }
    // A throwing observer must neither crash the process (the exception would surface in
    // the link's data callback) nor keep the packet from the others and the matchers.
    for (const fn of [...this.observers]) {
      try {
        fn(p);
      } catch (err) {
        log.error({ err: errText(err) }, 'inbound packet observer threw');
      }
    }
    this.deps.emitPacket(p);
    this.deps.matchers.offer(p);
  }
}
