/**
 * The broadcast status poll at fleet scale (task `status` without a selection):
 *
 * 1. Segments: when the devices in scope sit in small groups (each ≤ SMALL_GROUP), every
 *    group is polled with its own filter — a small crowd answers one round almost
 *    completely; one big crowd of 300 loses most replies to collisions and to the nodes'
 *    5 s give-up.
 * 2. Broadcast rounds per segment (driver): each round's window adapts to the pace replies
 *    were heard at; rounds stop as soon as one brought fewer new replies per second than
 *    the pipelined unicast follow-up achieves (radio/pace.ts, from the gateway's RF).
 * 3. Follow-up: EVERY straggler gets unicast STATUS, burst-paced in a pipeline, up to
 *    FOLLOW_UP_ATTEMPTS tries each (weak links answer 1 exchange in a few). A late reply to
 *    a broadcast round still counts and cancels the straggler's follow-up.
 * 4. Second chance: a straggler that was answering before this poll (heard within
 *    RECENTLY_HEARD_S) gets SECOND_CHANCE_ATTEMPTS more tries after a short pause. Three
 *    straight losses happen to a good link too (at 5 % loss per direction, about one
 *    straggler in a thousand), and calling a gate that answered a minute ago offline is a
 *    false alarm an operator acts on; a node that is really gone costs ~3 s more.
 * 5. Only a device that stayed silent through all of it goes offline (README: one missed
 *    poll, after its unicast tries, is enough).
 */
import type { Clock } from '../../../clock.ts';
import type { GatewayDriver, StatusTarget } from '../../../gateway/types.ts';
import type { Addr } from '../../../protocol/types.ts';
import type { TaskContext } from '../../../tasks/task-manager.ts';
import { radioPace } from '../radio/pace.ts';
import {
  LEG_ATTEMPT_TIMEOUT_MS,
  PIPELINE_ATTEMPT_TIMEOUT_MS,
  runUnicastPipeline,
  type UnicastOutcome,
} from '../radio/unicast-pipeline.ts';

/** Groups up to this size are polled one by one (a crowd this small answers one round). */
export const SMALL_GROUP = 40;
/** Unicast STATUS tries per straggler. */
export const FOLLOW_UP_ATTEMPTS = 3;
/** Further tries for a straggler that was answering before the poll. */
export const SECOND_CHANCE_ATTEMPTS = 3;
/** "Answering before the poll": heard within this many seconds. */
export const RECENTLY_HEARD_S = 15 * 60;
/** Pause before the second chance, so a passing burst of interference is over. */
const SECOND_CHANCE_GAP_MS = 1000;

export interface PollProgress {
  stage: 'POLL' | 'FOLLOW_UP';
  answered: number;
  expected: number;
  group?: number;
  stragglers?: number;
  /** Several networks (per-network.ts): each network's own leg, by network id. */
  networks?: Record<string, NetworkPollProgress>;
}

/** One network's leg of a status poll (task meta `networks`): answered of its devices. */
export interface NetworkPollProgress {
  stage: PollProgress['stage'];
  done: number;
  total: number;
  stragglers?: number;
}

/** Which broadcasts to send: one per small group, or one with the poll's filter. */
export function pollSegments(
  filter: number,
  targets: readonly StatusTarget[],
): { groupId: number; targets: StatusTarget[] }[] {
  if (filter !== 255) return [{ groupId: filter, targets: [...targets] }];
  const byGroup = new Map<number, StatusTarget[]>();
  for (const t of targets) {
    const list = byGroup.get(t.groupId) ?? [];
    list.push(t);
    byGroup.set(t.groupId, list);
  }
  const groups = [...byGroup.entries()].sort((a, b) => a[0] - b[0]);
  if (groups.length <= 1 || groups.some(([, list]) => list.length > SMALL_GROUP)) {
    return [{ groupId: 255, targets: [...targets] }];
  }
  return groups.map(([groupId, list]) => ({ groupId, targets: list }));
}

