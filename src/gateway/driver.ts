/**
 * The gateway driver: composes the link session (connect, identify, reconnect), the send
 * queue (one frame in flight), the reply matchers and the master-state mirror, and offers
 * the awaitable radio operations services use. See send-queue.ts for how TX outcomes are
 * attributed, operations.ts for the unicast reply windows and retries, broadcasts.ts for
 * the discovery and status rounds, connection.ts for readiness and reconnects, transmit.ts
 * for the lease gate in front of the queue, inbound.ts for where heard packets go,
 * commands.ts for the USB-only gateway commands, and options.ts for every timeout
 * and retry count.
 */
import type { Clock } from '../clock.ts';
import type { Addr, M2NRequest, RfConfig } from '../protocol/types.ts';
import { TypedEmitter } from '../util/typed-emitter.ts';
import { AnnouncementLog } from './announcements.ts';
import { LinkWatch } from './link-watch.ts';
import { ConnectionManager } from './connection.ts';
import type { LinkStability } from './link-stability.ts';
import { ActiveRf } from './rf.ts';
import { GatewayCommands } from './commands.ts';
import { InboundDispatch } from './inbound.ts';
import { GatewaySession, type SessionHandlers } from './session.ts';
import { MasterState } from './master-state.ts';
import { MatcherRegistry } from './matcher.ts';
import * as broadcasts from './broadcasts.ts';
import * as ops from './operations.ts';
import { resolveDriverOptions, type DriverOptions } from './options.ts';
import { SendQueue } from './send-queue.ts';
import { Transmitter, countTxOutcome } from './transmit.ts';
import { LeaseGate, leasedFace, type DriverLease, type LeaseToken } from './lease.ts';
import type { CreateGatewayDriverOptions, DriverDiagnostics, LightnetGatewayDriver } from './driver-types.ts';
import type {
  AckResult,
  ConfigReadResult,
  DriverStats,
  GatewayDriverEvents,
  GatewayReadiness,
  IdentifyResult,
  MasterSnapshot,
  Priority,
  Reply,
  SendOptions,
  StatusResult,
  TxOutcome,
  UnicastTiming,
} from './types.ts';
import { errText } from '../util/err-text.ts';

export type { CreateGatewayDriverOptions, DriverDiagnostics, LightnetGatewayDriver } from './driver-types.ts';

const noopLog: ops.DriverLog = { debug() {}, info() {}, warn() {}, error() {} };

