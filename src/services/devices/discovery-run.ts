/**
 * Discovery at fleet scale: DEVICES rounds, and right after EACH round its responders leave
 * the crowd by a pipelined SET_GROUP (into the target group, or into a parking group that
 * is moved back at the end when the nodes are to stay unconfigured). The group byte is the
 * wire's only filter (no "unknown nodes only" address, no reply slots), so a node stops
 * answering only once it left the filtered group.
 *
 * - Window: each round's ceiling comes from the crowd still expected to answer (twice the
 *   last round's news unless that round was quiet, plus the unbound ones) at the pace of one IDENTIFY slot each, bounded
 *   by the driver's 5 s; tail rounds over a nearly empty crowd cost well under a second.
 * - Binding: every found-but-unbound node is retried in every later round (weak links
 *   answer one exchange in a few), so a node heard once is not lost to one bad SET_GROUP.
 * - Stop rule: the expected number of nodes still out there, E = R·0.2^m + (K + W)·(8/9)^m
 *   after m rounds in a row without news, where R extrapolates the geometric decay of the
 *   news per round, K counts devices the registry knows in this filter but did not hear,
 *   and W is a prior for one more weak node (0.3 once weak links were seen, else 0.1).
 *   Healthy nodes answer a small crowd's round almost surely (factor 0.2), a weak node ~1
 *   time in 9. Discovery ends when E < 0.1 after at least two quiet rounds, or at the
 *   time budget.
 */
import type { Clock } from '../../clock.ts';
import type { GatewayDriver } from '../../gateway/types.ts';
import type { Addr } from '../../protocol/types.ts';
import type { TaskContext } from '../../tasks/task-manager.ts';
import type { DeviceRegistry } from './registry.ts';
import { radioPace, snrFloorDb } from './radio-pace.ts';
import { PIPELINE_ATTEMPT_TIMEOUT_MS, runUnicastPipeline } from './unicast-pipeline.ts';

/** Above this many new nodes in a round, unconfigured nodes are parked rather than bound to 0. */
export const PARK_ABOVE = 16;
/** Safety net only: discovery never stops on reachable nodes for a round count. */
export const DISCOVERY_BUDGET_MS = 600_000;
const STOP_BELOW = 0.1;
const MIN_QUIET_ROUNDS = 2;
/** SET_GROUP tries per node and round. */
const BIND_ATTEMPTS = 3;

export interface DiscoveryPlan {
  filter: number;
  /** Final group of every responder: a target group, or null for "keep the stored group". */
  target: number | null;
  /** Wire group to park responders in while the crowd is big, or null. */
  parkGroup: number | null;
}

export interface DiscoveryProgress {
  phase: 'DISCOVER' | 'BIND' | 'PARK' | 'UNPARK';
  round: number;
  found: number;
  bound: number;
  /** The stop rule's estimate of nodes still out there (after the round). */
  expectedRemaining: number | null;
}

export interface DiscoveryOutcome {
  found: Set<Addr>;
  placed: Set<Addr>;
  rounds: number;
}

