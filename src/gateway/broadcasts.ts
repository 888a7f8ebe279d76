/**
 * Broadcast collections: discovery (DEVICES) and the status poll (STATUS). Every node that
 * matches the group filter answers a broadcast at once (50–300 ms + LBT), so replies
 * collide on the air and one window never proves who is there. Both operations therefore
 * repeat their broadcast in rounds, counting only senders not heard before, and stop when
 * rounds bring nothing new (or the count is complete, or the round bound is reached).
 */
import { BROADCAST, OPC, type Addr, type M2NRequest } from '../protocol/types.ts';
import { GatewayTxError } from './errors.ts';
import type { MatchSpec } from './matcher.ts';
import { exchange, statusUnicast, TERMINAL, type Exchange, type OpContext } from './operations.ts';
import type { IdentifyResult, InboundPacket, SendOptions, StatusResult, StatusTarget } from './types.ts';

/** Throws for a failed broadcast; returns true to stop with the results gathered so far. */
function roundFailed(label: string, r: Exchange, firstRound: boolean): boolean {
  if (r.kind === 'tx_failed') {
    if (!firstRound && !TERMINAL.has(r.outcome.reason)) return true;
    throw new GatewayTxError(r.outcome.reason, r.outcome.detail);
  }
  if (r.result.end === 'link_down') throw new GatewayTxError('link_down', `${label}: gateway link lost`);
  if (r.result.end === 'cancelled') throw new GatewayTxError('cancelled', `${label}: cancelled`);
  return false;
}

/**
 * Tracks when replies of one kind were last heard (from anyone), so that the next request
 * waits for the air to calm down: a node holding a reply it could not send yet does not
 * listen (§8.5) and would miss the next poll.
 */
class AirWatch {
  lastAt = 0;
  roundStart = 0;

  constructor(
    private readonly ctx: OpContext,
    private readonly quietMs: number,
    private readonly nodeBusyMs: number,
  ) {}

  saw(ts: number): void {
    this.lastAt = Math.max(this.lastAt, ts);
  }

  /** Sleeps `minGapMs`, then until `quietMs` without replies or the nodes' give-up time. */
  async settle(minGapMs: number, label: string, signal?: AbortSignal): Promise<void> {
    const { clock } = this.ctx;
    const giveUpAt = this.roundStart + this.nodeBusyMs;
    try {
      await clock.sleep(minGapMs, signal);
      for (;;) {
        const now = clock.now();
        const wait = Math.min(this.lastAt + this.quietMs, giveUpAt) - now;
        if (wait <= 0) return;
        await clock.sleep(wait, signal);
      }
    } catch {
      throw new GatewayTxError('cancelled', `${label}: cancelled`);
    }
  }
}

export interface StatusBroadcastOptions extends SendOptions {
  groupId: number;
  expected: number;
  /**
   * The devices expected to answer, with their stored groups; enables the unicast
   * follow-up for stragglers (which must carry each device's own group, §8.4/§9.2).
   */
  targets?: readonly StatusTarget[];
  onReply?: (r: StatusResult) => void;
  /**
   * Who polls the stragglers: 'driver' (default) polls up to statusFollowUpMax of them one
   * by one here; 'caller' leaves all of them to the caller (a pipelined follow-up), and the
   * rounds stop as soon as a round brought fewer new replies per second than
   * `followUpPerS`, the rate the caller's follow-up achieves.
   */
  followUp?: 'driver' | 'caller';
  followUpPerS?: number;
}

export interface DiscoverOptions extends SendOptions {
  groupId: number;
  onReply?: (r: IdentifyResult) => void;
  /** At most this many rounds (default discoveryMaxRounds); 1 = a single window. */
  rounds?: number;
  /** Ceiling of each round's window in ms at the active RF settings (default discoveryMaxMs + G). */
  windowMs?: number;
  /**
   * Each round's window end: 'idle' when the air fell silent before the ceiling (every node
   * that was going to answer did), 'max' when replies were still coming at the ceiling (or
   * none came); `replies` counts the matching replies of the round, known senders included.
   */
  onWindowEnd?: (end: 'idle' | 'max', replies: number) => void;
}

