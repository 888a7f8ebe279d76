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
 * - Small fleets whose responders leave the crowd (discovery into a group; the original
 *   host's discovery is one 5 s window, ours must not take longer than 6 s for a dozen
 *   nodes; discoveries whose responders stay keep the rules above unchanged): a FIRST window that falls silent before its full
 *   ceiling heard every node that was going to answer, so the next window is sized for the
 *   losers of collisions only (COLLISION_SHARE of its news) and R decays by that share. A
 *   round with no matching reply at all (silent) leaves a healthy node unheard only if it
 *   missed the request (SILENT_MISS instead of 0.2), so one silent round can end it; then
 *   the found-but-unbound (weak links that did not even answer it) are not retried: their
 *   group waits as pending and is pushed when they are next heard. The weak prior W scales
 *   with the fleet heard (full from PRIOR_FLEET nodes). Measured: 12 nodes 9.1/22.0/9.0 s →
 *   4.7/5.1/4.7 s (seeds 1–3), 300 nodes unchanged (bench/fleet.ts).
 *
 * Several networks (per-network.ts runs this once per network, `leg.parallel`; a leg that
 * found up to PARK_ABOVE nodes keeps the small-fleet rules, exactly as one gateway): a leg's
 * tail is its weak links, found one per several rounds and bound one per several tries.
 * With one gateway every round waits for their SET_GROUP tries (3 of up to ~0.9 s each per
 * unbound node), so a tail round costs ~2–3.5 s instead of ~0.7 s. A parallel leg instead:
 * - sends the tries of a handful of unbound nodes (≤ RETRY_BESIDE_MAX) beside the next
 *   DEVICES rounds (the pipeline and the round share the driver; in a tail crowd of one or
 *   two a try rarely meets a reply on the air);
 * - since a round then costs ~0.7 s, hunts with a stricter stop (weak prior LEG_WEAK_PRIOR
 *   0.6: 16 quiet rounds instead of 10, a 1-in-9 node missed 15 % instead of 31 % of the
 *   time) and, above PARK_ABOVE nodes, keeps going while a found node had fewer than
 *   LEG_MIN_TRIES tries, so it binds what the serial rounds bound.
 * Measured, 2 × 150 on two channels, 5 % loss (bench:networks and seeds 4–8 of the same
 * run): seeds 1–3 94.0/113.0/99.2 s → 78.8/88.1/74.5 s, found 300/300/299 → 300/300/300,
 * all bound; over seeds 1–8 −10 % time, found 2395 → 2398, bound 2395 → 2395. One gateway
 * is untouched (bench/fleet.ts gives the same figures).
 * - A leg past PARK_ABOVE nodes binds LEG_BIND_DEPTH (4) at a time, and each SET_GROUP try
 *   waits LEG_ATTEMPT_TIMEOUT_MS (620 ms: the latest burst-paced ACK + 45 ms) instead of
 *   800 ms: its first bind (~95 nodes, ~22 s) is its longest stretch, and its tail is tries
 *   to a few weak nodes one after the other. 32 seeds, 2 × 150 (with the poll's leg window,
 *   status/poll.ts): discovery −4.1 s per seed (t = −2.2; same-fleet method) / −3.4 s
 *   (t = −1.7; old method), found and bound 9586 → 9590 / 9589 → 9592.
 */
import type { Clock } from '../../../clock.ts';
import type { GatewayDriver } from '../../../gateway/types.ts';
import type { Addr } from '../../../protocol/types.ts';
import type { TaskContext } from '../../../tasks/task-manager.ts';
import type { DeviceRegistry } from '../registry/registry.ts';
import { radioPace, snrFloorDb } from '../radio/pace.ts';
import {
  DEFAULT_PIPELINE_DEPTH,
  LEG_ATTEMPT_TIMEOUT_MS,
  PIPELINE_ATTEMPT_TIMEOUT_MS,
  runUnicastPipeline,
} from '../radio/unicast-pipeline.ts';