export async function runDiscovery(
  deps: { driver: GatewayDriver; registry: DeviceRegistry; clock: Clock },
  ctx: TaskContext,
  plan: DiscoveryPlan,
  progress: (p: DiscoveryProgress) => void,
): Promise<DiscoveryOutcome> {
  const { driver, registry, clock } = deps;
  const pace = radioPace(driver);
  const slotMs = pace.airtimeMs(9) + 4 * pace.symbolMs + 20;
  const quietMs = pace.quietMs('identify');
  const weakBelow = snrFloorDb(driver.radioSettings().rf.sf) + 2;
  const started = clock.now();

  const found = new Set<Addr>();
  const placed = new Set<Addr>();
  const parked = new Set<Addr>();
  const stored = (a: Addr): number => registry.find(a)?.groupId ?? 0;
  const matches = (g: number): boolean => plan.filter === 255 || g === plan.filter;
  const knownBefore = registry
    .all()
    .filter((d) => matches(d.groupId))
    .map((d) => d.addr);
  // Nodes leave the crowd only if they leave the filtered group.
  const leaves = (group: number): boolean => !matches(group);
  let weakSeen = false;
  let lastNew: number | null = null;
  let prevNew: number | null = null;
  let quiet = 0;
  let round = 0;
  let expected: number | null = null;
  const bound = (): number => placed.size + parked.size;
  const report = (phase: DiscoveryProgress['phase']): void =>
    progress({ phase, round, found: found.size, bound: bound(), expectedRemaining: expected });

  for (;;) {
    round++;
    ctx.checkpoint();
    const unbound = [...found].filter((a) => !placed.has(a) && !parked.has(a));
    // After a quiet round only the unbound (and the odd weak node) are left in the crowd.
    const crowd = lastNew === null ? null : (quiet > 0 ? 0 : 2 * lastNew) + unbound.length + 1;
    const windowMs = crowd === null ? undefined : Math.ceil(quietMs + crowd * slotMs);
    report('DISCOVER');
    let fresh = 0;
    await driver.discover({
      groupId: plan.filter,
      rounds: 1,
      ...(windowMs !== undefined ? { windowMs } : {}),
      priority: 'bulk',
      signal: ctx.signal,
      onReply: (r) => {
        if (r.snr < weakBelow) weakSeen = true;
        if (found.has(r.addr)) return;
        found.add(r.addr);
        fresh++;
        report('DISCOVER');
      },
    });
    ctx.checkpoint();
    // Bind (or park) everyone found but not yet out of the crowd.
    const park = plan.parkGroup !== null && fresh > PARK_ABOVE;
    const items = [...found]
      .filter((a) => !placed.has(a) && !parked.has(a))
      .map((addr) => ({ addr, groupId: park ? (plan.parkGroup ?? 0) : (plan.target ?? stored(addr)) }));
    if (items.length > 0)
      await bind(deps, ctx, items, park, pace.quietMs('ack'), placed, parked, () =>
        report(park ? 'PARK' : 'BIND'),
      );

    // Stop rule (see the header).
    if (fresh > 0) {
      quiet = 0;
      prevNew = lastNew;
      lastNew = fresh;
    } else {
      quiet++;
    }
    const last = lastNew ?? 0;
    const r = prevNew && last < prevNew ? last / prevNew : 0.5;
    const decay = (last * r) / (1 - Math.min(r, 0.9));
    const unheardKnown = knownBefore.filter((a) => !found.has(a)).length;
    const prior = weakSeen ? 0.3 : 0.1;
    expected = decay * 0.2 ** quiet + (unheardKnown + prior) * (8 / 9) ** quiet;
    report('DISCOVER');
    if (quiet >= MIN_QUIET_ROUNDS && expected < STOP_BELOW) break;
    if (found.size === 0 && quiet >= MIN_QUIET_ROUNDS && unheardKnown === 0) break;
    if (clock.now() - started > DISCOVERY_BUDGET_MS) break;
    // Responders that stay in the crowd answer every round: then only collisions can hide
    // a node, and a few quiet rounds settle it.
    if (!leaves(plan.target ?? plan.filter) && plan.parkGroup === null && quiet >= 3) break;
  }

  // Replies to the last round may still be on their way: let them land inside the task.
  await clock.sleep(quietMs, ctx.signal).catch(() => undefined);
  // Parked nodes go back to their stored group (0 for new ones).
  if (parked.size > 0) {
    const items = [...parked].map((addr) => ({ addr, groupId: stored(addr) }));
    parked.clear();
    await bind(deps, ctx, items, false, pace.quietMs('ack'), placed, parked, () => report('UNPARK'));
  }
  return { found, placed, rounds: round };
}

/** Pipelined SET_GROUP; confirmed nodes are recorded (unless parked) and leave the crowd. */
async function bind(
  deps: { driver: GatewayDriver; registry: DeviceRegistry; clock: Clock },
  ctx: TaskContext,
  items: readonly { addr: Addr; groupId: number }[],
  park: boolean,
  quietMs: number,
  placed: Set<Addr>,
  parked: Set<Addr>,
  report: () => void,
): Promise<void> {
  const { driver, registry, clock } = deps;
  const groupOf = new Map(items.map((i) => [i.addr, i.groupId]));
  report();
  await runUnicastPipeline(
    items.map((it) => ({
      key: it.addr,
      attempt: ({ onSent }) =>
        driver.setGroup(it.addr, it.groupId, {
          priority: 'bulk',
          attempts: 1,
          timeoutMs: PIPELINE_ATTEMPT_TIMEOUT_MS,
          onSent,
        }),
    })),
    {
      clock,
      attempts: BIND_ATTEMPTS,
      // Unbound nodes get more tries every round anyway: short pauses between these.
      backoffMs: () => 100,
      burst: { quietMs },
      accept: (v) => v.ok,
      // A cancel stops new SET_GROUPs; the ones in flight end with a known outcome, so the
      // stored groups stay true.
      signal: ctx.signal,
      abortInFlight: false,
      onOutcome: (o) => {
        if (!o.ok) return;
        if (park) parked.add(o.key);
        else {
          placed.add(o.key);
          registry.recordGroup(o.key, groupOf.get(o.key) ?? 0, false);
        }
        report();
      },
    },
  );
}
