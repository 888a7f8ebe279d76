/**
 * One link to the gateway at a time: open it through the factory, come up through boot
 * noise (identify handshake: settle, probe, scan for the unframed answer, retry), decode
 * everything that arrives and hand it to the driver, and report a lost link exactly once.
 * Also runs the USB-only commands (state request, gateway RF get/set), which do not use
 * the TX slot and are answered by the gateway at once.
 */
import type { Clock, TimerHandle } from '../clock.ts';
import { encodeHostCommand } from '../protocol/commands.ts';
import { decodeGatewayInbound } from '../protocol/events.ts';
import { HostFrameDecoder } from '../protocol/framing.ts';
import type { GatewayInbound, HostCommand, RfConfig } from '../protocol/types.ts';
import { identifyGateway } from '../transport/detect.ts';
import type { Link, LinkFactory } from '../transport/link.ts';
import type { DriverLog } from './operations.ts';
import type { DriverOptions } from './options.ts';
import type { InboundPacket, Reply } from './types.ts';
import { errText } from '../util/err-text.ts';

export interface SessionHandlers {
  onState(report: boolean, state: number, metadataMs: number): void;
  onTxDone(): void;
  onTxRejected(typeFull: number, reason: number): void;
  onRf(reason: number, rf: RfConfig): void;
  onPacket(p: InboundPacket): void;
  onGatewayError(text: string): void;
  /** The established link broke (not called for close() or for failures while opening). */
  onLost(detail: string): void;
}

type RfWaiter = (r: { reason: number; rf: RfConfig } | null) => void;

const EMPTY = new Uint8Array(0);
/** Just past the host decoder's partial-frame timeout (50 ms). */
const PARTIAL_FLUSH_MS = 60;

export class GatewaySession {
  private link: Link | null = null;
  private established = false;
  private decoder = new HostFrameDecoder();
  private unsubscribe: (() => void)[] = [];
  private stateWaiters = new Set<(ok: boolean) => void>();
  private rfWaiter: RfWaiter | null = null;
  private rfChain: Promise<unknown> = Promise.resolve();
  private flushTimer: TimerHandle | null = null;
  /** Clock time of the last byte from the gateway (the link-alive check reads it). */
  lastRxAt = 0;

  constructor(
    private readonly factory: LinkFactory,
    private readonly clock: Clock,
    private readonly options: DriverOptions,
    private readonly log: DriverLog,
    private readonly h: SessionHandlers,
  ) {}

  get isOpen(): boolean {
    return this.established && this.link?.isOpen === true;
  }

  /** Opens a fresh link; resolves with the gateway MAC (null when identify is skipped). */
  async open(identify: boolean): Promise<string | null> {
    await this.close();
    const link = this.factory();
    this.link = link;
    this.decoder = new HostFrameDecoder();
    // Subscribe before opening finishes: boot events feed the state mirror right away.
    this.unsubscribe = [
      link.onData((chunk) => this.onBytes(link, chunk)),
      link.onClose((err) => this.onClosed(link, err)),
    ];
    // A link handed over open (the hot-plug probe's, transport/detect.ts handOver) was not
    // reset by this open: no boot to wait for.
    const handedOver = link.isOpen;
    await link.open();
    let mac: string | null = null;
    if (identify) {
      const o = this.options;
      const answer = await identifyGateway(link, this.clock, {
        settleMs: handedOver ? 0 : o.identifySettleMs,
        answerMs: o.identifyAnswerMs,
        retries: o.identifyAttempts - 1,
        retryDelayMs: o.identifyRetryGapMs,
      });
      if (!answer) throw new Error(`no identify answer from ${link.path} after ${o.identifyAttempts} probes`);
      mac = answer.mac;
    }
    if (this.link !== link || !link.isOpen) throw new Error(`${link.path}: link closed while connecting`);
    this.established = true;
    this.lastRxAt = this.clock.now();
    return mac;
  }

  write(bytes: Uint8Array): Promise<void> {
    const link = this.link;
    if (!link || !this.established) return Promise.reject(new Error('gateway link is not connected'));
    return link.write(bytes).catch((err: unknown) => {
      // A failed write means the link is broken: treat it as lost (§3.2 "USB error").
      this.fail(`write to ${link.path} failed: ${errText(err)}`);
      throw err;
    });
  }

  /** Closes the link without reporting it as lost. */
  async close(): Promise<void> {
    const link = this.detach();
    if (!link) return;
    try {
      await link.close();
    } catch (err) {
      this.log.debug({ err: errText(err) }, 'closing gateway link failed');
    }
  }

  /** Treats the link as broken: closes it and reports the loss once. */
  fail(detail: string): void {
    const wasEstablished = this.established;
    const link = this.detach();
    if (!link) return;
    void link.close().catch(() => undefined);
    if (wasEstablished) this.h.onLost(detail);
  }

