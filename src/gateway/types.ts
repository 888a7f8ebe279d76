/**
 * The driver's public face: what services may ask of the radio. Services depend on
 * this interface only, never on the link or the codec details behind it.
 */
import type { Addr, LoraPacket, M2NRequest, N2MReply, RfConfig } from '../protocol/types.ts';
import type { LinkKind } from '../transport/link.ts';
import type { LinkStability } from './link-stability.ts';

/**
 * Interactive traffic (control, indicate, scenes) is sent before bulk task traffic; urgent
 * traffic (Blackout, a race's start SYNC) before both, so nothing queued (a lap flash, a
 * scene's frames) can hold it back by more than the one frame already on the air.
 */
export type Priority = 'urgent' | 'interactive' | 'bulk';

export interface SendOptions {
  priority?: Priority;
  /** Virtual ms from enqueue after which an unsent item is dropped with reason 'deadline'. */
  deadlineMs?: number;
  signal?: AbortSignal;
  /**
   * Called when a request that awaits a reply has left the antenna (its TX_DONE), i.e. when
   * its reply window starts: pacing uses it to keep new requests off the replies' air time.
   */
  onSent?: (ts: number) => void;
  /** The lease holder's token (gateway/lease.ts): passes the gate while the gateway is leased. */
  lease?: { readonly detail: string };
}

/** `offchannel`: an RF task holds the gateway off its network's channel (gateway/lease.ts). */
export type TxFailure =
  'rejected' | 'timeout' | 'link_down' | 'deadline' | 'cancelled' | 'invalid' | 'offchannel';
export type TxOutcome = { ok: true } | { ok: false; reason: TxFailure; detail: string };

export interface InboundPacket {
  packet: LoraPacket;
  reply: N2MReply | null;
  /** Gateway-side RSSI (dBm) and SNR (dB) of the packet. */
  rssi: number;
  snr: number;
  /** Clock time (ms) of reception. */
  ts: number;
  /** The network whose gateway heard it; set only when several gateways run (gateway/radio.ts). */
  network_id?: number;
  /** Heard while an RF task held the gateway (gateway/lease.ts): not the network's traffic. */
  offchannel?: boolean;
}

type ReplyOf<K extends N2MReply['kind']> = Extract<N2MReply, { kind: K }>;

export interface IdentifyResult {
  addr: Addr;
  reply: ReplyOf<'IDENTIFY_REPLY'>;
  rssi: number;
  snr: number;
  ts: number;
  /**
   * How discovery learned of the node: a reply to its DEVICES rounds, or the node's own
   * recent boot announcement (IDENTIFY to FFFFFF). Absent outside discovery results.
   */
  source?: 'reply' | 'announcement';
}

/** A device a status poll expects to answer, with the group it is stored in. */
export interface StatusTarget {
  addr: Addr;
  groupId: number;
}

export interface StatusResult {
  addr: Addr;
  reply: ReplyOf<'STATUS_REPLY'>;
  rssi: number;
  snr: number;
  ts: number;
}

export interface AckResult {
  addr: Addr;
  ok: boolean;
  status: number;
  rssi: number;
  snr: number;
  ts: number;
}

export interface ConfigReadResult {
  addr: Addr;
  option: number;
  data: readonly [number, number, number, number];
}

/** Per-call overrides of a unicast's attempts and per-attempt reply window (SF7/125 kHz ms). */
export interface UnicastTiming {
  attempts?: number;
  timeoutMs?: number;
}

/** Outcome of a unicast request that expects an answer. */
export type Reply<T> = { ok: true; value: T } | { ok: false; reason: TxFailure | 'no_reply'; detail: string };

export interface MasterSnapshot {
  state: string;
  state_byte: number;
  state_metadata_ms: number;
  last_event: string | null;
  /** Unix seconds. */
  last_event_ts: number;
  last_error: string | null;
}

export interface GatewayReadiness {
  ready: boolean;
  last_error: string | null;
  failure_count: number;
  transport: 'serial' | 'tcp' | 'sim' | LinkKind;
  port: string | null;
  /** Gateway MAC from the identify answer, e.g. "48:CA:43:10:20:30". */
  gateway_mac: string | null;
  /** Seconds until the next automatic reconnect attempt, or null. */
  next_retry_in_s: number | null;
}

export interface DriverStats {
  framesSent: number;
  framesRejected: number;
  framesTimedOut: number;
  replies: number;
  airtimeMs: number;
  queueDepth: number;
}

/** Readiness plus driver statistics: the one gateway snapshot of the API and SSE. */
export type GatewaySnapshot = GatewayReadiness & { stats: DriverStats };

export interface GatewayDriverEvents extends Record<string, unknown> {
  /** Every forwarded LoRa packet, solicited or not. */
  packet: InboundPacket;
  master: MasterSnapshot;
  readiness: GatewayReadiness;
  /**
   * A frame was handed to the send queue (before it is on air). Safety repeats watch it: a
   * repeat of Blackout must not go out after a later command (race/safety-repeats.ts).
   */
  handed: HandedFrame;
}

export interface HandedFrame {
  receiver: Addr;
  request: M2NRequest;
  /** The network whose gateway got it; set only when several gateways run. */
  network_id?: number;
}

