/**
 * Nodes announce themselves after every boot with an unsolicited IDENTIFY_REPLY to
 * FFFFFF (§8.6). Those announcements are spread over the nodes' boot times, so they get
 * through where a discovery burst collides: on a busy channel the weakest nodes lose
 * every discovery round to stronger ones (capture), but their boot announcement was
 * heard. Discovery therefore counts announcements as found, next to its rounds: those
 * heard while it runs and those heard shortly before it started (discoveryAnnouncementMaxAgeMs,
 * 60 s by default, so that a node switched off since then is not reported as present).
 *
 * An entry is refreshed by every later IDENTIFY from the node and its group follows
 * successful SET_GROUPs through this driver, so a group filter sees the current group.
 */
import type { Addr } from '../protocol/types.ts';
import type { IdentifyResult } from './types.ts';

/** Upper bound on remembered nodes; the oldest entries go first. */
const MAX_ENTRIES = 10_000;

export class AnnouncementLog {
  private readonly byAddr = new Map<Addr, IdentifyResult>();

  /** A boot announcement (IDENTIFY_REPLY to broadcast). */
  announced(r: IdentifyResult): void {
    this.byAddr.delete(r.addr);
    this.byAddr.set(r.addr, r);
    if (this.byAddr.size > MAX_ENTRIES) {
      const oldest = this.byAddr.keys().next().value;
      if (oldest !== undefined) this.byAddr.delete(oldest);
    }
  }

  /** A solicited IDENTIFY from a node we remember: it reports its current group. */
  identified(r: IdentifyResult): void {
    if (this.byAddr.has(r.addr)) this.byAddr.set(r.addr, r);
  }

  /** The node acknowledged SET_GROUP(groupId). */
  groupChanged(addr: Addr, groupId: number): void {
    const r = this.byAddr.get(addr);
    if (r) this.byAddr.set(addr, { ...r, reply: { ...r.reply, groupId } });
  }

  /** Announcements not older than `maxAgeMs` whose node matches the group filter. */
  recent(now: number, maxAgeMs: number, groupFilter: number): IdentifyResult[] {
    const out: IdentifyResult[] = [];
    for (const r of this.byAddr.values()) {
      if (now - r.ts > maxAgeMs) continue;
      if (groupFilter !== 255 && r.reply.groupId !== groupFilter) continue;
      out.push(r);
    }
    return out;
  }
}