const groupMatches = (filter: number, group: number): boolean => filter === 255 || filter === group;

function safeCall<T>(ctx: OpContext, what: string, fn: ((r: T) => void) | undefined, r: T): void {
  try {
    fn?.(r);
  } catch (err) {
    ctx.log.warn({ err }, `${what} onReply callback threw`);
  }
}

/**
 * DEVICES rounds until `discoveryQuietRounds` consecutive rounds bring no node not seen
 * before (bounded by discoveryMaxRounds), or at once after a round without any IDENTIFY
 * traffic at all. Before each round the air must calm down, so that nodes still holding a
 * reply listen again. Recent boot announcements seed the result, and announcements
 * arriving meanwhile count too.
 */
export async function discover(ctx: OpContext, opts: DiscoverOptions): Promise<IdentifyResult[]> {
  const o = ctx.options;
  const found = new Map<Addr, IdentifyResult>();
  let fresh = 0;
  const add = (r: IdentifyResult): void => {
    const known = found.get(r.addr);
    if (known) {
      // A fresh reply supersedes an announcement; it is not news for the round count.
      if (known.source === 'announcement' && r.source === 'reply') found.set(r.addr, r);
      return;
    }
    found.set(r.addr, r);
    fresh++;
    safeCall(ctx, 'discovery', opts.onReply, r);
  };
  for (const a of ctx.announcements(opts.groupId)) add({ ...a, source: 'announcement' });
  const w = ctx.windows();
  const air = new AirWatch(ctx, w.discoveryIdleMs, w.nodeBusyMs('identify'));
  // IDENTIFY packets of any sender and group heard during the current round.
  let traffic = 0;
  const stopObserving = ctx.observe((p) => {
    if (p.reply?.kind !== 'IDENTIFY_REPLY') return;
    traffic++;
    air.saw(p.ts);
    if (!groupMatches(opts.groupId, p.reply.groupId)) return;
    const source = p.packet.receiver === BROADCAST ? 'announcement' : 'reply';
    add({ addr: p.packet.sender, reply: p.reply, rssi: p.rssi, snr: p.snr, ts: p.ts, source });
  });
  try {
    let quiet = 0;
    const rounds = Math.max(1, Math.min(opts.rounds ?? o.discoveryMaxRounds, o.discoveryMaxRounds));
    for (let round = 1; round <= rounds; round++) {
      if (round > 1) await air.settle(o.discoveryRoundGapMs, 'discovery', opts.signal);
      fresh = 0;
      traffic = 0;
      air.roundStart = ctx.clock.now();
      const spec: MatchSpec = {
        senders: null,
        opcode: OPC.DEVICES,
        kind: 'IDENTIFY_REPLY',
        accept: (p) => p.reply?.kind === 'IDENTIFY_REPLY' && groupMatches(opts.groupId, p.reply.groupId),
        keepAlive: (p) => p.reply?.kind === 'IDENTIFY_REPLY',
        expected: null,
        idleMs: w.discoveryIdleMs,
        maxMs: Math.min(w.discoveryMaxMs, opts.windowMs ?? Infinity),
      };
      const request: M2NRequest = { op: 'DEVICES', groupId: opts.groupId, flags: 0 };
      const r = await exchange(ctx, BROADCAST, request, spec, opts, 'bulk');
      if (roundFailed('discovery', r, round === 1)) break;
      const heard = r.kind === 'result' ? r.result.matches.length : 0;
      if (r.kind === 'result' && (r.result.end === 'idle' || r.result.end === 'max')) {
        const end = r.result.end;
        try {
          opts.onWindowEnd?.(end, heard);
        } catch (err) {
          ctx.log.warn({ err }, 'discovery onWindowEnd callback threw');
        }
      }
      ctx.log.debug({ round, heard, traffic, new: fresh, total: found.size }, 'discovery round done');
      // A whole window without a single IDENTIFY on the air: nobody in range matches the
      // filter (or every node is configured). Collisions cannot explain total silence, as
      // capture lets the strongest of colliding replies through, so more rounds would only
      // cost another window each.
      if (traffic === 0) break;
      // Even a round in which every known node got through proves little: the weakest
      // nodes lose every overlap to stronger ones (capture), so only a run of rounds
      // without news ends the discovery.
      quiet = fresh === 0 ? quiet + 1 : 0;
      if (quiet >= o.discoveryQuietRounds) break;
    }
  } finally {
    stopObserving();
  }
  return [...found.values()];
}

