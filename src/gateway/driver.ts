/**
 * The gateway driver: composes the link session (connect, identify, reconnect), the send
 * queue (one frame in flight), the reply matchers and the master-state mirror, and offers
 * the awaitable radio operations services use. See send-queue.ts for how TX outcomes are
 * attributed, operations.ts for the unicast reply windows and retries, broadcasts.ts for
 * the discovery and status rounds, connection.ts for readiness and reconnects, and
 * options.ts for every timeout and retry count.
 */
import type { Clock } from '../clock.ts';
import { encodeHostCommand } from '../protocol/commands.ts';
import { BROADCAST, RF_REASON, type Addr, type M2NRequest, type RfConfig } from '../protocol/types.ts';
import { TypedEmitter } from '../util/typed-emitter.ts';
import { AnnouncementLog } from './announcements.ts';
import { LinkWatch } from './link-watch.ts';
import { ConnectionManager } from './connection.ts';
import { ActiveRf, rfRefusalDetail } from './gateway-rf.ts';
import { buildM2nFrame } from './m2n-frame.ts';
import { GatewaySession, type SessionHandlers } from './session.ts';
import { MasterState } from './master-state.ts';
import { MatcherRegistry } from './matcher.ts';
import * as broadcasts from './broadcasts.ts';
import * as ops from './operations.ts';
import { resolveDriverOptions, type DriverOptions } from './options.ts';
import { SendQueue } from './send-queue.ts';
import { LeaseGate, leasedFace, type DriverLease, type LeaseToken } from './lease.ts';
import type { CreateGatewayDriverOptions, DriverDiagnostics, LightnetGatewayDriver } from './driver-types.ts';
import type {
  AckResult,
  ConfigReadResult,
  DriverStats,
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
  UnicastTiming,
} from './types.ts';

export type { CreateGatewayDriverOptions, DriverDiagnostics, LightnetGatewayDriver } from './driver-types.ts';

