/**
 * The one decision of the command path: may this command go out, and what do the holds look
 * like afterwards. Pure and synchronous (no I/O, no clock: `now` comes in the intent), so it is
 * cheap enough to sit in front of every control and easy to check with properties.
 *
 * The rule:
 * 1. Live holds whose source has been silent past their timeout have lapsed: they count for nothing.
 * 2. A command is refused when any of its targets overlaps a hold of ANOTHER source whose
 *    priority is at least the command's (equal priority: the holder keeps it). Refused means the
 *    table is unchanged — nothing is queued behind the holder and no target is half-applied.
 * 3. Accepted, it takes away the overlapping holds of other sources (all lower by rule 2), and
 *    — unless its hold mode is `none` — holds each of its targets itself (a hold of its own on
 *    the same target is replaced, keeping the older `since` and the higher priority).
 */
import { overlaps, sameTarget } from './targets.ts';
import type { Decision, Hold, Intent, Target } from './types.ts';

const live = (h: Hold, now: number): boolean => h.expiresAt === null || h.expiresAt > now;

export function decide(table: readonly Hold[], intent: Intent): Decision {
  const { now } = intent;
  const current = table.filter((h) => live(h, now));
  for (const target of intent.targets) {
    let holder: Hold | null = null;
    for (const h of current) {
      if (h.source === intent.source || h.priority < intent.priority) continue;
      if (!overlaps(h.target, target)) continue;
      if (!holder || h.priority > holder.priority) holder = h;
    }
    if (holder) return { ok: false, holder, target };
  }
  const dropped: Hold[] = [];
  const kept: Hold[] = [];
  for (const h of current) {
    if (h.source !== intent.source && intent.targets.some((t) => overlaps(h.target, t))) dropped.push(h);
    else kept.push(h);
  }
  const lapsed = table.filter((h) => !live(h, now));
  if (intent.hold === 'none') return { ok: true, holds: kept, dropped, lapsed };
  const mode = intent.hold;
  const expiresAt = mode === 'live' ? now + intent.liveTimeoutMs : null;
  const holds = kept.slice();
  for (const target of dedupe(intent.targets)) {
    const i = holds.findIndex((h) => h.source === intent.source && sameTarget(h.target, target));
    const prev = i >= 0 ? holds[i] : undefined;
    const next: Hold = {
      target,
      source: intent.source,
      sourceClass: intent.sourceClass,
      priority: Math.max(intent.priority, prev?.mode === 'until-release' ? prev.priority : 0),
      // An explicit hold is not demoted to a live one by the same source's next command.
      mode: prev?.mode === 'until-release' ? 'until-release' : mode,
      since: prev?.since ?? now,
      expiresAt: prev?.mode === 'until-release' ? null : expiresAt,
      action: prev?.mode === 'until-release' ? prev.action : intent.action,
      ticket: prev?.mode === 'until-release' ? prev.ticket : intent.ticket,
    };
    if (i >= 0) holds[i] = next;
    else holds.push(next);
  }
  return { ok: true, holds, dropped, lapsed };
}

/** The table without `source`'s holds on `target` (every target of the source when absent). */
export function release(
  table: readonly Hold[],
  source: string,
  target?: Target,
): { holds: Hold[]; released: Hold[] } {
  const released: Hold[] = [];
  const holds: Hold[] = [];
  for (const h of table) {
    if (h.source === source && (!target || sameTarget(h.target, target))) released.push(h);
    else holds.push(h);
  }
  return { holds, released };
}

/** The table without the holds a command set (a run that ended); a later command's holds stay. */
export function releaseTicket(table: readonly Hold[], ticket: number): { holds: Hold[]; released: Hold[] } {
  const released = table.filter((h) => h.ticket === ticket);
  return { holds: table.filter((h) => h.ticket !== ticket), released };
}

function dedupe(targets: readonly Target[]): Target[] {
  const out: Target[] = [];
  for (const t of targets) if (!out.some((o) => sameTarget(o, t))) out.push(t);
  return out;
}
