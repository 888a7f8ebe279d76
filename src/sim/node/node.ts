/**
 * A simulated node (§8, RaceLink WLED v0.1.14 LoRa build): power and reboot, boot values
 * and boot announcements, and the receive pipeline with its filters and master binding.
 * What each opcode does lives in node-opcodes; replies go through NodeRadio (LBT, one slot,
 * deafness); the visible LED state lives in LedEngine, CONFIG option values in node-config.
 */
import {
  BROADCAST,
  DEFAULT_RF,
  DIR_N2M,
  OPC,
  PROTO_VER_MAJOR,
  type Addr,
  type N2MReply,
  type RfConfig,
} from '../../protocol/types.ts';
import { decodeLoraPacket, encodeLoraPacket, StreamReassembler } from '../../protocol/packets.ts';
import { encodeReplyBody, replyTypeFull } from '../../protocol/replies.ts';
import { CONFIG_BYTE } from '../../protocol/flags.ts';
import type { Prng } from '../../util/prng.ts';
import type { Air } from '../air.ts';
import type { SimScheduler, SimTimer } from '../scheduler.ts';
import { NodeRadio } from './radio.ts';
import { LedEngine } from './led.ts';
import {
  cloneOverrides,
  defaultOverrides,
  type Overrides,
  type StartblockConfig,
  type StartblockRecord,
  writeValueOption,
} from './config.ts';
import { NodeOpcodes } from './opcodes.ts';
import { buildSnapshot, type NodeSnapshot } from './snapshot.ts';
import {
  DEFAULT_NODE_TIMING,
  STARTBLOCK_TYPES,
  type NodeState,
  type NodeTiming,
  type NodeFlash,
  type Persisted,
  type SimNodeOptions,
} from './types.ts';

export type { NodeSnapshot } from './snapshot.ts';
export {
  DEFAULT_NODE_TIMING,
  STARTBLOCK_TYPES,
  type NodeFlash,
  type NodeTiming,
  type Persisted,
  type SimNodeOptions,
} from './types.ts';

export class SimNode implements NodeState {
  readonly mac: string;
  readonly addr: Addr;
  readonly devType: number;
  readonly radio: NodeRadio;
  readonly timing: NodeTiming;
  vbatMv: number;
  groupId = 0;
  master: Addr | null = null;
  macFilterEnabled = true;
  macFilterPersist = false;
  apActive = false;
  lastRssi = 0;
  lastSnr = 0;
  rebootCount = 0;
  /** Fault: flash writes fail (RF_CONFIG answers ACK_ERROR). */
  nvsFail = false;
  /** Fault: the node acts on every request but its ACKs never leave (e.g. a deaf host side). */
  acksLost = false;
  /** Called whenever the flash image changes (the simulator's memory of the fleet). */
  onFlash: (() => void) | null = null;
  /** Persisted CONFIG overrides; live and persisted are the same (§6.5 "live + persisted"). */
  readonly overrides: Overrides = defaultOverrides();
  readonly startblock: StartblockConfig | null;
  /** Last record shown per slot (startblock builds). */
  readonly startblockDisplay = new Map<number, StartblockRecord>();
  led: LedEngine;
  private readonly persisted: Persisted;
  private readonly stream = new StreamReassembler();
  private readonly timers = new Set<SimTimer>();
  private readonly opcodes: NodeOpcodes;
  private bootAt = 0;
  private powered = false;

