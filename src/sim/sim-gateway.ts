/**
 * The simulated gateway (§2–§4, RaceLink_Gateway v0.1.10): the exact USB receive decoder,
 * the command dispatcher with its silent drops, one TX slot, SYNC re-stamping with its own
 * 24-bit clock and auto-retry, STREAM fragmentation with the RX window that follows it,
 * autosync, deduplicated state events, and forwarding of received packets with RSSI/SNR.
 */
import {
  BROADCAST,
  DEFAULT_RF,
  GW_STATE,
  OPC,
  RF_REASON,
  TX_REJECT,
  type GatewayCommand,
  type GatewayInbound,
  type RfConfig,
} from '../protocol/types.ts';
import { GatewayFrameDecoder, encodeFrame, encodeIdentifyAnswer } from '../protocol/framing.ts';
import { decodeGatewayCommand } from '../protocol/commands.ts';
import { encodeGatewayInbound, FORWARD_MAX_PACKET } from '../protocol/events.ts';
import { addrToBytes } from '../protocol/addr.ts';
import { concatBytes, toHex } from '../protocol/bytes.ts';
import { fragmentStream } from '../protocol/stream.ts';
import { validateRfConfig } from '../protocol/rf.ts';
import type { Link } from '../transport/link.ts';
import type { Air } from './air.ts';
import type { SimScheduler, SimTimer } from './scheduler.ts';
import { UsbPort } from './gateway-usb.ts';
import { TypedEmitter } from '../util/typed-emitter.ts';
import {
  DEFAULT_GATEWAY_TIMING,
  GatewayRadio,
  RxWindow,
  type GatewayEvents,
  type GatewayStats,
  type GatewayTiming,
  type SimGatewayOptions,
} from './gateway-parts.ts';

export {
  DEFAULT_GATEWAY_TIMING,
  type GatewayEvents,
  type GatewayStats,
  type GatewayTiming,
  type SimGatewayOptions,
} from './gateway-parts.ts';

interface TxJob {
  packets: Uint8Array[];
  /** Window to open when the job is done (STREAM only). */
  window: { lenMs: number; expected: number } | null;
  isStream: boolean;
}

export class SimGateway {
  readonly mac: string;
  readonly addr: string;
  readonly usb = new UsbPort();
  readonly events = new TypedEmitter<GatewayEvents>();
  readonly timing: GatewayTiming;
  readonly stats: GatewayStats = {
    framesIn: 0,
    framesIgnored: 0,
    txDone: 0,
    rejected: 0,
    forwarded: 0,
    autosyncs: 0,
    syncRetries: 0,
    boots: 0,
  };
  resetOnOpen: boolean;
  /** Fault: every NVS write fails (RF persist answers NVS_FAIL). */
  nvsFail = false;
  private readonly radio: GatewayRadio;
  private readonly decoder = new GatewayFrameDecoder();
  private nvsRf: RfConfig;
  private booted = false;
  private bootAt = 0;
  private state: number = GW_STATE.IDLE;
  private stateMeta = 0;
  private lastEmitted: string | null = null;
  private job: TxJob | null = null;
  private readonly window: RxWindow;
  private reopenWindowMs: number | null = null;
  private syncRetry: { bri: number; flags: number } | null = null;
  private autosyncBri = 128;
  private lastSyncAt = -Infinity;
  private lastRxAt = -Infinity;
  private autosyncTimer: SimTimer | null = null;
  private readonly timers = new Set<SimTimer>();
  private readonly bootNoise: (() => Uint8Array) | undefined;

