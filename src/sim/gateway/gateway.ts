/**
 * The simulated gateway (§2–§4, RaceLink_Gateway v0.1.10): power-on and reboots, the exact
 * USB receive decoder with its silent drops, RF configuration with its NVS copy,
 * deduplicated state events, and forwarding of received packets with RSSI/SNR. What a
 * host command does lives in gateway-commands, the single TX slot and the RX window after
 * a STREAM in gateway-tx, SYNC re-stamping, retry and autosync in gateway-sync.
 */
import {
  BROADCAST,
  DEFAULT_RF,
  GW_STATE,
  RF_REASON,
  type GatewayInbound,
  type RfConfig,
} from '../../protocol/types.ts';
import { GatewayFrameDecoder, encodeFrame } from '../../protocol/framing.ts';
import { decodeGatewayCommand } from '../../protocol/commands.ts';
import { encodeGatewayInbound, FORWARD_MAX_PACKET } from '../../protocol/events.ts';
import { concatBytes, toHex } from '../../protocol/bytes.ts';
import { validateRfConfig } from '../../protocol/rf.ts';
import type { Link } from '../../transport/link.ts';
import type { Air } from '../air.ts';
import type { SimScheduler, SimTimer } from '../scheduler.ts';
import { UsbPort } from './usb.ts';
import { TypedEmitter } from '../../util/typed-emitter.ts';
import {
  DEFAULT_GATEWAY_TIMING,
  GatewayRadio,
  type GatewayEvents,
  type GatewayStats,
  type GatewayTiming,
  type SimGatewayOptions,
} from './parts.ts';
import { GatewayCommands } from './commands.ts';
import { GatewaySync } from './sync.ts';
import { TxSlot } from './tx.ts';

export {
  DEFAULT_GATEWAY_TIMING,
  type GatewayEvents,
  type GatewayStats,
  type GatewayTiming,
  type SimGatewayOptions,
} from './parts.ts';

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
  /** Called whenever the NVS config changes (the simulator's memory of the fleet). */
  onFlash: (() => void) | null = null;
  private readonly radio: GatewayRadio;
  private readonly decoder = new GatewayFrameDecoder();
  private nvsRf: RfConfig;
  private booted = false;
  private bootAt = 0;
  private state: number = GW_STATE.IDLE;
  private stateMeta = 0;
  private lastEmitted: string | null = null;
  private readonly tx: TxSlot;
  private readonly sync: GatewaySync;
  private readonly commands: GatewayCommands;
  private lastRxAt = -Infinity;
  private readonly timers = new Set<SimTimer>();
  private readonly bootNoise: (() => Uint8Array) | undefined;

  constructor(
    air: Air,
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
    this.radio = new GatewayRadio(this.addr, { ...this.nvsRf });
    // The parts get closures rather than the gateway itself, so its private state and
    // timers stay private; `sync` is created after `tx` but only used from callbacks.
    const after = (ms: number, fn: () => void): SimTimer => this.after(ms, fn);
    const now = (): number => this.sched.now();
    const emit = (ev: GatewayInbound): void => this.emit(ev);
    this.tx = new TxSlot({
      air,
      radio: this.radio,
      stats: this.stats,
      timing: this.timing,
      now,
      lastRxAt: () => this.lastRxAt,
      after,
      setState: (state, meta) => this.setState(state, meta),
      emit,
      onStart: () => this.sync.cancelAutosync(),
      onIdle: () => this.sync.serviceIdle(),
    });
    this.sync = new GatewaySync({
      addr: this.addr,
      stats: this.stats,
      timing: this.timing,
      tx: this.tx,
      isBooted: () => this.booted,
      now,
      millis: () => this.millis(),
      after,
    });
    this.commands = new GatewayCommands({
      mac: this.mac,
      addr: this.addr,
      stats: this.stats,
      timing: this.timing,
      tx: this.tx,
      sync: this.sync,
      write: (bytes) => this.usb.write(bytes),
      emit,
      // An accepted frame is already transmitting as far as a later state request can tell.
      stateReport: () =>
        this.tx.starting
          ? { state: GW_STATE.TX, metadataMs: 0 }
          : { state: this.state, metadataMs: this.stateMeta },
      rf: () => this.rf,
      setRf: (persistFlag, rf) => this.setRf(persistFlag, rf),
      noteM2N: (typeFull, receiver, body, outcome) =>
        this.events.emit('m2n', { typeFull, receiver, body: body.slice(), outcome, at: this.sched.now() }),
    });
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

  /** The RF config in NVS: what the radio comes up with at the next boot. */
  get storedRf(): RfConfig {
    return { ...this.nvsRf };
  }

  /**
   * Puts a saved NVS config back before the board powers on (a restart of the simulator is
   * a power cycle): a persisted channel move survives it, a volatile one does not (§3.3).
   */
  restoreFlash(rf: RfConfig): void {
    this.nvsRf = { ...rf };
    if (!this.booted) this.radio.rf = { ...rf };
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

  /** Power-on or reset: RAM state is lost, the radio comes back with the NVS config after `bootMs`. */
  boot(bootMs = this.timing.bootMs): void {
    for (const t of this.timers) t.cancel();
    this.timers.clear();
    this.sync.reset();
    this.stats.boots++;
    this.booted = false;
    this.bootAt = this.sched.now();
    this.radio.on = false;
    this.radio.transmitting = false;
    this.radio.leaveRx();
    this.decoder.reset();
    this.tx.reset();
    this.lastRxAt = -Infinity;
    this.lastEmitted = null;
    this.state = GW_STATE.IDLE;
    this.stateMeta = 0;
    this.after(bootMs, () => {
      this.booted = true;
      this.radio.rf = { ...this.nvsRf };
      this.radio.on = true;
      this.setState(GW_STATE.IDLE);
      this.events.emit('booted', { boots: this.stats.boots });
      this.sync.serviceIdle();
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

  /**
   * The reboot after a persisted RF change. A native USB-CDC board re-enumerates (the link
   * drops); behind a UART bridge (resetOnOpen, CP2102) the port stays open and the host
   * just sees the boot log and the boot events.
   */
  private rebootAfterPersist(): void {
    if (!this.resetOnOpen) {
      this.rebootWithUsbDrop();
      return;
    }
    const noise = this.bootNoise?.();
    if (noise && noise.length > 0) this.usb.write(noise);
    this.boot();
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
      this.commands.dispatch(cmd);
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
      this.onFlash?.();
      this.emit({ kind: 'rf_changed', reason: RF_REASON.OK, rf: { ...rf } });
      this.after(this.timing.rfRebootDelayMs, () => this.rebootAfterPersist());
      return;
    }
    this.radio.leaveRx();
    this.radio.rf = { ...rf };
    this.emit({ kind: 'rf_changed', reason: RF_REASON.OK, rf: { ...rf } });
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
    this.tx.countPacket();
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
