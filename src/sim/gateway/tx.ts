/**
 * The gateway's single TX slot (§3–§4): one job at a time, started after the TX start
 * delay, its packets (several only for STREAM fragments) sent back to back, each reported
 * by TX_DONE a TX-done delay after its airtime, and what the radio does afterwards: the
 * STREAM's RX window, a window that an accepted frame had aborted re-opened, or IDLE.
 */
import { GW_STATE, type GatewayInbound } from '../../protocol/types.ts';
import { addrToBytes } from '../../protocol/addr.ts';
import { concatBytes } from '../../protocol/bytes.ts';
import type { Air } from '../air.ts';
import type { SimTimer } from '../scheduler.ts';
import { RxWindow, type GatewayRadio, type GatewayStats, type GatewayTiming } from './parts.ts';

export interface TxJob {
  packets: Uint8Array[];
  /** Window to open when the job is done (STREAM only). */
  window: { lenMs: number; expected: number } | null;
  isStream: boolean;
}

/** The gateway state the slot works on; SimGateway owns it because boot resets all of it. */
export interface TxSlotHost {
  readonly air: Air;
  readonly radio: GatewayRadio;
  readonly stats: GatewayStats;
  readonly timing: GatewayTiming;
  now(): number;
  lastRxAt(): number;
  after(ms: number, fn: () => void): SimTimer;
  setState(state: number, meta?: number): void;
  emit(ev: GatewayInbound): void;
  /** A job took the slot: nothing else (autosync) may be scheduled onto it meanwhile. */
  onStart(): void;
  /** The slot became free (a job ended, or the window after it closed). */
  onIdle(): void;
}

/** A LoRa packet as the gateway puts it on air: Header7 (sender, receiver, type) + body. */
export function airPacket(sender: string, receiver: string, typeFull: number, body: Uint8Array): Uint8Array {
  return concatBytes(addrToBytes(sender), addrToBytes(receiver), [typeFull], body);
}

export class TxSlot {
  private job: TxJob | null = null;
  private reopenWindowMs: number | null = null;
  private readonly window: RxWindow;

  constructor(private readonly host: TxSlotHost) {
    this.window = new RxWindow(
      (ms, fn) => host.after(ms, fn),
      () => host.now(),
      () => host.lastRxAt(),
      host.timing.rxWindowQuietMs,
      () => {
        host.setState(GW_STATE.IDLE);
        host.onIdle();
      },
    );
  }

  get busy(): boolean {
    return this.job !== null;
  }

  get busyWithStream(): boolean {
    return this.job?.isStream === true;
  }

  get windowOpen(): boolean {
    return this.window.isOpen;
  }

  /** A packet was forwarded to the host: it may complete the open window's expected replies. */
  countPacket(): void {
    this.window.countPacket();
  }

  /** Drops the job and any window without callbacks (reboot: the gateway's timers are gone too). */
  reset(): void {
    this.job = null;
    this.window.reset();
    this.reopenWindowMs = null;
  }

  start(job: TxJob): void {
    this.job = job;
    this.host.onStart();
    // A frame accepted during an RX window aborts it; it re-opens after this TX.
    const aborted = this.window.abort();
    if (aborted !== null && !job.isStream) this.reopenWindowMs = aborted;
    if (job.isStream) this.reopenWindowMs = null;
    this.host.after(this.host.timing.txStartDelayMs, () => this.sendNext(job));
  }

  private sendNext(job: TxJob): void {
    if (this.job !== job) return;
    const pkt = job.packets.shift();
    if (!pkt) return;
    const { host } = this;
    host.setState(GW_STATE.TX);
    host.radio.transmitting = true;
    host.radio.leaveRx();
    host.air.transmit(host.radio, pkt, () => {
      if (this.job !== job) return;
      // The packet has left the antenna; the TX-done handling takes a few ms more.
      host.after(host.timing.txDoneDelayMs, () => this.txDone(job));
    });
  }

  private txDone(job: TxJob): void {
    if (this.job !== job) return;
    const { host } = this;
    host.radio.transmitting = false;
    host.stats.txDone++;
    host.emit({ kind: 'tx_done' });
    if (job.packets.length > 0) {
      this.sendNext(job);
      return;
    }
    this.job = null;
    const reopen = this.reopenWindowMs;
    this.reopenWindowMs = null;
    if (job.window) this.openWindow(job.window.lenMs, job.window.expected);
    else if (reopen !== null) this.openWindow(reopen, 0);
    else host.setState(GW_STATE.IDLE);
    host.onIdle();
  }

  private openWindow(lenMs: number, expected: number): void {
    this.window.open(lenMs, expected);
    this.host.setState(GW_STATE.RX_WINDOW, lenMs);
  }
}