  constructor(
    private readonly air: Air,
    private readonly sched: SimScheduler,
    opts: SimGatewayOptions = {},
  ) {
    const hex = (opts.mac ?? '48:CA:43:10:20:30').replace(/[^0-9a-fA-F]/g, '').toUpperCase();
    if (hex.length !== 12) throw new RangeError(`gateway MAC must have 12 hex digits (got ${opts.mac})`);
    this.mac = hex.match(/../g)?.join(':') ?? hex;
    this.addr = hex.slice(6);
    this.timing = { ...DEFAULT_GATEWAY_TIMING, ...opts.timing };
    this.resetOnOpen = opts.resetOnOpen ?? false;
    this.bootNoise = opts.bootNoise;
    this.nvsRf = { ...(opts.rf ?? DEFAULT_RF) };
    this.window = new RxWindow(
      (ms, fn) => this.after(ms, fn),
      () => this.sched.now(),
      () => this.lastRxAt,
      this.timing.rxWindowQuietMs,
      () => {
        this.setState(GW_STATE.IDLE);
        this.serviceIdle();
      },
    );
    this.radio = new GatewayRadio(this.addr, { ...this.nvsRf });
    this.radio.onPacket = (b, rssi, snr) => this.onAirPacket(b, rssi, snr);
    air.registerHub(this.radio);
    this.usb.onBytes = (chunk) => this.sched.runExternal(() => this.onUsbBytes(chunk));
    this.usb.onAttach = () => {
      if (!this.resetOnOpen) return;
      this.sched.runExternal(() => {
        const noise = this.bootNoise?.();
        if (noise && noise.length > 0) this.usb.write(noise);
        this.boot();
      });
    };
  }

  /** Connects a host link; throws UsbRefusedError while the USB device is absent or in use. */
  attach(link: Link): void {
    this.usb.attach(link);
  }

  get rf(): RfConfig {
    return { ...this.radio.rf };
  }

  get isBooted(): boolean {
    return this.booted;
  }

  /** Gateway millis() since power-on. */
  millis(): number {
    return Math.floor(this.sched.now() - this.bootAt);
  }

  set deaf(on: boolean) {
    if (on && !this.radio.deaf) this.radio.leaveRx();
    this.radio.deaf = on;
  }

  get deaf(): boolean {
    return this.radio.deaf;
  }

  /** Power-on or reset: RAM state is lost, the radio comes back with the NVS config. */
  boot(): void {
    for (const t of this.timers) t.cancel();
    this.timers.clear();
    this.autosyncTimer = null;
    this.stats.boots++;
    this.booted = false;
    this.bootAt = this.sched.now();
    this.radio.on = false;
    this.radio.transmitting = false;
    this.radio.leaveRx();
    this.decoder.reset();
    this.job = null;
    this.window.reset();
    this.reopenWindowMs = null;
    this.syncRetry = null;
    this.autosyncBri = 128;
    this.lastSyncAt = -Infinity;
    this.lastRxAt = -Infinity;
    this.lastEmitted = null;
    this.state = GW_STATE.IDLE;
    this.stateMeta = 0;
    this.after(this.timing.bootMs, () => {
      this.booted = true;
      this.radio.rf = { ...this.nvsRf };
      this.radio.on = true;
      this.setState(GW_STATE.IDLE);
      this.events.emit('booted', { boots: this.stats.boots });
      this.serviceIdle();
    });
  }

  /** Resolves once setup has finished (immediately if it already has). */
  whenBooted(): Promise<void> {
    if (this.booted) return Promise.resolve();
    return new Promise((resolve) => {
      const off = this.events.on('booted', () => {
        off();
        resolve();
      });
    });
  }

  /** Reboot that also makes the USB device vanish until setup is done (§3.3 persist). */
  rebootWithUsbDrop(): void {
    this.usb.setRebootAbsent(true);
    this.boot();
    this.after(this.timing.bootMs, () => this.usb.setRebootAbsent(false));
  }

  /** Stops all gateway timers (fleet shutdown). */
  stop(): void {
    for (const t of this.timers) t.cancel();
    this.timers.clear();
    this.booted = false;
    this.radio.on = false;
  }

  /** Fault injection: writes raw bytes to the host as if they came from the UART. */
  writeRaw(bytes: Uint8Array): void {
    this.usb.write(bytes);
  }

  /** Fault injection: bytes that reach the gateway as if the host had sent them. */
  feedHostBytes(bytes: Uint8Array): void {
    this.sched.runExternal(() => this.onUsbBytes(bytes));
  }

