/**
 * SYNC as the gateway handles it (§3.4): every SYNC is re-stamped with the gateway's own
 * 24-bit millis when it is queued; one rejected with TXPENDING is remembered and sent by
 * the gateway itself once the slot is free; and when no SYNC went out for the autosync
 * interval, the gateway sends one on its own with the last PRESET/SYNC brightness.
 */
import { BROADCAST, OPC } from '../../protocol/types.ts';
import type { SimTimer } from '../scheduler.ts';
import type { GatewayStats, GatewayTiming } from './parts.ts';
import { airPacket, type TxSlot } from './tx.ts';

export interface GatewaySyncHost {
  readonly addr: string;
  readonly stats: GatewayStats;
  readonly timing: GatewayTiming;
  readonly tx: TxSlot;
  isBooted(): boolean;
  now(): number;
  /** Gateway millis() since power-on: the SYNC timestamp source. */
  millis(): number;
  after(ms: number, fn: () => void): SimTimer;
}

export class GatewaySync {
  private retry: { bri: number; flags: number } | null = null;
  private autosyncBri = 128;
  private lastSyncAt = -Infinity;
  private autosyncTimer: SimTimer | null = null;

  constructor(private readonly host: GatewaySyncHost) {}

  /** Boot values. The timer is only forgotten: the gateway has already cancelled all its timers. */
  reset(): void {
    this.autosyncTimer = null;
    this.retry = null;
    this.autosyncBri = 128;
    this.lastSyncAt = -Infinity;
  }

  /** Autosync reuses the brightness of the last PRESET or SYNC the host sent, even a rejected one. */
  noteBrightness(bri: number | undefined): void {
    this.autosyncBri = bri ?? this.autosyncBri;
  }

  /** A host SYNC that got the slot: it supersedes any retry still pending. */
  send(bri: number, flags: number): void {
    this.retry = null;
    this.host.tx.start({ packets: [this.packet(bri, flags)], window: null, isStream: false });
  }

  /** A host SYNC rejected with TXPENDING: the latest one is sent when the slot frees. */
  deferRetry(bri: number, flags: number): void {
    this.retry = { bri, flags };
  }

  cancelAutosync(): void {
    this.autosyncTimer?.cancel();
    this.autosyncTimer = null;
  }

  /** A free slot first serves a SYNC the host had to retry, then autosync when fully idle. */
  serviceIdle(): void {
    const { host } = this;
    if (!host.isBooted() || host.tx.busy) return;
    if (this.retry) {
      const { bri, flags } = this.retry;
      this.retry = null;
      host.stats.syncRetries++;
      host.tx.start({ packets: [this.packet(bri, flags)], window: null, isStream: false });
      return;
    }
    if (host.tx.windowOpen) return;
    const due = this.lastSyncAt + host.timing.autosyncIntervalMs;
    if (host.now() >= due) {
      host.stats.autosyncs++;
      host.tx.start({ packets: [this.packet(this.autosyncBri, 0)], window: null, isStream: false });
      return;
    }
    this.autosyncTimer?.cancel();
    this.autosyncTimer = host.after(due - host.now(), () => this.serviceIdle());
  }

  /** §3.4 re-stamp: own 24-bit millis at queue time; flags only if non-zero. */
  private packet(bri: number, flags: number): Uint8Array {
    this.lastSyncAt = this.host.now();
    const ts = this.host.millis() & 0xffffff;
    const body = [ts & 0xff, (ts >>> 8) & 0xff, (ts >>> 16) & 0xff, bri];
    if (flags !== 0) body.push(flags);
    return airPacket(this.host.addr, BROADCAST, OPC.SYNC, Uint8Array.from(body));
  }
}
