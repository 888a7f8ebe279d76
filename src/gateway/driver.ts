/**
 * The gateway driver: composes the link session (connect, identify, reconnect), the send
 * queue (one frame in flight), the reply matchers and the master-state mirror, and offers
 * the awaitable radio operations services use. See send-queue.ts for how TX outcomes are
 * attributed and operations.ts for the per-operation reply windows.
 */
import type { Clock } from '../clock.ts';
import { packetAirtimeMs, loraParamsFromRf } from '../protocol/airtime.ts';
import { encodeHostCommand, m2nBodyLengthOk } from '../protocol/commands.ts';
import { isBroadcast } from '../protocol/addr.ts';
import { DEFAULT_RF, OPC, type Addr, type M2NRequest, type RfConfig } from '../protocol/types.ts';
import type { LinkFactory } from '../transport/link.ts';
import { TypedEmitter } from '../util/typed-emitter.ts';
import { GatewaySession, type SessionHandlers } from './session.ts';
import { MasterState } from './master-state.ts';
import { MatcherRegistry } from './matcher.ts';
import * as ops from './operations.ts';
import { resolveDriverOptions, type DriverOptions } from './options.ts';
import { ReconnectBackoff } from './reconnect.ts';
import { SendQueue } from './send-queue.ts';
import type {
  AckResult,
  ConfigReadResult,
  DriverStats,
  GatewayDriver,
  GatewayDriverEvents,
  GatewayReadiness,
  IdentifyResult,
  InboundPacket,
  MasterSnapshot,
  Priority,
  Reply,
  SendOptions,
  StatusResult,
  TxOutcome,
} from './types.ts';

export interface CreateGatewayDriverOptions {
  linkFactory: LinkFactory;
  clock: Clock;
  transport: 'serial' | 'tcp' | 'sim';
  port: string | null;
  log?: ops.DriverLog;
  options?: Partial<DriverOptions>;
  /** Run the identify handshake on every open (default true). */
  identify?: boolean;
}

/** Counters beyond DriverStats, for diagnostics and the benchmark. */
export interface DriverDiagnostics extends DriverStats {
  txPendingRetries: number;
  orphanTxDone: number;
  orphanTxRejected: number;
  deadlineDrops: number;
  linkLosses: number;
  connectAttempts: number;
  liveMatchers: number;
}

/** The driver as created here: GatewayDriver plus diagnostics and host-side master events. */
export interface LightnetGatewayDriver extends GatewayDriver {
  readonly options: Readonly<DriverOptions>;
  diagnostics(): DriverDiagnostics;
  /** Records a host-side event in the master mirror (CONTROL_SENT, TASK_X_START, …). */
  noteMasterEvent(name: string, error?: string | null): void;
}

const noopLog: ops.DriverLog = { debug() {}, info() {}, warn() {}, error() {} };

/** Opcodes the nodes only accept as unicast (§8.4); the host refuses to broadcast them. */
const UNICAST_ONLY = new Set<number>([OPC.CONFIG, OPC.GET_CONFIG, OPC.RF_CONFIG, OPC.GET_RF_CONFIG]);

const errText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

class Driver implements LightnetGatewayDriver {
  readonly options: Readonly<DriverOptions>;
  private readonly clock: Clock;
  private readonly log: ops.DriverLog;
  private readonly emitter = new TypedEmitter<GatewayDriverEvents>();
  private readonly matchers: MatcherRegistry;
  private readonly queue: SendQueue;
  private readonly mirror: MasterState;
  private readonly session: GatewaySession;
  private readonly backoff: ReconnectBackoff;
  private readonly observers = new Set<(p: InboundPacket) => void>();
  private readonly ctx: ops.OpContext;
  private rf: RfConfig = DEFAULT_RF;
  private started = false;
  private stopped = false;
  private connecting: Promise<boolean> | null = null;
  private ready = false;
  private lastError: string | null = null;
  private failureCount = 0;
  private gatewayMac: string | null = null;
  private readonly d: DriverDiagnostics = {
    framesSent: 0,
    framesRejected: 0,
    framesTimedOut: 0,
    replies: 0,
    airtimeMs: 0,
    queueDepth: 0,
    txPendingRetries: 0,
    orphanTxDone: 0,
    orphanTxRejected: 0,
    deadlineDrops: 0,
    linkLosses: 0,
    connectAttempts: 0,
    liveMatchers: 0,
  };

