/**
 * A simulated node (§8, RaceLink WLED v0.1.14 LoRa build): boot values and boot
 * announcements, the receive pipeline with its filters, master binding, group rules per
 * opcode and every opcode handler. Replies go through NodeRadio (LBT, one slot, deafness);
 * the visible LED state lives in LedEngine, CONFIG option values in node-config.
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
} from '../protocol/types.ts';
import {
  decodeLoraPacket,
  decodeRequestBody,
  encodeLoraPacket,
  StreamReassembler,
} from '../protocol/packets.ts';
import { encodeReplyBody, replyTypeFull, validateRfConfig } from '../protocol/replies.ts';
import { CONFIG_BYTE } from '../protocol/flags.ts';
import type { Prng } from '../util/prng.ts';
import type { Air } from './air.ts';
import type { SimScheduler, SimTimer } from './scheduler.ts';
import { NodeRadio } from './node-radio.ts';
import { IND, LedEngine } from './node-led.ts';
import {
  cloneOverrides,
  defaultOverrides,
  parseStartblockRecord,
  readOption,
  writeValueOption,
  type Overrides,
  type StartblockConfig,
  type StartblockRecord,
} from './node-config.ts';
import { buildSnapshot, type NodeSnapshot } from './node-snapshot.ts';
import {
  DEFAULT_NODE_TIMING,
  STARTBLOCK_TYPES,
  type NodeTiming,
  type Persisted,
  type SimNodeOptions,
} from './node-types.ts';

export type { NodeSnapshot } from './node-snapshot.ts';
export {
  DEFAULT_NODE_TIMING,
  STARTBLOCK_TYPES,
  type NodeTiming,
  type Persisted,
  type SimNodeOptions,
} from './node-types.ts';

export class SimNode {
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
  /** Persisted CONFIG overrides; live and persisted are the same (§6.5 "live + persisted"). */
  readonly overrides: Overrides = defaultOverrides();
  readonly startblock: StartblockConfig | null;
  /** Last record shown per slot (startblock builds). */
  readonly startblockDisplay = new Map<number, StartblockRecord>();
  led: LedEngine;
  private readonly persisted: Persisted;
  private readonly stream = new StreamReassembler();
  private readonly timers = new Set<SimTimer>();
  private bootAt = 0;
  private powered = false;

  constructor(
    opts: SimNodeOptions,
    private readonly air: Air,
    private readonly sched: SimScheduler,
    private readonly rng: Prng,
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

  silence(on: boolean): void {
    this.radio.silence(on);
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
    const bytes = encodeLoraPacket({
      sender: this.addr,
      receiver: to,
      typeFull: replyTypeFull(r),
      body: encodeReplyBody(r),
    });
    this.radio.queue(bytes, onAir);
  }

  private ack(to: Addr, opcode: number, status = 0): void {
    this.reply(to, { kind: 'ACK', ackOf: opcode, status, seq: 0 });
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
    this.dispatch(op, pkt.sender, pkt.receiver === BROADCAST, pkt.body);
  }

  private groupMatches(g: number): boolean {
    return g === 255 || g === this.groupId;
  }

  private dispatch(op: number, sender: Addr, broadcast: boolean, body: Uint8Array): void {
    if (op === OPC.STREAM) {
      this.onStream(sender, body);
      return;
    }
    const req = decodeRequestBody(op, body);
    if (!req) return;
    const led = this.led;
    switch (req.op) {
      case 'DEVICES':
        if (this.groupMatches(req.groupId)) this.reply(sender, this.identifyReply());
        return;
      case 'SET_GROUP':
        this.groupId = req.groupId;
        this.master = sender;
        if (this.macFilterPersist) this.persisted.master = sender;
        led.startIndicator(IND.PAIR_CONFIRMED, 2);
        this.ack(sender, OPC.SET_GROUP);
        return;
      case 'STATUS':
        if (this.groupMatches(req.groupId)) this.reply(sender, this.statusReply());
        return;
      case 'PRESET':
        if (this.groupMatches(req.groupId)) led.preset(req.flags, req.presetId, req.brightness);
        return;
      case 'CONFIG':
        if (!broadcast) this.onConfig(sender, req.option, req.data);
        return;
      case 'SYNC':
        led.sync(req.ts24, req.brightness, req.flags);
        return;
      case 'CONTROL':
        if (this.groupMatches(req.groupId)) led.control(req.flags, req.fields);
        return;
      case 'OFFSET':
        if (this.groupMatches(req.groupId)) led.offset(req.offset);
        return;
      case 'GET_CONFIG': {
        if (broadcast) return;
        const data = readOption(req.option, this.overrides, this.startblock);
        if (data) this.reply(sender, { kind: 'CONFIG_REPLY', option: req.option, data });
        return;
      }
      case 'HEADLESS':
        led.headless(req.sceneId, req.brightness);
        return;
      case 'INDICATE':
        led.indicate(req.type, req.durationSec);
        return;
      case 'RF_CONFIG':
        if (!broadcast) this.onRfConfig(sender, req.rf);
        return;
      case 'GET_RF_CONFIG':
        if (!broadcast && (req.reserved ?? 0) === 0)
          this.reply(sender, { kind: 'RF_CONFIG_REPLY', rf: { ...this.radio.rf } });
        return;
      case 'STREAM':
        return;
    }
  }

  private statusReply(): N2MReply {
    const bri = this.led.bri;
    return {
      kind: 'STATUS_REPLY',
      flags: (this.led.flags & ~0x01) | (bri > 0 ? 0x01 : 0),
      configByte: this.configByte,
      effectId: this.led.seg.mode,
      brightness: bri,
      vbatMv: this.vbatMv > 0 ? Math.max(0, Math.round(this.vbatMv + this.rng.range(-8, 8))) : 0,
      rssi: this.lastRssi,
      snr: this.lastSnr,
      legacy: false,
    };
  }

  /** §8.12 CONFIG: ACK first, then act. */
  private onConfig(sender: Addr, option: number, d: readonly [number, number, number, number]): void {
    this.ack(sender, OPC.CONFIG);
    const on = d[0] !== 0;
    switch (option) {
      case 0x01:
        this.macFilterEnabled = on;
        return;
      case 0x02:
        this.master = null;
        return;
      case 0x03:
        if (on && !this.macFilterPersist) this.persisted.master = this.master;
        this.macFilterPersist = on;
        this.saveSettings();
        return;
      case 0x04:
        this.apActive = on;
        this.led.startIndicator(on ? IND.AP_ENABLED : IND.AP_DISABLED, 3);
        return;
      case 0x09:
        writeValueOption(option, d, this.overrides, this.startblock);
        this.led.setBrightness(this.overrides.briS);
        this.saveSettings();
        return;
      case 0x0f:
        Object.assign(this.overrides, defaultOverrides());
        this.led.setBrightness(this.overrides.briS);
        this.saveSettings();
        return;
      case 0x81:
        // Reboots in the same main-loop pass: the queued ACK dies with the radio.
        if (on) this.reboot();
        return;
      default:
        if (writeValueOption(option, d, this.overrides, this.startblock)) this.saveSettings();
    }
  }

  /** §6.13/§8.12: validate → ACK 2; success → persist, persistence off, restart without ACK. */
  private onRfConfig(sender: Addr, rf: RfConfig): void {
    if (validateRfConfig(rf) !== null) {
      this.ack(sender, OPC.RF_CONFIG, 2);
      return;
    }
    if (this.nvsFail) {
      this.ack(sender, OPC.RF_CONFIG, 5);
      return;
    }
    this.persisted.rf = { ...rf };
    this.macFilterPersist = false;
    this.saveSettings();
    // The firmware queues ACK(OK) and blocks before restarting without servicing the
    // radio, so in practice the ACK never leaves: we do not transmit it at all.
    this.radio.stop();
    this.cancelTimers();
    this.after(this.timing.rfRestartBlockMs, () => this.reboot(this.timing.rfRebootMs));
  }

  private onStream(sender: Addr, body: Uint8Array): void {
    const payload = this.stream.push(body);
    if (!payload) return;
    this.ack(sender, OPC.STREAM);
    const sb = this.startblock;
    const rec = sb ? parseStartblockRecord(payload) : null;
    if (sb && rec && rec.slot >= sb.firstSlot && rec.slot < sb.firstSlot + sb.slots) {
      this.startblockDisplay.set(rec.slot, rec);
    }
  }

  /** WLED serialises the whole config: the RAM flags are persisted together. */
  private saveSettings(): void {
    this.persisted.macFilterEnabled = this.macFilterEnabled;
    this.persisted.macFilterPersist = this.macFilterPersist;
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
