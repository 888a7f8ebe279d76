/**
 * Gateway readiness and the connect/reconnect cycle: the first connect on start(), a
 * reconnect with backoff (1 s doubling to 15 s, forever) after a failed attempt or a lost
 * link, a manual retry that reconnects at once, and stop(). Every transition is announced
 * once through `onReadiness`.
 */
import type { Clock } from '../clock.ts';
import type { DriverLog } from './operations.ts';
import type { DriverOptions } from './options.ts';
import { LinkStabilityWatch, type LinkStability } from './link-stability.ts';
import { ReconnectBackoff } from './reconnect.ts';
import type { GatewaySession } from './session.ts';
import type { GatewayReadiness } from './types.ts';
import { errText } from '../util/err-text.ts';

export interface ConnectionConfig {
  transport: GatewayReadiness['transport'];
  port: string | null;
  identify: boolean;
}

export interface ConnectionHooks {
  /** The link is up and identified: sending may start. */
  onUp(): void;
  /** The link is gone (or is being closed): fail everything that waits on it. */
  onDown(detail: string, reason: 'link_down' | 'cancelled'): void;
  onReadiness(r: GatewayReadiness): void;
}

export class ConnectionManager {
  private readonly backoff: ReconnectBackoff;
  private readonly stability: LinkStabilityWatch;
  private started = false;
  private stopped = false;
  private connecting: Promise<boolean> | null = null;
  private ready = false;
  private lastError: string | null = null;
  private failureCount = 0;
  private gatewayMac: string | null = null;
  connectAttempts = 0;
  linkLosses = 0;

  constructor(
    private readonly session: GatewaySession,
    private readonly clock: Clock,
    private readonly options: DriverOptions,
    private readonly log: DriverLog,
    private readonly cfg: ConnectionConfig,
    private readonly hooks: ConnectionHooks,
  ) {
    this.backoff = new ReconnectBackoff(
      clock,
      options.reconnectInitialMs,
      options.reconnectMaxMs,
      () => this.connect(),
      () => this.announce(),
    );
    this.stability = new LinkStabilityWatch(
      clock,
      {
        maxLosses: options.unstableLosses,
        windowMs: options.unstableWindowMs,
        reconnectMs: options.unstableReconnectMs,
      },
      (unstable, losses) => {
        this.backoff.setFloor(unstable ? options.unstableReconnectMs : 0);
        const detail = { port: this.cfg.port, mac: this.gatewayMac, losses };
        if (unstable) this.log.warn(detail, 'gateway link unstable: reconnects slowed down');
        else this.log.info(detail, 'gateway link stable again');
        // Readiness is unchanged, but its listeners (networks, banners) read the stability.
        this.announce();
      },
    );
  }

  /** Set while the link keeps being lost (more than N losses a window), else null. */
  linkStability(): LinkStability | null {
    return this.stability.snapshot();
  }

  get isReady(): boolean {
    return this.ready;
  }

  get notReadyDetail(): string {
    return this.lastError ?? 'gateway link is not connected';
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

  async start(): Promise<void> {
    if (this.started || this.stopped) return;
    this.started = true;
    if (!(await this.connect())) this.scheduleReconnect();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.backoff.stop();
    this.stability.stop();
    const wasReady = this.ready;
    this.ready = false;
    this.hooks.onDown('gateway driver stopped', 'cancelled');
    await this.session.close();
    if (wasReady) this.announce();
  }

  /** Manual retry (host-behaviour §6.2): closes the port, resets the backoff, connects now. */
  retry(): Promise<GatewayReadiness> {
    return this.reconnect('gateway link reopened by a manual retry');
  }

  /**
   * Closes the port (failing whatever waits on it with `detail`), resets the backoff and
   * connects anew now, identify handshake included; on failure the backoff takes over.
   */
  async reconnect(detail: string): Promise<GatewayReadiness> {
    if (this.stopped) return this.readiness();
    this.started = true;
    this.backoff.reset();
    if (this.connecting) await this.connecting;
    if (this.session.isOpen) {
      this.goDown(detail);
      await this.session.close();
    }
    if (!(await this.connect())) this.scheduleReconnect();
    return this.readiness();
  }

  /**
   * Connects now when the link is down and no attempt is under way (its port just appeared
   * again: the backoff's wait is cut short). Unlike `retry`, never closes a working or
   * connecting link. On failure the backoff takes over from its first delay. A flapping
   * link keeps its longer wait: a loose cable re-enumerates the port at every contact.
   */
  async connectNow(): Promise<boolean> {
    // An attempt that began before the port was back may fail: then connect again now.
    if (this.connecting && (await this.connecting)) return true;
    if (this.stopped || !this.started || this.ready) return this.ready;
    if (this.stability.unstable) {
      this.scheduleReconnect();
      return false;
    }
    this.backoff.reset();
    const ok = await this.connect();
    if (!ok) this.scheduleReconnect();
    return ok;
  }

  /** The session reports the established link broke. */
  lost(detail: string): void {
    if (this.stopped) return;
    this.linkLosses++;
    this.goDown(detail);
    this.log.warn({ port: this.cfg.port, detail }, 'gateway link lost');
    this.stability.lost();
    this.scheduleReconnect();
  }

  private goDown(detail: string): void {
    this.ready = false;
    this.lastError = detail;
    this.hooks.onDown(detail, 'link_down');
  }

  private announce(): void {
    this.hooks.onReadiness(this.readiness());
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    // The backoff announces the new countdown itself when it schedules.
    if (this.backoff.pending) this.announce();
    else this.backoff.schedule();
  }

  private connect(): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    this.connecting ??= this.connectOnce().finally(() => (this.connecting = null));
    return this.connecting;
  }

  private async connectOnce(): Promise<boolean> {
    this.connectAttempts++;
    try {
      const mac = await this.session.open(this.cfg.identify);
      if (this.stopped) {
        await this.session.close();
        return false;
      }
      if (mac !== null) this.gatewayMac = mac;
      // Seed the state mirror (§3.1); a missing report is not fatal.
      await this.session.queryState(this.options.stateQueryMs);
      // Learn the active RF settings (the answer reaches the driver through the session's
      // RF handler): every airtime-dependent limit depends on them. Without an answer the
      // last known settings stay in use.
      const rf = await this.session.rfCommand({ kind: 'get_rf' }, this.options.gatewayRfMs);
      if (!rf.ok) this.log.warn({ port: this.cfg.port, detail: rf.detail }, 'gateway RF settings unknown');
      if (!this.session.isOpen) throw new Error('gateway link closed right after connecting');
      this.ready = true;
      this.lastError = null;
      this.failureCount = 0;
      this.backoff.reset();
      this.hooks.onUp();
      this.log.info({ port: this.cfg.port, mac: this.gatewayMac }, 'gateway ready');
      this.announce();
      return true;
    } catch (err) {
      await this.session.close();
      if (this.stopped) return false;
      this.failureCount++;
      const message = `connect failed: ${errText(err)}`;
      // Retries go on forever: repeat the same failure at debug level only, so an unplugged
      // gateway does not flood the log (readiness still counts every attempt).
      const level = message === this.lastError ? 'debug' : 'warn';
      this.lastError = message;
      this.log[level](
        { port: this.cfg.port, err: errText(err), failures: this.failureCount },
        'gateway connect failed',
      );
      return false;
    }
  }
}