  constructor(private readonly cfg: CreateGatewayDriverOptions) {
    this.options = resolveDriverOptions(cfg.options);
    this.clock = cfg.clock;
    this.log = cfg.log ?? noopLog;
    this.matchers = new MatcherRegistry(this.clock);
    this.mirror = new MasterState(this.clock, (s) => this.safeEmit('master', s));
    this.queue = new SendQueue(this.clock, this.options, {
      write: (bytes) => this.session.write(bytes),
      onOutcome: (label, outcome, frame) => this.countOutcome(label, outcome, frame),
      onTxPendingRetry: () => void this.d.txPendingRetries++,
      onOrphan: (what) => void (what === 'tx_done' ? this.d.orphanTxDone++ : this.d.orphanTxRejected++),
    });
    const handlers: SessionHandlers = {
      onState: (report, state, meta) => {
        this.mirror.applyState(report, state, meta);
        this.queue.onState(state);
      },
      onTxDone: () => {
        this.mirror.txDone();
        this.queue.onTxDone();
      },
      onTxRejected: (typeFull, reason) => {
        this.mirror.txRejected(reason);
        this.queue.onTxRejected(typeFull, reason);
      },
      onRf: (reason, rf) => {
        if (reason === 0) this.rf = rf;
      },
      onPacket: (p) => this.onPacket(p),
      onGatewayError: (text) => {
        this.mirror.usbError(text);
        this.session.fail(`gateway reported an error: ${text}`);
      },
      onLost: (detail) => this.onLinkLost(detail),
    };
    this.session = new GatewaySession(cfg.linkFactory, this.clock, this.options, this.log, handlers);
    this.backoff = new ReconnectBackoff(
      this.clock,
      this.options.reconnectInitialMs,
      this.options.reconnectMaxMs,
      () => this.connect(),
      () => this.safeEmit('readiness', this.readiness()),
    );
    this.ctx = {
      clock: this.clock,
      options: this.options,
      matchers: this.matchers,
      log: this.log,
      transmit: (receiver, request, opts, prio) => this.transmit(receiver, request, opts, prio),
      observe: (fn) => {
        this.observers.add(fn);
        return () => this.observers.delete(fn);
      },
      airtimeMs: (n) => packetAirtimeMs(n, loraParamsFromRf(this.rf)),
    };
  }

  // ── Lifecycle ────────────────────────────────────────────────────────────────

  async start(): Promise<void> {
    if (this.started || this.stopped) return;
    this.started = true;
    if (!(await this.connect())) this.scheduleReconnect();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.backoff.stop();
    const wasReady = this.ready;
    this.ready = false;
    this.queue.setClosed('gateway driver stopped', 'cancelled');
    this.matchers.cancelAll('cancelled');
    await this.session.close();
    if (wasReady) this.safeEmit('readiness', this.readiness());
  }

  async retry(): Promise<GatewayReadiness> {
    if (this.stopped) return this.readiness();
    this.started = true;
    this.backoff.reset();
    if (this.connecting) await this.connecting;
    if (this.session.isOpen) {
      // A manual retry closes the port and connects anew (host-behaviour §6.2).
      this.dropReady('gateway link reopened by a manual retry');
      await this.session.close();
    }
    if (!(await this.connect())) this.scheduleReconnect();
    return this.readiness();
  }

  readiness(): GatewayReadiness {
    return {
      ready: this.ready,
      last_error: this.lastError,
      failure_count: this.failureCount,
      transport: this.cfg.transport,
      port: this.cfg.port,
      gateway_mac: this.gatewayMac,
      next_retry_in_s: this.backoff.nextRetryInS(),
    };
  }

  master(): MasterSnapshot {
    return this.mirror.snapshot();
  }

  stats(): DriverStats {
    const d = this.diagnostics();
    return {
      framesSent: d.framesSent,
      framesRejected: d.framesRejected,
      framesTimedOut: d.framesTimedOut,
      replies: d.replies,
      airtimeMs: d.airtimeMs,
      queueDepth: d.queueDepth,
    };
  }

  diagnostics(): DriverDiagnostics {
    return { ...this.d, queueDepth: this.queue.depth, liveMatchers: this.matchers.size };
  }

  noteMasterEvent(name: string, error?: string | null): void {
    this.mirror.event(name, error);
  }