/**
 * STATUS broadcast rounds: the first poll, then re-polls while fewer than `expected`
 * devices answered and the previous round brought someone new (bounded by
 * statusMaxRounds). Each round's window is sized for the devices still missing and ends
 * early once they all answered. Every device answers every round, so later rounds are
 * crowded by devices already heard; with `targets`, as soon as polling the remaining
 * stragglers one by one (no contention) is expected to be faster than another round, and
 * at most statusFollowUpMax remain, they are polled by unicast instead.
 * Returns who answered; silent devices are missing.
 */
export async function statusBroadcast(ctx: OpContext, opts: StatusBroadcastOptions): Promise<StatusResult[]> {
  const o = ctx.options;
  const answered = new Map<Addr, StatusResult>();
  const targets = opts.targets ?? [];
  const stragglers = (): StatusTarget[] => targets.filter((t) => !answered.has(t.addr));
  const w = ctx.windows();
  const air = new AirWatch(ctx, w.statusIdleMs, w.nodeBusyMs('status'));
  const stopObserving = ctx.observe((p) => {
    if (p.reply?.kind === 'STATUS_REPLY') air.saw(p.ts);
  });
  try {
    await statusRounds(ctx, opts, answered, air, stragglers);
    // Nobody answered at all: the group is off (or the radio is); do not poll one by one.
    const left = answered.size > 0 && opts.followUp !== 'caller' ? stragglers() : [];
    if (left.length > 0 && left.length <= o.statusFollowUpMax) {
      await air.settle(o.retryGapMs, 'status poll', opts.signal);
      await followUp(ctx, left, opts, (r) => {
        answered.set(r.addr, r);
        safeCall(ctx, 'status', opts.onReply, r);
      });
    }
  } finally {
    stopObserving();
  }
  return [...answered.values()];
}