/** Above this many new nodes in a round, unconfigured nodes are parked rather than bound to 0. */
export const PARK_ABOVE = 16;
/** Safety net only: discovery never stops on reachable nodes for a round count. */
export const DISCOVERY_BUDGET_MS = 600_000;
const STOP_BELOW = 0.1;
const MIN_QUIET_ROUNDS = 2;
/** SET_GROUP tries per node and round. */
const BIND_ATTEMPTS = 3;
const NONE: ReadonlySet<Addr> = new Set();
/** Share of a round's responders assumed lost to collisions when its window fell silent. */
const COLLISION_SHARE = 0.15;
/**
 * Chance that a healthy node in the crowd stays unheard through a round in which nothing
 * matching was heard at all: no reply competed with its own, so only a missed request hides it.
 */
const SILENT_MISS = 0.02;
/**
 * Parallel legs (see "Several networks" in the header): at most this many found-but-unbound
 * nodes get their SET_GROUP tries beside the next DEVICES round instead of before it.
 */
const RETRY_BESIDE_MAX = 3;
/** Parallel legs: a found node stays owed its tries (the leg goes on) until it had this many. */
const LEG_MIN_TRIES = 20;
/** Parallel legs: the weak-node prior W once weak links were seen (one gateway: 0.3). */
const LEG_WEAK_PRIOR = 0.6;
/**
 * Parallel legs past PARK_ABOVE nodes: SET_GROUPs in flight (one gateway: the pipeline's 3).
 * bench/pipeline-depth.ts, SET_GROUP in bursts: depth 3 5.3, depth 4 5.7 ACKs per second at
 * 6 % vs 9 % first-try loss; a leg's first bind (~95 nodes) is its longest stretch.
 */
const LEG_BIND_DEPTH = DEFAULT_PIPELINE_DEPTH + 1;
/** Fleet size from which the weak-node prior counts in full (a room of 12 rarely hides one). */
const PRIOR_FLEET = 100;

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
  /** Several networks (per-network.ts): each network's own leg, by network id. */
  networks?: Record<string, NetworkDiscoveryProgress>;
}

/** One network's leg of a discovery (task meta `networks`). */
export interface NetworkDiscoveryProgress {
  phase: DiscoveryProgress['phase'];
  round: number;
  found: number;
  bound: number;
  expected_remaining: number | null;
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
  /** `parallel`: one of several networks' legs (per-network.ts); see the header. */
  leg: { parallel?: boolean } = {},
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
  // Responders heard near the demodulation floor (an exchange succeeds one time in a few).
  const weak = new Set<Addr>();
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
  // How the last window ended, and whether it heard any reply at all.
  let lastEnd = 'max' as 'idle' | 'max';
  let heard = 0;
  // Chance that a healthy node still out there stayed unheard through the quiet rounds.
  let healthyMiss = 1;
  let firstAll = false;
  let lastSilent = false;
  // Parallel legs: SET_GROUP tries per found node, and the retries running beside a round.
  const tries = new Map<Addr, number>();
  let retrying: Promise<void> | null = null;
  const bound = (): number => placed.size + parked.size;
  const report = (phase: DiscoveryProgress['phase']): void =>
    progress({ phase, round, found: found.size, bound: bound(), expectedRemaining: expected });