class Driver implements LightnetGatewayDriver {
  readonly options: Readonly<DriverOptions>;
  private readonly clock: Clock;
  private readonly log: ops.DriverLog;
  private readonly emitter = new TypedEmitter<GatewayDriverEvents>();
  private readonly matchers: MatcherRegistry;
  private readonly queue: SendQueue;
  private readonly mirror: MasterState;
  private readonly session: GatewaySession;
  private readonly conn: ConnectionManager;
  private readonly watch: LinkWatch;
  private readonly inbound: InboundDispatch;
  private readonly tx: Transmitter;
  private readonly gateway: GatewayCommands;
  private readonly announcements = new AnnouncementLog();
  private readonly ctx: ops.OpContext;
  private readonly rf = new ActiveRf();
  private readonly leases = new LeaseGate();
  /** Aborted by stop(): every wait of an operation in progress ends at once. */
  private readonly stopping = new AbortController();
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
    this.inbound = new InboundDispatch({
      log: this.log,
      leases: this.leases,
      counters: this.d,
      mirror: this.mirror,
      announcements: this.announcements,
      matchers: this.matchers,
      emitPacket: (p) => this.safeEmit('packet', p),
    });
    this.queue = new SendQueue(this.clock, this.options, {
      write: (bytes) => this.session.write(bytes),
      onOutcome: (label, outcome, frame) => countTxOutcome(this.d, this.rf, this.log, label, outcome, frame),
      outcomeGuardMs: (frame) => this.rf.outcomeGuardMs(frame, this.options),
      busyWaitMaxMs: () => this.rf.busyWaitMaxMs(this.options),
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
        if (this.rf.adopt(rf)) this.log.info({ reason, rf }, 'gateway RF settings now active');
      },
      onPacket: (p) => this.inbound.dispatch(p),
      onGatewayError: (text) => {
        // Gateway firmware never sends EV_ERROR (§4.2): such a frame is most likely line
        // noise that happened to decode. Reconnecting would reset CP2102 boards (DTR/RTS),
        // so it is only recorded, and the link stays as it is.
        this.log.warn({ text }, 'EV_ERROR frame from the gateway (ignored for the link)');
        this.mirror.gatewayError(text);
      },
      onLost: (detail) => this.conn.lost(detail),
    };
    this.session = new GatewaySession(cfg.linkFactory, this.clock, this.options, this.log, handlers);
    const connCfg = { transport: cfg.transport, port: cfg.port, identify: cfg.identify !== false };
    this.conn = new ConnectionManager(this.session, this.clock, this.options, this.log, connCfg, {
      onUp: () => this.queue.setOpen(),
      onDown: (detail, reason) => {
        if (reason === 'link_down') {
          this.mirror.usbError(detail);
          this.mirror.unknown();
        }
        this.queue.setClosed(detail, reason);
        this.matchers.cancelAll(reason);
      },
      onReadiness: (r) => this.safeEmit('readiness', r),
    });
    this.watch = new LinkWatch({
      clock: this.clock,
      intervalMs: this.options.aliveCheckMs,
      misses: this.options.aliveMisses,
      queryMs: this.options.stateQueryMs,
      isReady: () => this.conn.isReady,
      lastRxAt: () => this.session.lastRxAt,
      query: (ms) => this.session.queryState(ms),
      onDead: (detail) => this.session.fail(detail),
    });
    this.tx = new Transmitter(this.clock, this.options, this.leases, this.queue);
    this.gateway = new GatewayCommands({
      options: this.options,
      log: this.log,
      leases: this.leases,
      conn: this.conn,
      session: this.session,
      mirror: this.mirror,
    });
    this.ctx = {
      clock: this.clock,
      options: this.options,
      matchers: this.matchers,
      log: this.log,
      transmit: (receiver, request, opts, prio) => this.handOff(receiver, request, opts, prio),
      observe: (fn) => this.inbound.observe(fn),
      airtimeMs: (n) => this.rf.airtimeMs(n),
      windows: () => this.rf.replyWindows(this.options),
      announcements: (group) =>
        this.options.discoveryAnnouncementMaxAgeMs > 0
          ? this.announcements.recent(this.clock.now(), this.options.discoveryAnnouncementMaxAgeMs, group)
          : [],
      groupChanged: (addr, group) => this.announcements.groupChanged(addr, group),
    };
  }

  // ── Lifecycle ────────────────────────────────────────────────────────────────

  start(): Promise<void> {
    this.watch.start();
    return this.conn.start();
  }

  stop(): Promise<void> {
    this.watch.stop();
    this.stopping.abort(new Error('gateway driver stopped'));
    return this.conn.stop();
  }

  /** The caller's options with its signal combined with the driver's stop signal. */
  private untilStop<T extends SendOptions>(opts: T): T {
    const stop = this.stopping.signal;
    return { ...opts, signal: opts.signal ? AbortSignal.any([opts.signal, stop]) : stop };
  }

  retry(): Promise<GatewayReadiness> {
    return this.conn.retry();
  }

  connectNow(): Promise<boolean> {
    return this.conn.connectNow();
  }

  readiness(): GatewayReadiness {
    return this.conn.readiness();
  }

  linkStability(): LinkStability | null {
    return this.conn.linkStability();
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

  radioSettings(): { rf: RfConfig; source: 'gateway' | 'default' } {
    return { rf: { ...this.rf.config }, source: this.rf.fromGateway ? 'gateway' : 'default' };
  }

  diagnostics(): DriverDiagnostics {
    return {
      ...this.d,
      queueDepth: this.queue.depth,
      liveMatchers: this.matchers.size,
      linkLosses: this.conn.linkLosses,
      connectAttempts: this.conn.connectAttempts,
    };
  }

  noteMasterEvent(name: string, error?: string | null): void {
    this.mirror.event(name, error);
  }

  on<K extends keyof GatewayDriverEvents>(
    event: K,
    listener: (p: GatewayDriverEvents[K]) => void,
  ): () => void {
    // Each listener on its own: one that throws does not keep the event from the others.
    return this.emitter.on(event, (payload) => {
      try {
        listener(payload);
      } catch (err) {
        this.log.error({ err: errText(err), event }, 'driver event listener threw');
      }
    });
  }

  // ── Events (inbound packets fan out in gateway/inbound.ts) ───────────────────

  /** Listeners are guarded one by one (see on()); this is the last line of defence. */
  private safeEmit<K extends keyof GatewayDriverEvents>(event: K, payload: GatewayDriverEvents[K]): void {
    try {
      this.emitter.emit(event, payload);
    } catch (err) {
      this.log.error({ err: errText(err), event }, 'driver event listener threw');
    }
  }

  // ── Sending (gateway/transmit.ts) ─────────────────────────────────────────────

  hold(cls: 'bulk'): () => void {
    this.log.info({ cls }, 'bulk traffic held');
    const release = this.queue.hold(cls);
    return () => {
      release();
      this.log.debug({ cls }, 'bulk traffic released');
    };
  }

  queuedAhead(priority: Priority): number {
    return this.queue.aheadOf(priority);
  }

  send(receiver: Addr, request: M2NRequest, opts: SendOptions = {}): Promise<TxOutcome> {
    // stop() fails queued and in-flight frames itself (the queue closes): no signal needed.
    return this.handOff(receiver, request, opts, 'interactive');
  }

  private handOff(
    receiver: Addr,
    request: M2NRequest,
    opts: SendOptions,
    prio: Parameters<Transmitter['transmit']>[3],
  ): Promise<TxOutcome> {
    this.safeEmit('handed', { receiver, request });
    return this.tx.transmit(receiver, request, opts, prio);
  }

  // ── Gateway (USB-only) commands (gateway/commands.ts) ───────────────

  queryState(): Promise<{ ok: boolean; state: string; state_byte: number; state_metadata_ms: number }> {
    return this.gateway.queryState();
  }

  // ── Lease (gateway/lease.ts) ────────────────────────────────────────────────

  lease(detail: string): DriverLease {
    const token = this.leases.acquire(detail);
    this.log.info({ lease: detail }, 'gateway leased');
    return {
      driver: leasedFace(this, token),
      token,
      release: () => {
        if (this.leases.detail === null) return;
        this.leases.release(token);
        this.log.info({ lease: detail }, 'gateway lease released');
      },
    };
  }

  offchannel(): string | null {
    return this.leases.detail;
  }

  getGatewayRf(opts?: { lease?: LeaseToken }): Promise<Reply<RfConfig>> {
    return this.gateway.getGatewayRf(opts);
  }

  setGatewayRf(
    rf: RfConfig,
    persist: boolean,
    opts?: { lease?: LeaseToken },
  ): Promise<Reply<{ reason: number; rf: RfConfig }>> {
    return this.gateway.setGatewayRf(rf, persist, opts);
  }

  // ── Node operations ──────────────────────────────────────────────────────────

  discover(opts: broadcasts.DiscoverOptions): Promise<IdentifyResult[]> {
    return broadcasts.discover(this.ctx, this.untilStop(opts));
  }

  statusBroadcast(opts: broadcasts.StatusBroadcastOptions): Promise<StatusResult[]> {
    return broadcasts.statusBroadcast(this.ctx, this.untilStop(opts));
  }

  statusUnicast(
    addr: Addr,
    groupId: number,
    opts: SendOptions & UnicastTiming = {},
  ): Promise<Reply<StatusResult>> {
    return ops.statusUnicast(this.ctx, addr, groupId, this.untilStop(opts));
  }

  setGroup(addr: Addr, groupId: number, opts: SendOptions & UnicastTiming = {}): Promise<Reply<AckResult>> {
    return ops.setGroup(this.ctx, addr, groupId, this.untilStop(opts));
  }

  config(
    addr: Addr,
    option: number,
    data: readonly [number, number, number, number],
    opts: SendOptions & { timeoutMs?: number; attempts?: number; waitForAck?: boolean } = {},
  ): Promise<Reply<AckResult | null>> {
    return ops.config(this.ctx, addr, option, data, this.untilStop(opts));
  }

  getConfig(
    addr: Addr,
    option: number,
    opts: SendOptions & { timeoutMs?: number } = {},
  ): Promise<Reply<ConfigReadResult>> {
    return ops.getConfig(this.ctx, addr, option, this.untilStop(opts));
  }

  stream(addr: Addr, payload: Uint8Array, opts: SendOptions = {}): Promise<Reply<AckResult>> {
    return ops.stream(this.ctx, addr, payload, this.untilStop(opts));
  }
}

export function createGatewayDriver(opts: CreateGatewayDriverOptions): LightnetGatewayDriver {
  return new Driver(opts);
}