/** The broadcast rounds of a status poll; stops early when unicast follow-ups are faster. */
async function statusRounds(
  ctx: OpContext,
  opts: StatusBroadcastOptions,
  answered: Map<Addr, StatusResult>,
  air: AirWatch,
  stragglers: () => StatusTarget[],
): Promise<void> {
  const o = ctx.options;
  const w = ctx.windows();
  // Follow-up cost per live device: request, mean reply delay, reply; a few run at once.
  const unicastMs =
    opts.followUp === 'caller' && opts.followUpPerS
      ? 1000 / opts.followUpPerS
      : (ctx.airtimeMs(2) + 175 + ctx.airtimeMs(8)) / Math.max(1, o.statusFollowUpConcurrency);
  const followUpMax = opts.followUp === 'caller' ? Infinity : o.statusFollowUpMax;
  const toResult = (p: InboundPacket): StatusResult => {
    if (p.reply?.kind !== 'STATUS_REPLY') throw new TypeError('expected a STATUS_REPLY');
    return { addr: p.packet.sender, reply: p.reply, rssi: p.rssi, snr: p.snr, ts: p.ts };
  };
  // Adaptive ceiling: every device in scope answers every round (answered ones too), so a
  // round needs room for all of them, at the pace replies were actually heard so far
  // (first round: one reply slot each); bounded by the nodes' give-up time.
  let heardAll = 0;
  let heardMs = 0;
  const nodeBusy = w.nodeBusyMs('status');
  const ceiling = (missing: number): number => {
    if (heardAll < 8) return w.statusMaxMs(Math.max(0, missing));
    const perReply = heardMs / heardAll;
    return Math.ceil(Math.min(nodeBusy, w.statusIdleMs + perReply * Math.max(opts.expected, missing)));
  };
  // With the caller following up, rounds go on while they beat the follow-up's rate (the
  // rule below always ends them: every round costs time and the news dwindles).
  const callerRule = opts.followUp === 'caller' && stragglers().length > 0;
  const rounds = opts.expected > 0 ? (callerRule ? Infinity : o.statusMaxRounds) : 1;
  for (let round = 1; round <= rounds; round++) {
    const missing = opts.expected - answered.size;
    // A round's cost includes waiting for the air to calm down before it.
    const costFrom = ctx.clock.now();
    if (round > 1) {
      if (missing <= 0) break;
      await air.settle(o.retryGapMs, 'status poll', opts.signal);
    }
    const before = answered.size;
    const startedAt = ctx.clock.now();
    air.roundStart = startedAt;
    let repliesThisRound = 0;
    let lastReplyAt = startedAt;
    const spec: MatchSpec = {
      senders: null,
      opcode: OPC.STATUS,
      kind: 'STATUS_REPLY',
      // Devices that answered an earlier round answer again: they are not news, but while
      // they keep the air busy, stragglers are still waiting for a gap.
      accept: (p) => !answered.has(p.packet.sender),
      keepAlive: (p) => {
        if (p.reply?.kind !== 'STATUS_REPLY') return false;
        repliesThisRound++;
        lastReplyAt = p.ts;
        return true;
      },
      expected: opts.expected > 0 ? missing : null,
      idleMs: w.statusIdleMs,
      maxMs: ceiling(missing),
      onMatch: (p) => {
        repliesThisRound++;
        lastReplyAt = p.ts;
        const r = toResult(p);
        answered.set(r.addr, r);
        safeCall(ctx, 'status', opts.onReply, r);
      },
    };
    const request: M2NRequest = { op: 'STATUS', groupId: opts.groupId, flags: 0 };
    const r = await exchange(ctx, BROADCAST, request, spec, opts, 'bulk');
    if (roundFailed('status poll', r, round === 1)) break;
    const fresh = answered.size - before;
    const tookMs = Math.max(1, ctx.clock.now() - costFrom);
    heardAll += repliesThisRound;
    heardMs += Math.max(0, lastReplyAt - startedAt);
    ctx.log.debug({ round, new: fresh, total: answered.size, tookMs }, 'status round done');
    if (fresh === 0) break;
    const left = stragglers().length;
    if (left > 0 && left <= followUpMax && fresh / tookMs < 1 / unicastMs) break;
  }
}

/**
 * Unicast STATUS to each straggler, a few at a time: frames still go out one by one, but
 * the reply windows overlap, so a switched-off device costs its timeout only once per
 * `statusFollowUpConcurrency` devices, while so few nodes answer at once that they rarely
 * collide.
 */
async function followUp(
  ctx: OpContext,
  targets: readonly StatusTarget[],
  opts: StatusBroadcastOptions,
  onAnswer: (r: StatusResult) => void,
): Promise<void> {
  const queue = [...targets];
  let failure: GatewayTxError | null = null;
  const worker = async (): Promise<void> => {
    for (let t = queue.shift(); t !== undefined && !failure; t = queue.shift()) {
      // The device's stored group, not the poll's filter: a node drops a unicast whose
      // group is not its own, and 255 would hide group drift (§8.4 "pinned rule").
      const r = await statusUnicast(ctx, t.addr, t.groupId, opts);
      if (r.ok) onAnswer(r.value);
      else if (r.reason === 'link_down' || r.reason === 'cancelled')
        failure = new GatewayTxError(r.reason, r.detail);
    }
  };
  const n = Math.max(1, Math.min(ctx.options.statusFollowUpConcurrency, queue.length));
  await Promise.all(Array.from({ length: n }, worker));
  if (failure) throw failure;
}