  private onUsbBytes(chunk: Uint8Array): void {
    // Before setup ends the UART is not read yet: bytes are lost, as after a real reset.
    if (!this.booted) return;
    for (const frame of this.decoder.push(chunk, this.sched.now())) {
      this.stats.framesIn++;
      const cmd = decodeGatewayCommand(frame);
      if (!cmd) {
        this.stats.framesIgnored++;
        continue;
      }
      this.dispatch(cmd);
    }
  }

  private dispatch(cmd: GatewayCommand): void {
    switch (cmd.kind) {
      case 'identify':
        this.usb.write(encodeIdentifyAnswer(this.mac));
        return;
      case 'state_request':
        this.emit({ kind: 'state', report: true, state: this.state, metadataMs: this.stateMeta });
        return;
      case 'get_rf':
        this.emit({ kind: 'rf_changed', reason: RF_REASON.OK, rf: this.rf });
        return;
      case 'set_rf':
        this.setRf(cmd.persistFlag, cmd.rf);
        return;
      case 'm2n':
        this.onM2N(cmd.typeFull, cmd.receiver, cmd.body);
        return;
    }
  }

  private setRf(persistFlag: number, rf: RfConfig): void {
    if (validateRfConfig(rf) !== null) {
      this.emit({ kind: 'rf_changed', reason: RF_REASON.REJECTED_RANGE, rf: this.rf });
      return;
    }
    if (persistFlag === 0x01) {
      if (this.nvsFail) {
        this.emit({ kind: 'rf_changed', reason: RF_REASON.NVS_FAIL, rf: this.rf });
        return;
      }
      this.nvsRf = { ...rf };
      this.emit({ kind: 'rf_changed', reason: RF_REASON.OK, rf: { ...rf } });
      this.after(this.timing.rfRebootDelayMs, () => this.rebootWithUsbDrop());
      return;
    }
    this.radio.leaveRx();
    this.radio.rf = { ...rf };
    this.emit({ kind: 'rf_changed', reason: RF_REASON.OK, rf: { ...rf } });
  }

  private onM2N(typeFull: number, receiver: string, body: Uint8Array): void {
    const op = typeFull & 0x7f;
    if (op === OPC.PRESET || op === OPC.SYNC) this.autosyncBri = body[3] ?? this.autosyncBri;
    if (op === OPC.STREAM && this.job?.isStream) {
      this.reject(typeFull, TX_REJECT.UNKNOWN);
      return;
    }
    if (this.job) {
      this.reject(typeFull, TX_REJECT.TXPENDING);
      if (op === OPC.SYNC) this.syncRetry = { bri: body[3] ?? 0, flags: body[4] ?? 0 };
      return;
    }
    if (op === OPC.SYNC) {
      this.syncRetry = null;
      this.startJob({
        packets: [this.syncPacket(body[3] ?? 0, body[4] ?? 0)],
        window: null,
        isStream: false,
      });
      return;
    }
    if (op === OPC.STREAM) {
      const bc = receiver === BROADCAST;
      const packets = fragmentStream(body).map((f) => this.packet(receiver, OPC.STREAM, f));
      const lenMs = bc ? this.timing.rxWindowBroadcastMs : this.timing.rxWindowUnicastMs;
      this.startJob({ packets, window: { lenMs, expected: bc ? 0 : 1 }, isStream: true });
      return;
    }
    this.startJob({ packets: [this.packet(receiver, typeFull, body)], window: null, isStream: false });
  }

  private reject(typeFull: number, reason: number): void {
    this.stats.rejected++;
    this.emit({ kind: 'tx_rejected', typeFull, reason });
  }

  private packet(receiver: string, typeFull: number, body: Uint8Array): Uint8Array {
    return concatBytes(addrToBytes(this.addr), addrToBytes(receiver), [typeFull], body);
  }

  /** §3.4 re-stamp: own 24-bit millis at queue time; flags only if non-zero. */
  private syncPacket(bri: number, flags: number): Uint8Array {
    this.lastSyncAt = this.sched.now();
    const ts = this.millis() & 0xffffff;
    const body = [ts & 0xff, (ts >>> 8) & 0xff, (ts >>> 16) & 0xff, bri];
    if (flags !== 0) body.push(flags);
    return this.packet(BROADCAST, OPC.SYNC, Uint8Array.from(body));
  }