  on<K extends keyof GatewayDriverEvents>(
    event: K,
    listener: (p: GatewayDriverEvents[K]) => void,
  ): () => void {
    return this.emitter.on(event, listener);
  }

  private connect(): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    if (!this.connecting) {
      this.connecting = this.connectOnce().finally(() => (this.connecting = null));
    }
    return this.connecting;
  }

  private async connectOnce(): Promise<boolean> {
    this.d.connectAttempts++;
    try {
      const mac = await this.session.open(this.cfg.identify !== false);
      if (this.stopped) {
        await this.session.close();
        return false;
      }
      if (mac !== null) this.gatewayMac = mac;
      // Seed the state mirror (§3.1); a missing report is not fatal.
      await this.session.queryState(this.options.stateQueryMs);
      if (!this.session.isOpen) throw new Error('gateway link closed right after connecting');
      this.ready = true;
      this.lastError = null;
      this.failureCount = 0;
      this.backoff.reset();
      this.queue.setOpen();
      this.log.info({ port: this.cfg.port, mac: this.gatewayMac }, 'gateway ready');
      this.safeEmit('readiness', this.readiness());
      return true;
    } catch (err) {
      await this.session.close();
      this.failureCount++;
      this.lastError = `connect failed: ${errText(err)}`;
      this.log.warn(
        { port: this.cfg.port, err: errText(err), failures: this.failureCount },
        'gateway connect failed',
      );
      return false;
    }
  }

  /** Schedules the next attempt; the backoff announces the new readiness. */
  private scheduleReconnect(): void {
    if (this.stopped) return;
    if (this.backoff.pending) this.safeEmit('readiness', this.readiness());
    else this.backoff.schedule();
  }

  private onLinkLost(detail: string): void {
    if (this.stopped) return;
    this.d.linkLosses++;
    this.mirror.usbError(detail);
    this.mirror.unknown();
    this.dropReady(detail);
    this.log.warn({ port: this.cfg.port, detail }, 'gateway link lost');
    this.scheduleReconnect();
  }

  /** Fails everything waiting on the link and marks the gateway not ready. */
  private dropReady(detail: string): void {
    this.ready = false;
    this.lastError = detail;
    this.queue.setClosed(detail);
    this.matchers.cancelAll('link_down');
  }

  // ── Inbound ──────────────────────────────────────────────────────────────────

  private onPacket(p: InboundPacket): void {
    if (p.reply) {
      this.d.replies++;
      this.mirror.reply(p.reply);
    }
    for (const fn of [...this.observers]) fn(p);
    this.safeEmit('packet', p);
    this.matchers.offer(p);
  }

  private safeEmit<K extends keyof GatewayDriverEvents>(event: K, payload: GatewayDriverEvents[K]): void {
    try {
      this.emitter.emit(event, payload);
    } catch (err) {
      this.log.error({ err: errText(err), event }, 'driver event listener threw');
    }
  }

  // ── Sending ──────────────────────────────────────────────────────────────────

  private transmit(
    receiver: Addr,
    request: M2NRequest,
    opts: SendOptions,
    defaultPriority: Priority,
  ): Promise<TxOutcome> {
    const label = `${request.op} to ${receiver}`;
    let frame: Uint8Array;
    try {
      frame = encodeHostCommand({ kind: 'm2n', receiver, request });
    } catch (err) {
      return Promise.resolve({ ok: false, reason: 'invalid', detail: `${label}: ${errText(err)}` });
    }
    const typeFull = frame[2] as number;
    // The gateway silently drops wrong lengths (§3.4): catch it here, not after a 2 s guard.
    if (!m2nBodyLengthOk(typeFull, frame.length - 6)) {
      return Promise.resolve({ ok: false, reason: 'invalid', detail: `${label}: body length not accepted` });
    }
    if (UNICAST_ONLY.has(typeFull) && isBroadcast(receiver)) {
      return Promise.resolve({
        ok: false,
        reason: 'invalid',
        detail: `${label}: unicast only, not broadcast`,
      });
    }
    const priority = opts.priority ?? defaultPriority;
    const deadlineMs =
      opts.deadlineMs ??
      (priority === 'interactive' ? this.options.interactiveDeadlineMs : this.options.bulkDeadlineMs);
    return this.queue.enqueue({
      frame,
      typeFull,
      priority,
      deadlineAt: this.clock.now() + deadlineMs,
      label,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
  }

  private countOutcome(label: string, outcome: TxOutcome, frame: Uint8Array): void {
    if (outcome.ok) {
      this.d.framesSent++;
      const body = frame.length - 6;
      // STREAM goes out as ⌈n/8⌉ fragments of 9 bytes (§6.7).
      this.d.airtimeMs +=
        frame[2] === OPC.STREAM ? Math.ceil(body / 8) * this.ctx.airtimeMs(9) : this.ctx.airtimeMs(body);
      return;
    }
    if (outcome.reason === 'rejected') this.d.framesRejected++;
    else if (outcome.reason === 'timeout') this.d.framesTimedOut++;
    else if (outcome.reason === 'deadline') this.d.deadlineDrops++;
    this.log.debug({ label, reason: outcome.reason, detail: outcome.detail }, 'frame not sent');
  }

  send(receiver: Addr, request: M2NRequest, opts: SendOptions = {}): Promise<TxOutcome> {
    return this.transmit(receiver, request, opts, 'interactive');
  }

  // ── Gateway (USB-only) commands ─────────────────────────────────────────────

  async queryState(): Promise<{ ok: boolean; state: string; state_byte: number; state_metadata_ms: number }> {
    const ok = this.ready && (await this.session.queryState(this.options.stateQueryMs));
    const m = this.mirror.snapshot();
    return { ok, state: m.state, state_byte: m.state_byte, state_metadata_ms: m.state_metadata_ms };
  }

  async getGatewayRf(): Promise<Reply<RfConfig>> {
    if (!this.ready)
      return { ok: false, reason: 'link_down', detail: this.lastError ?? 'gateway not connected' };
    const r = await this.session.rfCommand({ kind: 'get_rf' }, this.options.gatewayRfMs);
    return r.ok ? { ok: true, value: r.value.rf } : r;
  }

  async setGatewayRf(rf: RfConfig, persist: boolean): Promise<Reply<{ reason: number; rf: RfConfig }>> {
    try {
      encodeHostCommand({ kind: 'set_rf', persist, rf });
    } catch (err) {
      return { ok: false, reason: 'invalid', detail: `gateway RF config: ${errText(err)}` };
    }
    if (!this.ready)
      return { ok: false, reason: 'link_down', detail: this.lastError ?? 'gateway not connected' };
    // With persist the gateway answers, then reboots: the link drops and reconnects by itself.
    return this.session.rfCommand({ kind: 'set_rf', persist, rf }, this.options.gatewayRfMs);
  }

  // ── Node operations ──────────────────────────────────────────────────────────

  discover(
    opts: { groupId: number; onReply?: (r: IdentifyResult) => void } & SendOptions,
  ): Promise<IdentifyResult[]> {
    return ops.discover(this.ctx, opts);
  }

  statusBroadcast(
    opts: { groupId: number; expected: number; onReply?: (r: StatusResult) => void } & SendOptions,
  ): Promise<StatusResult[]> {
    return ops.statusBroadcast(this.ctx, opts);
  }

  statusUnicast(addr: Addr, groupId: number, opts: SendOptions = {}): Promise<Reply<StatusResult>> {
    return ops.statusUnicast(this.ctx, addr, groupId, opts);
  }

  setGroup(addr: Addr, groupId: number, opts: SendOptions = {}): Promise<Reply<AckResult>> {
    return ops.setGroup(this.ctx, addr, groupId, opts);
  }

  config(
    addr: Addr,
    option: number,
    data: readonly [number, number, number, number],
    opts: SendOptions & { timeoutMs?: number; attempts?: number; waitForAck?: boolean } = {},
  ): Promise<Reply<AckResult | null>> {
    return ops.config(this.ctx, addr, option, data, opts);
  }

  getConfig(
    addr: Addr,
    option: number,
    opts: SendOptions & { timeoutMs?: number } = {},
  ): Promise<Reply<ConfigReadResult>> {
    return ops.getConfig(this.ctx, addr, option, opts);
  }

  stream(addr: Addr, payload: Uint8Array, opts: SendOptions = {}): Promise<Reply<AckResult>> {
    return ops.stream(this.ctx, addr, payload, opts);
  }
}

export function createGatewayDriver(opts: CreateGatewayDriverOptions): LightnetGatewayDriver {
  return new Driver(opts);
}