  try {
    for (;;) {
      round++;
      ctx.checkpoint();
      const unbound = [...found].filter((a) => !placed.has(a) && !parked.has(a));
      // After a quiet round only the unbound (and the odd weak node) are left in the crowd.
      // A first window that fell silent before its full ceiling heard every node that was
      // going to answer: only the losers of collisions are left (a share of its news), not
      // another crowd. (Later windows are sized to an estimate, so their silence proves less.)
      const left =
        quiet > 0 ? 0 : firstAll ? Math.ceil(COLLISION_SHARE * (lastNew ?? 0)) : 2 * (lastNew ?? 0);
      // Bound nodes whose group still matches the filter (a small discovery into
      // Unconfigured, nobody parked) answer again: part of the crowd the window must hold.
      // (Once a big crowd was parked, the few bound in group 0 are left out, as measured
      // faster at 300 nodes: bench/fleet.ts --unconfigured.)
      const staying =
        parked.size > 0 ? 0 : [...found].filter((a) => placed.has(a) && matches(stored(a))).length;
      const crowd = lastNew === null ? null : left + unbound.length + staying + 1;
      const windowMs = crowd === null ? undefined : Math.ceil(quietMs + crowd * slotMs);
      report('DISCOVER');
      let fresh = 0;
      heard = 0;
      lastEnd = 'max' as 'idle' | 'max';
      await driver.discover({
        groupId: plan.filter,
        rounds: 1,
        ...(windowMs !== undefined ? { windowMs } : {}),
        priority: 'bulk',
        signal: ctx.signal,
        onWindowEnd: (end, replies) => {
          lastEnd = end;
          heard = replies;
        },
        onReply: (r) => {
          if (r.snr < weakBelow) {
            weakSeen = true;
            weak.add(r.addr);
          }
          if (found.has(r.addr)) return;
          found.add(r.addr);
          fresh++;
          report('DISCOVER');
        },
      });
      ctx.checkpoint();
      // Stop rule (see the header).
      const silent = fresh === 0 && heard === 0 && leaves(plan.target ?? plan.filter);
      if (fresh > 0) {
        quiet = 0;
        healthyMiss = 1;
        prevNew = lastNew;
        lastNew = fresh;
        // Only where responders leave the crowd: otherwise every one answers again.
        firstAll = round === 1 && lastEnd === 'idle';
      } else {
        quiet++;
        healthyMiss *= silent ? SILENT_MISS : 0.2;
      }
      const last = lastNew ?? 0;
      const r = prevNew && last < prevNew ? last / prevNew : firstAll ? COLLISION_SHARE : 0.5;
      const decay = (last * r) / (1 - Math.min(r, 0.9));
      const unheardKnown = knownBefore.filter((a) => !found.has(a)).length;
      // A network's leg past the small-fleet size (see "Several networks" in the header).
      const bigLeg = leg.parallel === true && found.size > PARK_ABOVE;
      // Scaled for small fleets only where responders leave the crowd (the small-fleet path
      // below); discoveries whose responders stay keep the full prior.
      const prior =
        (weakSeen ? (bigLeg ? LEG_WEAK_PRIOR : 0.3) : 0.1) *
        (leaves(plan.target ?? plan.filter) ? Math.min(1, found.size / PRIOR_FLEET) : 1);
      expected = decay * healthyMiss + (unheardKnown + prior) * (8 / 9) ** quiet;
      report('DISCOVER');
      lastSilent = silent;
      // Parallel legs: found nodes still unbound that had fewer than LEG_MIN_TRIES tries
      // keep the leg going (their tries run beside the next rounds).
      // (A leg of up to PARK_ABOVE nodes keeps the small-fleet rules above, as one gateway.)
      const owed =
        bigLeg &&
        [...found].some((a) => !placed.has(a) && !parked.has(a) && (tries.get(a) ?? 0) < LEG_MIN_TRIES);
      const stopHunt =
        // One silent round settles it; a round with replies from the unbound needs a second.
        (quiet >= (silent ? 1 : MIN_QUIET_ROUNDS) && expected < STOP_BELOW) ||
        (found.size === 0 && quiet >= MIN_QUIET_ROUNDS && unheardKnown === 0) ||
        // Responders that stay in the crowd answer every round: then only collisions can
        // hide a node, and a few quiet rounds settle it.
        // (Nobody parked: a park group that was never used changes nothing.)
        (!leaves(plan.target ?? plan.filter) && parked.size === 0 && quiet >= 3) ||
        // A small fleet that stays: the first window fell silent before its ceiling (it heard
        // every node that was going to answer), and a second one, sized for all of them,
        // heard most of them again and nobody new — the original's single window, confirmed.
        (!leaves(plan.target ?? plan.filter) &&
          parked.size === 0 &&
          firstAll &&
          quiet >= 1 &&
          lastEnd === 'idle' &&
          2 * heard >= found.size &&
          found.size <= PARK_ABOVE);
      const stop = (stopHunt && !owed) || clock.now() - started > DISCOVERY_BUDGET_MS;

      // Bind (or park) everyone found but not yet out of the crowd — except after a final
      // silent round with one gateway: the ones left did not even answer it (weak links),
      // and their group waits as pending, pushed when they are next heard (group-push.ts).
      // (A parallel leg gives them their last tries: it owed them LEG_MIN_TRIES anyway.)
      const park = plan.parkGroup !== null && fresh > PARK_ABOVE;
      const items = [...found]
        .filter((a) => !placed.has(a) && !parked.has(a))
        .map((addr) => ({ addr, groupId: park ? (plan.parkGroup ?? 0) : (plan.target ?? stored(addr)) }));
      const bindNow = (list: typeof items): Promise<void> =>
        // In a small fleet a weak link's failed tries would trail the whole bind; in a big one
        // plain order measured better (bench/fleet.ts), and the weak ones get later rounds.
        bind(
          deps,
          ctx,
          list,
          park,
          pace.quietMs('ack'),
          placed,
          parked,
          found.size <= PARK_ABOVE ? weak : NONE,
          () => report(park ? 'PARK' : 'BIND'),
          (a, n) => tries.set(a, (tries.get(a) ?? 0) + n),
          bigLeg ? { depth: LEG_BIND_DEPTH, timeoutMs: LEG_ATTEMPT_TIMEOUT_MS } : {},
        );
      // Parallel legs: a handful of unbound nodes (the weak links of the tail) get their tries
      // beside the next rounds; a crowd of new responders is bound first, as with one gateway.
      if (bigLeg && !stop && !park && items.length > 0 && items.length <= RETRY_BESIDE_MAX) {
        retrying ??= bindNow(items).finally(() => {
          retrying = null;
        });
      } else {
        await retrying;
        const rest = items.filter((i) => !placed.has(i.addr) && !parked.has(i.addr));
        if (rest.length > 0 && (!(stop && silent) || bigLeg)) await bindNow(rest);
      }
      if (stop) break;
    }
  } finally {
    // A cancel or a lost link ends the rounds: the retries beside them end with them.
    await retrying?.catch(() => undefined);
  }