export interface GatewayDriver {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Closes the link and connects anew (manual retry). */
  retry(): Promise<GatewayReadiness>;
  /**
   * Connects now if the link is down and no attempt is under way (its port reappeared);
   * never closes a working link. Optional: the Radio and test doubles omit it.
   */
  connectNow?(): Promise<boolean>;
  readiness(): GatewayReadiness;
  /**
   * Set while the link keeps being lost (a flapping USB link), else null; announced through
   * a `readiness` event when it changes. Optional: the Radio and test doubles omit it.
   */
  linkStability?(): LinkStability | null;
  master(): MasterSnapshot;
  stats(): DriverStats;
  /**
   * The gateway's active LoRa settings as read at connect (and after every change), or the
   * firmware defaults with source 'default' while the gateway has not reported them.
   */
  radioSettings(): { rf: RfConfig; source: 'gateway' | 'default' };
  on<K extends keyof GatewayDriverEvents>(
    event: K,
    listener: (p: GatewayDriverEvents[K]) => void,
  ): () => void;

  /** GW_CMD_STATE_REQUEST, bounded by ~500 ms; ok:false with the mirrored state on timeout. */
  queryState(): Promise<{ ok: boolean; state: string; state_byte: number; state_metadata_ms: number }>;

  /** Sends one M2N frame and resolves with the gateway's TX outcome (no reply awaited). */
  send(receiver: Addr, request: M2NRequest, opts?: SendOptions): Promise<TxOutcome>;
  /**
   * Holds bulk-priority traffic on this gateway (all gateways: the Radio) until the returned
   * release is called; urgent and interactive frames go on. Optional: test doubles may omit it.
   */
  hold?(cls: 'bulk'): () => void;
  /**
   * Frames queued (every gateway: the Radio) that a new frame of this priority would wait
   * behind — not the lower classes it overtakes. Optional: test doubles may omit it.
   */
  queuedAhead?(priority: Priority): number;

  /**
   * DEVICES rounds (broadcast, group filter) until a few rounds in a row bring nothing new,
   * or one round brings no reply at all; boot announcements count.
   */
  discover(
    opts: {
      groupId: number;
      onReply?: (r: IdentifyResult) => void;
      /** At most this many rounds (default: the driver option); 1 = a single window. */
      rounds?: number;
      /** Ceiling of each round's window, ms at the active RF settings (never above the default). */
      windowMs?: number;
      /** Each round's window end: 'idle' (the air fell silent first) or 'max' (the ceiling). */
      onWindowEnd?: (end: 'idle' | 'max', replies: number) => void;
    } & SendOptions,
  ): Promise<IdentifyResult[]>;
  /**
   * STATUS broadcast with group filter; early exit at `expected` replies. Collided replies
   * get further rounds; with `targets` (the devices expected to answer), a few stragglers
   * are then polled by unicast, each with its stored group (a unicast STATUS must carry the
   * device's own group, never 255: §8.4, §9.2). Returns who answered.
   */
  statusBroadcast(
    opts: {
      groupId: number;
      expected: number;
      targets?: readonly StatusTarget[];
      onReply?: (r: StatusResult) => void;
      /**
       * 'caller': no follow-up here; rounds go on while a round brings more new replies
       * per second than `followUpPerS` (the caller's pipelined follow-up rate).
       */
      followUp?: 'driver' | 'caller';
      followUpPerS?: number;
    } & SendOptions,
  ): Promise<StatusResult[]>;
  /**
   * Unicast STATUS (one attempt of 1.15 s by default). `attempts` and `timeoutMs` override
   * the defaults; a `timeoutMs` is an SF7/125 kHz value, stretched at slower RF settings.
   */
  statusUnicast(
    addr: Addr,
    groupId: number,
    opts?: SendOptions & UnicastTiming,
  ): Promise<Reply<StatusResult>>;
  /**
   * SET_GROUP with ACK wait and retries (1.5 s × 3 by default at SF7/125 kHz; every reply
   * window grows with the airtime at slower RF settings, see options.ts). `attempts` and
   * `timeoutMs` override them (pipelines do their own retries with one attempt each).
   */
  setGroup(addr: Addr, groupId: number, opts?: SendOptions & UnicastTiming): Promise<Reply<AckResult>>;
  /**
   * CONFIG with ACK wait; per-attempt timeout and attempts overridable. A `timeoutMs` is
   * meant for SF7/125 kHz and is stretched like the defaults at slower RF settings.
   */
  config(
    addr: Addr,
    option: number,
    data: readonly [number, number, number, number],
    opts?: SendOptions & { timeoutMs?: number; attempts?: number; waitForAck?: boolean },
  ): Promise<Reply<AckResult | null>>;
  getConfig(
    addr: Addr,
    option: number,
    opts?: SendOptions & { timeoutMs?: number },
  ): Promise<Reply<ConfigReadResult>>;
  /** STREAM to one device (ACK awaited, retries). */
  stream(addr: Addr, payload: Uint8Array, opts?: SendOptions): Promise<Reply<AckResult>>;
  getGatewayRf(): Promise<Reply<RfConfig>>;
  setGatewayRf(rf: RfConfig, persist: boolean): Promise<Reply<{ reason: number; rf: RfConfig }>>;
  /**
   * Why traffic to this device (any, without an address) fails `offchannel` now: the text of
   * the RF task holding its gateway, or null. Optional: test doubles need not lease.
   */
  offchannel?(addr?: Addr): string | null;
}
