/**
 * Pending reply matchers (wire-protocol.md §9.1). The gateway never says which reply
 * belongs to which request, so each request that expects answers registers a matcher
 * BEFORE its frame is written; every forwarded packet is offered to the matchers in
 * registration order and the first full match consumes it.
 *
 * A matcher ends when it has `expected` distinct senders, when `idleMs` passed after the
 * last match, at its `maxMs` ceiling (counted from `start()`, i.e. from the request's
 * TX_DONE, so time spent queued behind other frames does not eat the window), or when
 * it is cancelled.
 */
import type { Clock, TimerHandle } from '../clock.ts';
import type { Addr, N2MReply } from '../protocol/types.ts';
import { DIR_N2M, OPC } from '../protocol/types.ts';
import type { InboundPacket } from './types.ts';

export interface MatchSpec {
  /** Accepted senders (6 hex, upper case); null accepts any sender. */
  senders: ReadonlySet<Addr> | null;
  /** RESP_SPECIFIC: the reply's 7-bit opcode must equal this (0x01, 0x03, 0x0A, 0x0E). */
  opcode?: number;
  /** RESP_ACK: the reply must be an ACK whose ack_of equals this opcode. */
  ackOf?: number;
  /** The parsed reply must be of this kind (the collectors' reply-kind marker). */
  kind?: N2MReply['kind'];
  /** Extra discriminator, e.g. the GET_CONFIG option or a discovery group filter. */
  accept?: (p: InboundPacket) => boolean;
  /** Finish after this many distinct senders; null = no count (discovery). */
  expected: number | null;
  /** Finish this long after the latest match; 0 disables the idle rule. */
  idleMs: number;
  /** Hard ceiling from start(). */
  maxMs: number;
  /** Called synchronously for each newly matched sender. */
  onMatch?: (p: InboundPacket) => void;
  /**
   * Packets that do not match but show the air is still busy with answers to this request
   * (e.g. repeats from senders already counted) postpone the idle end too.
   */
  keepAlive?: (p: InboundPacket) => boolean;
}

export type MatchEnd = 'count' | 'idle' | 'max' | 'cancelled' | 'link_down';

export interface MatchResult {
  /** First matching packet of every sender, in arrival order. */
  matches: InboundPacket[];
  end: MatchEnd;
}

export interface PendingMatch {
  /** Starts the ceiling (and, if matches arrived already, the idle) timer. Idempotent. */
  start(): void;
  /** Ends the collection now with the given reason. */
  cancel(end?: Extract<MatchEnd, 'cancelled' | 'link_down'>): void;
  readonly done: Promise<MatchResult>;
  readonly matchCount: number;
}

/** True when `p` satisfies the spec's sender, opcode/ack and discriminator rules. */
export function packetMatches(spec: MatchSpec, p: InboundPacket): boolean {
  const { packet, reply } = p;
  if ((packet.typeFull & DIR_N2M) === 0) return false;
  if (spec.senders && !spec.senders.has(packet.sender)) return false;
  const opcode = packet.typeFull & 0x7f;
  if (spec.opcode !== undefined && opcode !== spec.opcode) return false;
  if (spec.ackOf !== undefined) {
    if (opcode !== OPC.ACK || reply?.kind !== 'ACK' || (reply.ackOf & 0x7f) !== spec.ackOf) return false;
  }
  if (spec.kind !== undefined && reply?.kind !== spec.kind) return false;
  if (spec.accept && !spec.accept(p)) return false;
  return true;
}

class Pending implements PendingMatch {
  readonly done: Promise<MatchResult>;
  private resolve!: (r: MatchResult) => void;
  private readonly bySender = new Map<Addr, InboundPacket>();
  private started = false;
  private finished = false;
  private maxTimer: TimerHandle | null = null;
  private idleTimer: TimerHandle | null = null;
  private graceTimer: TimerHandle | null = null;
  private graceEnd: 'idle' | 'max' | null = null;

  constructor(
    readonly spec: MatchSpec,
    private readonly clock: Clock,
    private readonly onFinish: (m: Pending) => void,
  ) {
    this.done = new Promise((r) => (this.resolve = r));
  }

  get matchCount(): number {
    return this.bySender.size;
  }

  get isFinished(): boolean {
    return this.finished;
  }

  start(): void {
    if (this.started || this.finished) return;
    this.started = true;
    this.maxTimer = this.clock.setTimeout(() => this.expire('max'), this.spec.maxMs);
    if (this.bySender.size > 0) this.armIdle();
  }

  cancel(end: Extract<MatchEnd, 'cancelled' | 'link_down'> = 'cancelled'): void {
    this.finish(end);
  }

  /** Returns true when the packet was consumed by this matcher. */
  offer(p: InboundPacket): boolean {
    if (this.finished) return false;
    if (!packetMatches(this.spec, p)) {
      if (this.started && this.bySender.size > 0 && this.spec.keepAlive?.(p)) this.armIdle();
      return false;
    }
    // A duplicate from a sender already counted is still consumed: it answers this request.
    if (this.bySender.has(p.packet.sender)) return true;
    this.bySender.set(p.packet.sender, p);
    try {
      this.spec.onMatch?.(p);
    } catch {
      // A faulty callback must not break reply collection for everybody else.
    }
    if (this.spec.expected !== null && this.bySender.size >= this.spec.expected) {
      this.finish('count');
    } else if (this.started) {
      this.armIdle();
    }
    return true;
  }

  private armIdle(): void {
    if (this.spec.idleMs <= 0 || this.graceEnd === 'max') return;
    this.idleTimer?.cancel();
    this.graceTimer?.cancel();
    this.graceTimer = null;
    this.graceEnd = null;
    this.idleTimer = this.clock.setTimeout(() => this.expire('idle'), this.spec.idleMs);
  }

  /**
   * A window timer fired. Timers due in the same instant may still hold packets for us
   * (on a scaled clock one wall millisecond spans many virtual ones), so the window closes
   * one timer turn later; a match in that turn re-opens an idle window.
   */
  private expire(end: 'idle' | 'max'): void {
    if (this.finished || this.graceEnd === 'max') return;
    this.graceTimer?.cancel();
    this.graceEnd = end;
    this.graceTimer = this.clock.setTimeout(() => this.finish(end), 0);
  }

  private finish(end: MatchEnd): void {
    if (this.finished) return;
    this.finished = true;
    this.maxTimer?.cancel();
    this.idleTimer?.cancel();
    this.graceTimer?.cancel();
    this.onFinish(this);
    this.resolve({ matches: [...this.bySender.values()], end });
  }
}

/** The set of live matchers of one driver. */
export class MatcherRegistry {
  private readonly live: Pending[] = [];

  constructor(private readonly clock: Clock) {}

  register(spec: MatchSpec): PendingMatch {
    const m = new Pending(spec, this.clock, (done) => {
      const i = this.live.indexOf(done);
      if (i >= 0) this.live.splice(i, 1);
    });
    this.live.push(m);
    return m;
  }

  /** Offers a packet to the matchers in registration order; true if one consumed it. */
  offer(p: InboundPacket): boolean {
    for (const m of [...this.live]) {
      if (m.offer(p)) return true;
    }
    return false;
  }

  /** Ends every live matcher (link lost, driver stopped). */
  cancelAll(end: Extract<MatchEnd, 'cancelled' | 'link_down'>): void {
    for (const m of [...this.live]) m.cancel(end);
  }

  get size(): number {
    return this.live.length;
  }
}