  private startJob(job: TxJob): void {
    this.job = job;
    this.autosyncTimer?.cancel();
    this.autosyncTimer = null;
    // A frame accepted during an RX window aborts it; it re-opens after this TX.
    const aborted = this.window.abort();
    if (aborted !== null && !job.isStream) this.reopenWindowMs = aborted;
    if (job.isStream) this.reopenWindowMs = null;
    this.after(this.timing.txStartDelayMs, () => this.sendNext(job));
  }

  private sendNext(job: TxJob): void {
    if (this.job !== job) return;
    const pkt = job.packets.shift();
    if (!pkt) return;
    this.setState(GW_STATE.TX);
    this.radio.transmitting = true;
    this.radio.leaveRx();
    this.air.transmit(this.radio, pkt, () => {
      if (this.job !== job) return;
      this.radio.transmitting = false;
      this.stats.txDone++;
      this.emit({ kind: 'tx_done' });
      if (job.packets.length > 0) {
        this.sendNext(job);
        return;
      }
      this.job = null;
      const reopen = this.reopenWindowMs;
      this.reopenWindowMs = null;
      if (job.window) this.openWindow(job.window.lenMs, job.window.expected);
      else if (reopen !== null) this.openWindow(reopen, 0);
      else this.setState(GW_STATE.IDLE);
      this.serviceIdle();
    });
  }

  private openWindow(lenMs: number, expected: number): void {
    this.window.open(lenMs, expected);
    this.setState(GW_STATE.RX_WINDOW, lenMs);
  }

  /** A free slot first serves a SYNC the host had to retry, then autosync when fully idle. */
  private serviceIdle(): void {
    if (!this.booted || this.job) return;
    if (this.syncRetry) {
      const { bri, flags } = this.syncRetry;
      this.syncRetry = null;
      this.stats.syncRetries++;
      this.startJob({ packets: [this.syncPacket(bri, flags)], window: null, isStream: false });
      return;
    }
    if (this.window.isOpen) return;
    const due = this.lastSyncAt + this.timing.autosyncIntervalMs;
    if (this.sched.now() >= due) {
      this.stats.autosyncs++;
      this.startJob({ packets: [this.syncPacket(this.autosyncBri, 0)], window: null, isStream: false });
      return;
    }
    this.autosyncTimer?.cancel();
    this.autosyncTimer = this.after(due - this.sched.now(), () => this.serviceIdle());
  }

  private onAirPacket(bytes: Uint8Array, rssi: number, snr: number): void {
    if (!this.booted || bytes.length < 7) return;
    this.lastRxAt = this.sched.now();
    const receiver = toHex(bytes.subarray(3, 6));
    if (receiver !== BROADCAST && receiver !== this.addr) return;
    const raw = bytes.subarray(0, FORWARD_MAX_PACKET);
    const r = Math.trunc(rssi) & 0xffff;
    const s = Math.trunc(snr) & 0xff;
    this.stats.forwarded++;
    this.usb.write(encodeFrame(bytes[6] as number, concatBytes(raw, [r & 0xff, r >>> 8, s])));
    this.window.countPacket();
  }

  private setState(state: number, meta = 0): void {
    this.state = state;
    this.stateMeta = state === GW_STATE.RX_WINDOW ? meta : 0;
    const key = `${state}:${this.stateMeta}`;
    if (key === this.lastEmitted) return;
    this.lastEmitted = key;
    this.emit({ kind: 'state', report: false, state, metadataMs: this.stateMeta });
  }

  private emit(ev: GatewayInbound): void {
    this.usb.write(encodeGatewayInbound(ev));
  }

  private after(ms: number, fn: () => void): SimTimer {
    const t = this.sched.after(ms, () => {
      this.timers.delete(t);
      fn();
    });
    this.timers.add(t);
    return t;
  }
}