  constructor(
    opts: SimNodeOptions,
    private readonly air: Air,
    private readonly sched: SimScheduler,
    rng: Prng,
  ) {
    const hex = opts.mac.replace(/[^0-9a-fA-F]/g, '').toUpperCase();
    if (hex.length !== 12) throw new RangeError(`node MAC must have 12 hex digits (got ${opts.mac})`);
    this.mac = hex;
    this.addr = hex.slice(6);
    this.devType = opts.devType;
    this.vbatMv = opts.vbatMv;
    this.timing = { ...DEFAULT_NODE_TIMING, ...opts.timing };
    this.startblock = STARTBLOCK_TYPES.includes(opts.devType) ? { slots: 1, firstSlot: 1 } : null;
    const rf = { ...(opts.rf ?? DEFAULT_RF) };
    this.persisted = { macFilterEnabled: true, macFilterPersist: false, master: null, rf };
    this.opcodes = new NodeOpcodes(this, {
      persisted: this.persisted,
      stream: this.stream,
      rng,
      reply: (to, r, onAir) => this.reply(to, r, onAir),
      identifyReply: () => this.identifyReply(),
      after: (ms, fn) => this.after(ms, fn),
      cancelTimers: () => this.cancelTimers(),
      flashed: () => this.onFlash?.(),
    });
    this.radio = new NodeRadio(this.addr, rf, air, sched, rng.fork('radio'), this.timing.radio);
    this.radio.onPacket = (bytes, rssi, snr) => this.onPacket(bytes, rssi, snr);
    air.register(this.radio, opts.quality);
    this.led = this.newLed();
  }

  get isPowered(): boolean {
    return this.powered;
  }

  /** Power on; the radio comes up after `delayMs` (default: the boot time). */
  powerOn(delayMs = this.timing.bootMs): void {
    this.cancelTimers();
    this.powered = true;
    this.bootAt = this.sched.now();
    this.resetVolatile();
    this.after(delayMs, () => this.radioUp());
  }

  powerOff(): void {
    this.powered = false;
    this.cancelTimers();
    this.radio.stop();
    this.led.dispose();
  }

  /** Restart (CONFIG 0x81, RF change, fault injection): RAM state is lost. */
  reboot(offlineMs = this.timing.bootMs): void {
    this.rebootCount++;
    this.powerOff();
    this.powerOn(offlineMs);
  }

  /**
   * A CONFIG value changed on the node itself (its own web UI, a preset file), not through
   * the radio: the live value then differs from the host's stored intent. Returns false
   * for options that are not persisted values on this node.
   */
  editOption(option: number, data: readonly [number, number, number, number]): boolean {
    const done = writeValueOption(option, data, this.overrides, this.startblock);
    if (done) this.onFlash?.();
    return done;
  }

  /** What survives a power cycle (flash, cfg.json, NVS): the simulator's memory saves this. */
  flashImage(): NodeFlash {
    const p = this.persisted;
    return {
      macFilterEnabled: p.macFilterEnabled,
      macFilterPersist: p.macFilterPersist,
      master: p.master,
      rf: { ...p.rf },
      overrides: cloneOverrides(this.overrides),
      startblock: this.startblock ? { ...this.startblock } : null,
    };
  }

  /**
   * Puts a saved flash image back, before the node powers on (a restart of the simulator is
   * a power cycle of the fleet): the boot values then come from it as on real hardware.
   */
  restoreFlash(f: NodeFlash): void {
    Object.assign(this.persisted, {
      macFilterEnabled: f.macFilterEnabled,
      macFilterPersist: f.macFilterPersist,
      master: f.master,
      rf: { ...f.rf },
    });
    Object.assign(this.overrides, cloneOverrides(f.overrides));
    if (this.startblock && f.startblock) Object.assign(this.startblock, f.startblock);
    this.resetVolatile();
  }

  silence(on: boolean): void {
    this.radio.silence(on);
  }

  /**
   * Master persistence switched on the node's own settings page (the same effect as CONFIG
   * 0x03): when turned on, the master currently learned is written to flash and restored
   * at the next boot (§8.1, §8.3).
   */
  setMasterPersistence(on: boolean): void {
    if (on && !this.macFilterPersist) this.persisted.master = this.master;
    this.macFilterPersist = on;
    this.persisted.macFilterPersist = on;
    this.onFlash?.();
  }

  /**
   * A channel change made on the node's own settings page (§8.3, reference networks §1.5):
   * the same route as RF_CONFIG — store, master persistence off, reboot on the new channel
   * unbound in group 0. How a node gets stranded away from its network.
   */
  retune(rf: RfConfig): void {
    this.persisted.rf = { ...rf };
    this.macFilterPersist = false;
    this.persisted.macFilterPersist = false;
    this.onFlash?.();
    this.reboot(this.timing.rfRebootMs);
  }

