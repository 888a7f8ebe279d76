/**
 * What a simulated node does with a request that passed its receive filters (§8): the
 * group rule of each opcode, master binding by SET_GROUP, CONFIG and RF_CONFIG with their
 * ACK-versus-restart ordering, and STREAM reassembly into startblock records. Kept apart
 * from SimNode so the node itself is only lifecycle, boot announcements and the filters.
 */
import { OPC, type Addr, type N2MReply, type RfConfig } from '../../protocol/types.ts';
import { decodeRequestBody, type StreamReassembler } from '../../protocol/packets.ts';
import { validateRfConfig } from '../../protocol/replies.ts';
import type { Prng } from '../../util/prng.ts';
import type { SimTimer } from '../scheduler.ts';
import { IND } from './led.ts';
import { defaultOverrides, parseStartblockRecord, readOption, writeValueOption } from './config.ts';
import type { NodeState, Persisted } from './types.ts';

/**
 * The parts of a node the handlers need that are not on SimNode's public API: passed in
 * by the node itself, so tests and the fleet cannot reach the flash image or the reply path.
 */
export interface NodeInternals {
  readonly persisted: Persisted;
  readonly stream: StreamReassembler;
  readonly rng: Prng;
  reply(to: Addr, r: N2MReply, onAir?: () => void): void;
  identifyReply(): N2MReply;
  after(ms: number, fn: () => void): SimTimer;
  cancelTimers(): void;
  /** The flash image changed (the simulator's memory writes it down). */
  flashed(): void;
}

export class NodeOpcodes {
  constructor(
    private readonly node: NodeState,
    private readonly io: NodeInternals,
  ) {}

  dispatch(op: number, sender: Addr, broadcast: boolean, body: Uint8Array): void {
    if (op === OPC.STREAM) {
      this.onStream(sender, body);
      return;
    }
    const req = decodeRequestBody(op, body);
    if (!req) return;
    const node = this.node;
    const led = node.led;
    switch (req.op) {
      case 'DEVICES':
        if (this.groupMatches(req.groupId)) this.io.reply(sender, this.io.identifyReply());
        return;
      case 'SET_GROUP':
        node.groupId = req.groupId;
        node.master = sender;
        if (node.macFilterPersist) {
          this.io.persisted.master = sender;
          this.io.flashed();
        }
        led.startIndicator(IND.PAIR_CONFIRMED, 2);
        this.ack(sender, OPC.SET_GROUP);
        return;
      case 'STATUS':
        if (this.groupMatches(req.groupId)) this.io.reply(sender, this.statusReply());
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
        const data = readOption(req.option, node.overrides, node.startblock);
        if (data) this.io.reply(sender, { kind: 'CONFIG_REPLY', option: req.option, data });
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
          this.io.reply(sender, { kind: 'RF_CONFIG_REPLY', rf: { ...node.radio.rf } });
        return;
      case 'STREAM':
        return;
    }
  }

  private groupMatches(g: number): boolean {
    return g === 255 || g === this.node.groupId;
  }

  private ack(to: Addr, opcode: number, status = 0): void {
    this.io.reply(to, { kind: 'ACK', ackOf: opcode, status, seq: 0 });
  }

  private statusReply(): N2MReply {
    const node = this.node;
    const bri = node.led.bri;
    return {
      kind: 'STATUS_REPLY',
      flags: (node.led.flags & ~0x01) | (bri > 0 ? 0x01 : 0),
      configByte: node.configByte,
      effectId: node.led.seg.mode,
      brightness: bri,
      vbatMv: node.vbatMv > 0 ? Math.max(0, Math.round(node.vbatMv + this.io.rng.range(-8, 8))) : 0,
      rssi: node.lastRssi,
      snr: node.lastSnr,
      legacy: false,
    };
  }

  /** §8.12 CONFIG: ACK first, then act. */
  private onConfig(sender: Addr, option: number, d: readonly [number, number, number, number]): void {
    const node = this.node;
    this.ack(sender, OPC.CONFIG);
    const on = d[0] !== 0;
    switch (option) {
      case 0x01:
        node.macFilterEnabled = on;
        return;
      case 0x02:
        node.master = null;
        return;
      case 0x03:
        if (on && !node.macFilterPersist) this.io.persisted.master = node.master;
        node.macFilterPersist = on;
        this.saveSettings();
        return;
      case 0x04:
        node.apActive = on;
        node.led.startIndicator(on ? IND.AP_ENABLED : IND.AP_DISABLED, 3);
        return;
      case 0x09:
        writeValueOption(option, d, node.overrides, node.startblock);
        node.led.setBrightness(node.overrides.briS);
        this.saveSettings();
        return;
      case 0x0f:
        Object.assign(node.overrides, defaultOverrides());
        node.led.setBrightness(node.overrides.briS);
        this.saveSettings();
        return;
      case 0x81:
        // Reboots in the same main-loop pass: the queued ACK dies with the radio.
        if (on) node.reboot();
        return;
      default:
        if (writeValueOption(option, d, node.overrides, node.startblock)) this.saveSettings();
    }
  }

  /** §6.13/§8.12: validate → ACK 2; success → persist, persistence off, restart without ACK. */
  private onRfConfig(sender: Addr, rf: RfConfig): void {
    const node = this.node;
    if (validateRfConfig(rf) !== null) {
      this.ack(sender, OPC.RF_CONFIG, 2);
      return;
    }
    if (node.nvsFail) {
      this.ack(sender, OPC.RF_CONFIG, 5);
      return;
    }
    this.io.persisted.rf = { ...rf };
    node.macFilterPersist = false;
    this.saveSettings();
    // The firmware queues ACK(OK) and blocks before restarting without servicing the
    // radio, so in practice the ACK never leaves: we do not transmit it at all.
    node.radio.stop();
    this.io.cancelTimers();
    this.io.after(node.timing.rfRestartBlockMs, () => node.reboot(node.timing.rfRebootMs));
  }

  private onStream(sender: Addr, body: Uint8Array): void {
    const payload = this.io.stream.push(body);
    if (!payload) return;
    this.ack(sender, OPC.STREAM);
    const sb = this.node.startblock;
    const rec = sb ? parseStartblockRecord(payload) : null;
    if (sb && rec && rec.slot >= sb.firstSlot && rec.slot < sb.firstSlot + sb.slots) {
      this.node.startblockDisplay.set(rec.slot, rec);
    }
  }

  /** WLED serialises the whole config: the RAM flags are persisted together. */
  private saveSettings(): void {
    this.io.persisted.macFilterEnabled = this.node.macFilterEnabled;
    this.io.persisted.macFilterPersist = this.node.macFilterPersist;
    this.io.flashed();
  }
}