/** Runs the poll; returns the addresses that answered (broadcast, late or unicast). */
export async function pollFleet(
  driver: GatewayDriver,
  clock: Clock,
  ctx: TaskContext,
  filter: number,
  targets: readonly StatusTarget[],
  progress: (p: PollProgress) => void,
  /** Devices answering before this poll: they get a second chance before going offline. */
  recentlyHeard: ReadonlySet<Addr> = new Set(),
  /** One network's leg of several (per-network.ts). */
  leg: { parallel?: boolean } = {},
): Promise<Set<Addr>> {
  const answered = new Set<Addr>();
  const inScope = new Set(targets.map((t) => t.addr));
  // Late replies to a broadcast round (a node that finally found a gap) count too.
  const off = driver.on('packet', (p) => {
    if (p.reply?.kind === 'STATUS_REPLY' && inScope.has(p.packet.sender)) answered.add(p.packet.sender);
  });
  const pace = radioPace(driver);
  try {
    let anyAnswer = false;
    for (const seg of pollSegments(filter, targets)) {
      ctx.checkpoint();
      progress({ stage: 'POLL', answered: answered.size, expected: targets.length, group: seg.groupId });
      const replies = await driver.statusBroadcast({
        groupId: seg.groupId,
        expected: seg.targets.length,
        targets: seg.targets,
        followUp: 'caller',
        followUpPerS: pace.unicastPerS('status'),
        onReply: (r) => {
          answered.add(r.addr);
          progress({ stage: 'POLL', answered: answered.size, expected: targets.length, group: seg.groupId });
        },
        priority: 'bulk',
        signal: ctx.signal,
      });
      for (const r of replies) answered.add(r.addr);
      if (replies.length > 0) anyAnswer = true;
    }
    ctx.checkpoint();
    // Nobody answered at all: the radio or the whole fleet is off; polling each device
    // three times would only make the operator wait.
    const stragglers = anyAnswer ? targets.filter((t) => !answered.has(t.addr)) : [];
    if (stragglers.length === 0) return answered;
    const report = (): void =>
      progress({
        stage: 'FOLLOW_UP',
        answered: answered.size,
        expected: targets.length,
        stragglers: stragglers.filter((t) => !answered.has(t.addr)).length,
      });
    report();
    const unicast = (list: readonly StatusTarget[], attempts: number): Promise<void> =>
      unicastStatus(driver, clock, list, {
        attempts,
        signal: ctx.signal,
        // A network's leg of several: its silent nodes' tries are its tail (LEG_ATTEMPT_TIMEOUT_MS).
        ...(leg.parallel ? { timeoutMs: LEG_ATTEMPT_TIMEOUT_MS } : {}),
        settled: (k) => answered.has(k),
        onOutcome: (o) => {
          if (o.ok) answered.add(o.key);
          report();
        },
      });
    await unicast(stragglers, FOLLOW_UP_ATTEMPTS);
    const second = stragglers.filter((t) => !answered.has(t.addr) && recentlyHeard.has(t.addr));
    if (second.length > 0) {
      ctx.checkpoint();
      await clock.sleep(SECOND_CHANCE_GAP_MS, ctx.signal);
      await unicast(second, SECOND_CHANCE_ATTEMPTS);
    }
    ctx.checkpoint();
    return answered;
  } finally {
    off();
  }
}

/**
 * One unicast STATUS per target (its stored group, not the poll's filter: a node drops a
 * unicast whose group is not its own, and 255 would hide group drift, §8.4 "pinned rule"),
 * burst-paced in a pipeline with `attempts` tries each.
 */
export async function unicastStatus(
  driver: GatewayDriver,
  clock: Clock,
  targets: readonly StatusTarget[],
  opts: {
    attempts: number;
    signal: AbortSignal;
    /** Per-try reply window (SF7/125 kHz value); default PIPELINE_ATTEMPT_TIMEOUT_MS. */
    timeoutMs?: number;
    settled?: (key: string) => boolean;
    onOutcome: (o: UnicastOutcome<unknown>) => void;
  },
): Promise<void> {
  await runUnicastPipeline(
    targets.map((t) => ({
      key: t.addr,
      attempt: ({ signal, onSent }) =>
        driver.statusUnicast(t.addr, t.groupId, {
          priority: 'bulk',
          attempts: 1,
          timeoutMs: opts.timeoutMs ?? PIPELINE_ATTEMPT_TIMEOUT_MS,
          onSent,
          ...(signal ? { signal } : {}),
        }),
    })),
    {
      clock,
      attempts: opts.attempts,
      burst: { quietMs: radioPace(driver).quietMs('status') },
      signal: opts.signal,
      ...(opts.settled ? { settled: opts.settled } : {}),
      onOutcome: opts.onOutcome,
    },
  );
}