  snapshot(): NodeSnapshot {
    return buildSnapshot(this, this.sched.now());
  }

  get configByte(): number {
    return (
      (this.macFilterEnabled ? CONFIG_BYTE.MAC_FILTER : 0) |
      (this.macFilterPersist ? CONFIG_BYTE.MASTER_PERSIST : 0) |
      (this.apActive ? CONFIG_BYTE.AP_ACTIVE : 0)
    );
  }

  get localMs(): number {
    return this.sched.now() - this.bootAt;
  }

  private newLed(): LedEngine {
    return new LedEngine({
      now: () => this.sched.now(),
      localMs: () => this.localMs,
      groupId: () => this.groupId,
      briS: () => this.overrides.briS,
      schedule: (ms, fn) => this.after(ms, fn),
    });
  }

  /** §8.1 boot values. */
  private resetVolatile(): void {
    const p = this.persisted;
    this.groupId = 0;
    this.macFilterEnabled = p.macFilterEnabled;
    this.macFilterPersist = p.macFilterPersist;
    this.master = p.macFilterPersist && p.master !== null && p.master !== '000000' ? p.master : null;
    this.apActive = false;
    this.lastRssi = 0;
    this.lastSnr = 0;
    this.stream.reset();
    this.startblockDisplay.clear();
    this.led.dispose();
    this.led = this.newLed();
  }

  private radioUp(): void {
    this.radio.start(this.persisted.rf);
    this.after(this.timing.announceMs, () => this.announce(true));
  }

  /** §8.6: +1 s after radio up, and once more 3 s after the first went on air. */
  private announce(first: boolean): void {
    if (this.groupId !== 0) return;
    const onAir = first
      ? () => this.after(this.timing.secondAnnounceMs, () => this.announce(false))
      : undefined;
    this.reply(BROADCAST, this.identifyReply(), onAir);
  }

  private identifyReply(): N2MReply {
    return {
      kind: 'IDENTIFY_REPLY',
      fw: PROTO_VER_MAJOR,
      devType: this.devType,
      groupId: this.groupId,
      mac: this.mac,
    };
  }

  private reply(to: Addr, r: N2MReply, onAir?: () => void): void {
    if (r.kind === 'ACK' && this.acksLost) return;
    const bytes = encodeLoraPacket({
      sender: this.addr,
      receiver: to,
      typeFull: replyTypeFull(r),
      body: encodeReplyBody(r),
    });
    this.radio.queue(bytes, onAir);
  }

  /** §8.2 receive pipeline. */
  private onPacket(bytes: Uint8Array, rssi: number, snr: number): void {
    const pkt = decodeLoraPacket(bytes);
    if (!pkt) return;
    if (pkt.receiver !== BROADCAST && pkt.receiver !== this.addr) return;
    // Stored before any later drop: they become the next STATUS_REPLY's rssi/snr.
    this.lastRssi = toInt8(Math.trunc(rssi));
    this.lastSnr = toInt8(Math.trunc(snr));
    if (pkt.typeFull & DIR_N2M) return;
    const op = pkt.typeFull & 0x7f;
    if (this.macFilterEnabled) {
      if (this.master === null) {
        if (op !== OPC.DEVICES && op !== OPC.SET_GROUP) return;
      } else if (pkt.sender !== this.master) return;
    }
    this.opcodes.dispatch(op, pkt.sender, pkt.receiver === BROADCAST, pkt.body);
  }

  /** @internal for snapshots */
  persistedView(): Readonly<Persisted> & { overrides: Overrides } {
    return { ...this.persisted, rf: { ...this.persisted.rf }, overrides: cloneOverrides(this.overrides) };
  }

  private after(ms: number, fn: () => void): SimTimer {
    const t = this.sched.after(ms, () => {
      this.timers.delete(t);
      fn();
    });
    this.timers.add(t);
    return t;
  }

  private cancelTimers(): void {
    for (const t of this.timers) t.cancel();
    this.timers.clear();
  }
}

function toInt8(v: number): number {
  return (v << 24) >> 24;
}