  /** GW_CMD_STATE_REQUEST; true when a state report arrived within `ms`. */
  async queryState(ms: number): Promise<boolean> {
    if (!this.isOpen) return false;
    let resolveWait!: (ok: boolean) => void;
    const answered = new Promise<boolean>((r) => (resolveWait = r));
    this.stateWaiters.add(resolveWait);
    const timer = this.clock.setTimeout(() => resolveWait(false), ms);
    try {
      await this.write(encodeHostCommand({ kind: 'state_request' }));
    } catch {
      resolveWait(false);
    }
    const ok = await answered;
    timer.cancel();
    this.stateWaiters.delete(resolveWait);
    return ok;
  }

  /** GET/SET_RF_CONFIG → EV_RF_CHANGED, one at a time. */
  rfCommand(
    cmd: Extract<HostCommand, { kind: 'get_rf' | 'set_rf' }>,
    ms: number,
  ): Promise<Reply<{ reason: number; rf: RfConfig }>> {
    const run = async (): Promise<Reply<{ reason: number; rf: RfConfig }>> => {
      if (!this.isOpen) return { ok: false, reason: 'link_down', detail: 'gateway link is not connected' };
      const answer = new Promise<{ reason: number; rf: RfConfig } | null>((resolve) => {
        const timer = this.clock.setTimeout(() => resolve(null), ms);
        this.rfWaiter = (r) => {
          timer.cancel();
          this.rfWaiter = null;
          resolve(r);
        };
      });
      try {
        await this.write(encodeHostCommand(cmd));
      } catch (err) {
        this.rfWaiter?.(null);
        return { ok: false, reason: 'link_down', detail: `gateway RF command: ${errText(err)}` };
      }
      const r = await answer;
      if (r) return { ok: true, value: r };
      if (!this.isOpen)
        return { ok: false, reason: 'link_down', detail: 'gateway link lost during RF command' };
      return {
        ok: false,
        reason: 'no_reply',
        detail: `gateway RF command: no EV_RF_CHANGED within ${ms} ms`,
      };
    };
    const p = this.rfChain.then(run, run);
    this.rfChain = p;
    return p;
  }

  private detach(): Link | null {
    const link = this.link;
    for (const u of this.unsubscribe) u();
    this.unsubscribe = [];
    this.link = null;
    this.established = false;
    this.decoder.reset();
    this.flushTimer?.cancel();
    this.flushTimer = null;
    for (const w of [...this.stateWaiters]) w(false);
    this.rfWaiter?.(null);
    return link;
  }

  private onClosed(link: Link, err?: Error): void {
    if (this.link !== link) return;
    this.fail(err ? `gateway link lost: ${err.message}` : 'gateway link closed');
  }

  private onBytes(link: Link, chunk: Uint8Array): void {
    if (this.link !== link) return;
    const now = this.clock.now();
    if (chunk.length > 0) {
      this.lastRxAt = now;
      // Noise like `00 3F` opens a bogus frame that would hold back the real frames after it
      // until more bytes arrive; a quiet line must flush it (the decoder's 50 ms rule).
      this.flushTimer?.cancel();
      this.flushTimer = this.clock.setTimeout(() => {
        this.flushTimer = null;
        this.onBytes(link, EMPTY);
      }, PARTIAL_FLUSH_MS);
    }
    for (const item of this.decoder.push(chunk, now)) {
      if (item.kind !== 'frame') continue; // identify answers are read by the handshake
      const ev = decodeGatewayInbound(item.frame);
      if (!ev) continue;
      try {
        this.dispatch(ev, now);
      } catch (err) {
        // A handler bug must not cost the frames after it in this chunk, nor the process.
        this.log.error({ err: errText(err), event: ev.kind }, 'handling a gateway frame failed');
      }
      if (this.link !== link) return; // a handler failed the link
    }
  }

  private dispatch(ev: GatewayInbound, now: number): void {
    switch (ev.kind) {
      case 'state':
        this.h.onState(ev.report, ev.state, ev.metadataMs);
        if (ev.report) for (const w of [...this.stateWaiters]) w(true);
        break;
      case 'tx_done':
        this.h.onTxDone();
        break;
      case 'tx_rejected':
        this.h.onTxRejected(ev.typeFull, ev.reason);
        break;
      case 'rf_changed':
        this.h.onRf(ev.reason, ev.rf);
        this.rfWaiter?.({ reason: ev.reason, rf: ev.rf });
        break;
      case 'error':
        this.h.onGatewayError(ev.text);
        break;
      case 'packet':
        this.h.onPacket({ packet: ev.packet, reply: ev.reply, rssi: ev.rssi, snr: ev.snr, ts: now });
        break;
    }
  }
}
