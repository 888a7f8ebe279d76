/**
 * Unicast request/reply operations on top of the send queue and the matchers, with the
 * per-operation parameters of wire-protocol.md §9.2 (all taken from DriverOptions).
 * Every matcher is registered before its frame is queued, so no reply can slip past.
 * Broadcast collections (discovery, status poll) live in broadcasts.ts.
 */
import type { Clock } from '../clock.ts';
import { OPC, type Addr, type M2NRequest, type N2MReply } from '../protocol/types.ts';
import type { MatchResult, MatchSpec, MatcherRegistry } from './matcher.ts';
import type { DriverOptions } from './options.ts';
import type { ReplyKind, ReplyWindows } from './reply-windows.ts';
import type {
  AckResult,
  ConfigReadResult,
  IdentifyResult,
  InboundPacket,
  Priority,
  Reply,
  SendOptions,
  StatusResult,
  TxFailure,
  TxOutcome,
  UnicastTiming,
} from './types.ts';

export interface DriverLog {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** What the operations need from the driver. */
export interface OpContext {
  readonly clock: Clock;
  readonly options: DriverOptions;
  readonly matchers: MatcherRegistry;
  readonly log: DriverLog;
  /** Validates, queues and transmits one M2N frame; resolves with its TX outcome. */
  transmit(
    receiver: Addr,
    request: M2NRequest,
    opts: SendOptions,
    defaultPriority: Priority,
  ): Promise<TxOutcome>;
  /** Sees every inbound packet without consuming it; returns an unsubscribe function. */
  observe(fn: (p: InboundPacket) => void): () => void;
  /** Airtime of one packet with a body of this many bytes, under the current RF settings. */
  airtimeMs(bodyLength: number): number;
  /** The reply windows stretched for the current RF settings (reply-windows.ts). */
  windows(): ReplyWindows;
  /** Recent boot announcements of nodes matching the group filter. */
  announcements(groupFilter: number): IdentifyResult[];
  /** A node acknowledged SET_GROUP. */
  groupChanged(addr: Addr, groupId: number): void;
}

type TxFailed = Extract<TxOutcome, { ok: false }>;
export type Exchange = { kind: 'tx_failed'; outcome: TxFailed } | { kind: 'result'; result: MatchResult };

/** Failures after which another attempt cannot help. */
export const TERMINAL: ReadonlySet<TxFailure> = new Set([
  'link_down',
  'cancelled',
  'invalid',
  'deadline',
  'offchannel',
]);

type ReplyOf<K extends N2MReply['kind']> = Extract<N2MReply, { kind: K }>;

function replyAs<K extends N2MReply['kind']>(p: InboundPacket, kind: K): ReplyOf<K> {
  const r = p.reply;
  if (r?.kind !== kind) throw new TypeError(`expected a ${kind}`); // the matcher checked the kind
  return r as ReplyOf<K>;
}

const ackResult = (p: InboundPacket): AckResult => {
  const r = replyAs(p, 'ACK');
  return { addr: p.packet.sender, ok: r.status === 0, status: r.status, rssi: p.rssi, snr: p.snr, ts: p.ts };
};

/** One request and its reply window: register, send, start the window on TX_DONE, collect. */
export async function exchange(
  ctx: OpContext,
  receiver: Addr,
  request: M2NRequest,
  spec: MatchSpec,
  opts: SendOptions,
  defaultPriority: Priority,
): Promise<Exchange> {
  const pending = ctx.matchers.register(spec);
  const tx = await ctx.transmit(receiver, request, opts, defaultPriority);
  if (!tx.ok) {
    pending.cancel();
    return { kind: 'tx_failed', outcome: tx };
  }
  pending.start();
  try {
    opts.onSent?.(ctx.clock.now());
  } catch {
    // A pacing callback must not break the exchange.
  }
  const onAbort = (): void => pending.cancel('cancelled');
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  if (opts.signal?.aborted) pending.cancel('cancelled');
  try {
    return { kind: 'result', result: await pending.done };
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
  }
}

async function pause(ctx: OpContext, ms: number, signal?: AbortSignal): Promise<boolean> {
  try {
    await ctx.clock.sleep(ms, signal);
    return true;
  } catch {
    return false;
  }
}

/** A unicast request with per-attempt reply timeout and retries (§9.2 unicast rows). */
export async function unicastWithRetries<T>(
  ctx: OpContext,
  addr: Addr,
  request: M2NRequest,
  spec: Omit<MatchSpec, 'senders' | 'expected' | 'idleMs' | 'maxMs'>,
  timing: { timeoutMs: number; attempts: number },
  opts: SendOptions,
  label: string,
  map: (p: InboundPacket) => T,
): Promise<Reply<T>> {
  let last: Reply<T> = { ok: false, reason: 'no_reply', detail: `${label}: not attempted` };
  for (let attempt = 1; attempt <= timing.attempts; attempt++) {
    if (attempt > 1 && !(await pause(ctx, ctx.options.retryGapMs, opts.signal))) {
      return { ok: false, reason: 'cancelled', detail: `${label}: cancelled` };
    }
    const full: MatchSpec = {
      ...spec,
      senders: new Set([addr]),
      expected: 1,
      idleMs: 0,
      maxMs: timing.timeoutMs,
    };
    const r = await exchange(ctx, addr, request, full, opts, 'bulk');
    if (r.kind === 'tx_failed') {
      if (TERMINAL.has(r.outcome.reason)) return r.outcome;
      last = r.outcome;
      continue;
    }
    const { end, matches } = r.result;
    if (end === 'link_down') return { ok: false, reason: 'link_down', detail: `${label}: gateway link lost` };
    if (end === 'cancelled') return { ok: false, reason: 'cancelled', detail: `${label}: cancelled` };
    const first = matches[0];
    if (first) return { ok: true, value: map(first) };
    last = {
      ok: false,
      reason: 'no_reply',
      detail: `${label}: no reply within ${timing.timeoutMs} ms (attempt ${attempt} of ${timing.attempts})`,
    };
  }
  return last;
}

/** A caller's per-attempt timeout is meant for the default radio (§9.2): stretch it alike. */
function callerWindow(ctx: OpContext, refMs: number | undefined, kind: ReplyKind): number | undefined {
  return refMs === undefined ? undefined : ctx.windows().unicastMs(refMs, kind);
}

export function statusUnicast(
  ctx: OpContext,
  addr: Addr,
  groupId: number,
  opts: SendOptions & UnicastTiming,
): Promise<Reply<StatusResult>> {
  return unicastWithRetries(
    ctx,
    addr,
    { op: 'STATUS', groupId, flags: 0 },
    { opcode: OPC.STATUS, kind: 'STATUS_REPLY' },
    {
      timeoutMs: callerWindow(ctx, opts.timeoutMs, 'status') ?? ctx.windows().statusUnicastMs,
      attempts: opts.attempts ?? 1,
    },
    opts,
    `STATUS to ${addr}`,
    (p) => ({ addr: p.packet.sender, reply: replyAs(p, 'STATUS_REPLY'), rssi: p.rssi, snr: p.snr, ts: p.ts }),
  );
}

export async function setGroup(
  ctx: OpContext,
  addr: Addr,
  groupId: number,
  opts: SendOptions & UnicastTiming,
): Promise<Reply<AckResult>> {
  const r = await unicastWithRetries(
    ctx,
    addr,
    { op: 'SET_GROUP', groupId },
    { ackOf: OPC.SET_GROUP },
    {
      timeoutMs: callerWindow(ctx, opts.timeoutMs, 'ack') ?? ctx.windows().setGroupTimeoutMs,
      attempts: opts.attempts ?? ctx.options.setGroupAttempts,
    },
    opts,
    `SET_GROUP to ${addr}`,
    ackResult,
  );
  if (r.ok && r.value.ok) ctx.groupChanged(addr, groupId);
  return r;
}

export async function config(
  ctx: OpContext,
  addr: Addr,
  option: number,
  data: readonly [number, number, number, number],
  opts: SendOptions & { timeoutMs?: number; attempts?: number; waitForAck?: boolean },
): Promise<Reply<AckResult | null>> {
  const request: M2NRequest = { op: 'CONFIG', option, data };
  if (opts.waitForAck === false) {
    const tx = await ctx.transmit(addr, request, opts, 'bulk');
    return tx.ok ? { ok: true, value: null } : tx;
  }
  return unicastWithRetries<AckResult | null>(
    ctx,
    addr,
    request,
    { ackOf: OPC.CONFIG },
    {
      timeoutMs: callerWindow(ctx, opts.timeoutMs, 'ack') ?? ctx.windows().configTimeoutMs,
      attempts: opts.attempts ?? ctx.options.configAttempts,
    },
    opts,
    `CONFIG 0x${option.toString(16).padStart(2, '0')} to ${addr}`,
    ackResult,
  );
}

export function getConfig(
  ctx: OpContext,
  addr: Addr,
  option: number,
  opts: SendOptions & { timeoutMs?: number; attempts?: number },
): Promise<Reply<ConfigReadResult>> {
  return unicastWithRetries(
    ctx,
    addr,
    { op: 'GET_CONFIG', option },
    {
      opcode: OPC.GET_CONFIG,
      kind: 'CONFIG_REPLY',
      // The option discriminator: a late reply to an earlier GET_CONFIG must not match.
      accept: (p) => p.reply?.kind === 'CONFIG_REPLY' && p.reply.option === option,
    },
    {
      timeoutMs: callerWindow(ctx, opts.timeoutMs, 'config') ?? ctx.windows().getConfigTimeoutMs,
      attempts: opts.attempts ?? ctx.options.getConfigAttempts,
    },
    opts,
    `GET_CONFIG 0x${option.toString(16).padStart(2, '0')} from ${addr}`,
    (p) => {
      const r = replyAs(p, 'CONFIG_REPLY');
      return { addr: p.packet.sender, option: r.option, data: r.data };
    },
  );
}

/** STREAM to one device; the window also covers the fragments after the first TX_DONE. */
export function stream(
  ctx: OpContext,
  addr: Addr,
  payload: Uint8Array,
  opts: SendOptions,
): Promise<Reply<AckResult>> {
  const fragments = Math.max(1, Math.ceil(payload.length / 8));
  const fragmentMs = ctx.airtimeMs(9);
  return unicastWithRetries(
    ctx,
    addr,
    { op: 'STREAM', payload },
    { ackOf: OPC.STREAM },
    {
      timeoutMs: ctx.windows().streamMaxMs(1) + Math.ceil((fragments - 1) * fragmentMs),
      attempts: ctx.options.streamAttempts,
    },
    opts,
    `STREAM to ${addr}`,
    ackResult,
  );
}