const noopLog: ops.DriverLog = { debug() {}, info() {}, warn() {}, error() {} };

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
  private readonly conn: ConnectionManager;
  private readonly watch: LinkWatch;
  private readonly announcements = new AnnouncementLog();
  private readonly observers = new Set<(p: InboundPacket) => void>();
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
    this.queue = new SendQueue(this.clock, this.options, {
      write: (bytes) => this.session.write(bytes),
      onOutcome: (label, outcome, frame) => this.countOutcome(label, outcome, frame),
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
      onPacket: (p) => this.onPacket(p),
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

  readiness(): GatewayReadiness {
    return this.conn.readiness();
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

  // ── Inbound ──────────────────────────────────────────────────────────────────

  private onPacket(raw: InboundPacket): void {
    const p: InboundPacket = this.leases.detail === null ? raw : { ...raw, offchannel: true };
    const r = p.reply;
    if (r) {
      this.d.replies++;
      this.mirror.reply(r);
    }
    if (r?.kind === 'IDENTIFY_REPLY') {
      const id = { addr: p.packet.sender, reply: r, rssi: p.rssi, snr: p.snr, ts: p.ts };
      if (p.packet.receiver === BROADCAST) this.announcements.announced(id);
      else this.announcements.identified(id);
    }
    // A throwing observer must neither crash the process (the exception would surface in
    // the link's data callback) nor keep the packet from the others and the matchers.
    for (const fn of [...this.observers]) {
      try {
        fn(p);
      } catch (err) {
        this.log.error({ err: errText(err) }, 'inbound packet observer threw');
      }
    }
    this.safeEmit('packet', p);
    this.matchers.offer(p);
  }

  /** Listeners are guarded one by one (see on()); this is the last line of defence. */
  private safeEmit<K extends keyof GatewayDriverEvents>(event: K, payload: GatewayDriverEvents[K]): void {
    try {
      this.emitter.emit(event, payload);
    } catch (err) {
      this.log.error({ err: errText(err), event }, 'driver event listener threw');
    }
  }

  // ── Sending ──────────────────────────────────────────────────────────────────

  private async transmit(
    receiver: Addr,
    request: M2NRequest,
    opts: SendOptions,
    defaultPriority: Priority,
  ): Promise<TxOutcome> {
    const prio = opts.priority ?? defaultPriority;
    // Leased (an RF task has the gateway off the network's channel): urgent traffic waits
    // for the release (the task puts the channel back in its finally), the rest fails now.
    while (!this.leases.passes(opts)) {
      if (prio !== 'urgent') return { ok: false, reason: 'offchannel', detail: this.leases.detail ?? '' };
      await this.leases.whenReleased();
    }
    return this.transmitNow(receiver, request, opts, defaultPriority);
  }

  private transmitNow(
    receiver: Addr,
    request: M2NRequest,
    opts: SendOptions,
    defaultPriority: Priority,
  ): Promise<TxOutcome> {
    const label = `${request.op} to ${receiver}`;
    const built = buildM2nFrame(receiver, request, label);
    if (!built.ok) return Promise.resolve({ ok: false, reason: 'invalid', detail: built.detail });
    const priority = opts.priority ?? defaultPriority;
    const deadlineMs =
      opts.deadlineMs ??
      (priority === 'interactive' ? this.options.interactiveDeadlineMs : this.options.bulkDeadlineMs);
    return this.queue.enqueue({
      frame: built.frame,
      typeFull: built.typeFull,
      priority,
      deadlineAt: this.clock.now() + deadlineMs,
      label,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
  }

  private countOutcome(label: string, outcome: TxOutcome, frame: Uint8Array): void {
    if (outcome.ok) {
      this.d.framesSent++;
      this.d.airtimeMs += this.rf.frameAirtimeMs(frame);
      return;
    }
    if (outcome.reason === 'rejected') this.d.framesRejected++;
    else if (outcome.reason === 'timeout') this.d.framesTimedOut++;
    else if (outcome.reason === 'deadline') this.d.deadlineDrops++;
    this.log.debug({ label, reason: outcome.reason, detail: outcome.detail }, 'frame not sent');
  }

  send(receiver: Addr, request: M2NRequest, opts: SendOptions = {}): Promise<TxOutcome> {
    // stop() fails queued and in-flight frames itself (the queue closes): no signal needed.
    return this.transmit(receiver, request, opts, 'interactive');
  }

  // ── Gateway (USB-only) commands ─────────────────────────────────────────────

  async queryState(): Promise<{ ok: boolean; state: string; state_byte: number; state_metadata_ms: number }> {
    const ok = this.conn.isReady && (await this.session.queryState(this.options.stateQueryMs));
    const m = this.mirror.snapshot();
    return { ok, state: m.state, state_byte: m.state_byte, state_metadata_ms: m.state_metadata_ms };
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

  private leaseRefusal(opts?: { lease?: LeaseToken }): Reply<never> | null {
    return this.leases.passes(opts)
      ? null
      : { ok: false, reason: 'offchannel', detail: this.leases.detail ?? '' };
  }

  async getGatewayRf(opts?: { lease?: LeaseToken }): Promise<Reply<RfConfig>> {
    const refused = this.leaseRefusal(opts);
    if (refused) return refused;
    if (!this.conn.isReady) return { ok: false, reason: 'link_down', detail: this.conn.notReadyDetail };
    const r = await this.session.rfCommand({ kind: 'get_rf' }, this.options.gatewayRfMs);
    return r.ok ? { ok: true, value: r.value.rf } : r;
  }

  async setGatewayRf(
    rf: RfConfig,
    persist: boolean,
    opts?: { lease?: LeaseToken },
  ): Promise<Reply<{ reason: number; rf: RfConfig }>> {
    const refused = this.leaseRefusal(opts);
    if (refused) return refused;
    try {
      encodeHostCommand({ kind: 'set_rf', persist, rf });
    } catch (err) {
      return { ok: false, reason: 'invalid', detail: `gateway RF config: ${errText(err)}` };
    }
    if (!this.conn.isReady) return { ok: false, reason: 'link_down', detail: this.conn.notReadyDetail };
    const r = await this.session.rfCommand({ kind: 'set_rf', persist, rf }, this.options.gatewayRfMs);
    if (!r.ok) return r;
    if (r.value.reason !== RF_REASON.OK) {
      return { ok: false, reason: 'rejected', detail: rfRefusalDetail(r.value.reason, r.value.rf) };
    }
    if (persist) {
      // The gateway stored the config and reboots 100 ms after answering (§3.3). Native USB
      // boards drop the link, but on UART-bridge boards (CP2102) the port stays open and
      // the reboot would go unnoticed: reconnect (and re-identify) in any case.
      this.log.info({ rf: r.value.rf }, 'gateway RF config persisted; reconnecting after its reboot');
      await this.conn.reconnect('gateway rebooting after a persisted RF change');
    }
    return r;
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