  // Replies to the last round may still be on their way: let them land inside the task
  // (after a silent last round there are none: its window already waited the quiet time;
  // nor, where the nodes stay in the crowd, after a window that ended idle).
  const idleStays = lastEnd === 'idle' && !leaves(plan.target ?? plan.filter);
  if (!lastSilent && !idleStays) await clock.sleep(quietMs, ctx.signal).catch(() => undefined);
  // Parked nodes go back to their stored group (0 for new ones).
  if (parked.size > 0) {
    const items = [...parked].map((addr) => ({ addr, groupId: stored(addr) }));
    parked.clear();
    await bind(deps, ctx, items, false, pace.quietMs('ack'), placed, parked, NONE, () => report('UNPARK'));
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
  /** Weak links to try first, with their retries before fresh items (empty: plain order). */
  weakFirst: ReadonlySet<Addr>,
  report: () => void,
  /** Counts the tries each item had (its outcome's attempts). */
  onTries?: (addr: Addr, n: number) => void,
  /** A parallel leg past PARK_ABOVE nodes: deeper pipeline, tighter per-try window. */
  legPace: { depth?: number; timeoutMs?: number } = {},
): Promise<void> {
  const { driver, registry, clock } = deps;
  const groupOf = new Map(items.map((i) => [i.addr, i.groupId]));
  report();
  // Weak links first, and their retries before fresh items ('depth'): their failed tries
  // then overlap with the healthy nodes' exchanges instead of trailing the round alone.
  const weak = items.filter((i) => weakFirst.has(i.addr));
  const ordered = weak.length > 0 ? [...weak, ...items.filter((i) => !weakFirst.has(i.addr))] : items;
  await runUnicastPipeline(
    ordered.map((it) => ({
      key: it.addr,
      attempt: ({ onSent }) =>
        driver.setGroup(it.addr, it.groupId, {
          priority: 'bulk',
          attempts: 1,
          timeoutMs: legPace.timeoutMs ?? PIPELINE_ATTEMPT_TIMEOUT_MS,
          onSent,
        }),
    })),
    {
      clock,
      ...(legPace.depth !== undefined ? { depth: legPace.depth } : {}),
      attempts: BIND_ATTEMPTS,
      order: weak.length > 0 ? 'depth' : 'breadth',
      // Unbound nodes get more tries every round anyway: short pauses between these.
      backoffMs: () => 100,
      burst: { quietMs },
      accept: (v) => v.ok,
      // A cancel stops new SET_GROUPs; the ones in flight end with a known outcome, so the
      // stored groups stay true.
      signal: ctx.signal,
      abortInFlight: false,
      onOutcome: (o) => {
        onTries?.(o.key, o.attempts);
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
