/**
 * The words of a refusal (409): the operator reads them in a toast, OSC sends them to
 * `/lightnet/error`, the Log keeps them. They say who holds the target in plain terms (the
 * source's label, which flag), how long it has held it so far ("for the last 14 s": a live hold
 * has no set end while its stream lives, so the time is never a countdown), the group by its
 * name where the host knows it, and the way out. The 409 body's `holder` keeps the
 * exact fields (ids, priorities, epoch times) for programs.
 */
import { OPERATOR_SOURCE } from './sources.ts';
import { sameTarget, targetLabel } from './targets.ts';
import type { Hold, Target } from './types.ts';

/** The flag service's source id (services/flags imports the path, so it is spelt here). */
const FLAG_SOURCE = 'flag';

export interface RefusalContext {
  /** The source's display label (`FPVTrackside`), or its id when unknown. */
  labelOf: (sourceId: string) => string;
  /** A group's name (`Start Gate`), or null when unknown: the number alone is shown. */
  groupName?: (id: number) => string | null;
  /** The source whose command is refused. */
  requester: string;
  takeOverPriority: number;
  now: number;
}

/** `Start Gate (group 1)` where the group's name is known, else `group 1`; `all`, `device …` as is. */
export function targetWords(t: Target, ctx: RefusalContext): string {
  if (t.kind !== 'group') return targetLabel(t);
  const name = ctx.groupName?.(t.id);
  return name ? `${name} (group ${t.id})` : targetLabel(t);
}

/** How long the hold has lasted so far, never read as time left: `for the last 14 s`. */
function heldFor(h: Hold, ctx: RefusalContext): string {
  return `for the last ${ago(ctx.now - h.since)}`;
}

/** `850 ms` → `1 s`, `75 s` → `1 min 15 s`, `3700 s` → `1 h 1 min`. */
export function ago(ms: number): string {
  const s = Math.max(1, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  const h = Math.floor(m / 60);
  return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
}

/** The flag a flag hold shows (its action reads `flag red (ui)`), or null. */
function flagOf(h: Hold): string | null {
  const m = /^flag (\w+)/.exec(h.action);
  return m ? (m[1] ?? null) : null;
}

/** `the red flag (priority 90)`, `FPVTrackside (race, 80)`, `the operator's take-over (priority 85)`. */
export function holderWords(h: Hold, ctx: RefusalContext): string {
  if (h.source === FLAG_SOURCE) return `the ${flagOf(h) ?? 'race'} flag (priority ${h.priority})`;
  if (h.source === OPERATOR_SOURCE && h.mode === 'until-release')
    return `the operator's take-over (priority ${h.priority})`;
  return `${ctx.labelOf(h.source)} (${h.sourceClass}, ${h.priority})`;
}

/** What the refused caller can do about it. */
export function wayOut(h: Hold, ctx: RefusalContext): string {
  if (h.source === FLAG_SOURCE) return 'clear the flag first';
  if (h.source === OPERATOR_SOURCE && h.mode === 'until-release')
    return ctx.requester === OPERATOR_SOURCE ? 'hand it back first' : 'wait until the operator hands it back';
  const canTakeOver = ctx.requester === OPERATOR_SOURCE && h.priority < ctx.takeOverPriority;
  const wait =
    h.mode === 'run'
      ? `wait for ${h.action.startsWith('scene ') ? `the ${h.action}` : 'it'} to end`
      : h.mode === 'live'
        ? `wait until it goes quiet (free in ${ago((h.expiresAt ?? ctx.now) - ctx.now)} without new commands)`
        : `wait until ${ctx.labelOf(h.source)} releases it`;
  return canTakeOver ? `Take over to change it, or ${wait}` : wait;
}

/** `Start Gate (group 1) is held by the red flag (priority 90) for the last 12 s — clear the flag first`. */
export function refusalText(target: Target, h: Hold, ctx: RefusalContext): string {
  const via = sameTarget(h.target, target) ? '' : `, as part of ${targetWords(h.target, ctx)}`;
  return `${targetWords(target, ctx)} is held by ${holderWords(h, ctx)} ${heldFor(h, ctx)}${via} — ${wayOut(h, ctx)}`;
}

/** A take-over refused by a hold above the take-over priority (a red flag, Blackout's kin). */
export function takeOverRefusal(target: Target, h: Hold, ctx: RefusalContext): string {
  const out = h.source === FLAG_SOURCE ? 'clear the flag first' : wayOut(h, { ...ctx, requester: h.source });
  return (
    `target: ${targetWords(target, ctx)} is held by ${holderWords(h, ctx)} ${heldFor(h, ctx)}, ` +
    `above the take-over priority (${ctx.takeOverPriority}) — ${out}`
  );
}
