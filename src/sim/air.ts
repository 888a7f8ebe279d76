/**
 * The shared LoRa channel. Every simulated radio (the gateway and each node) registers
 * here; a transmission occupies the air for its real time-on-air, and whether a given
 * radio receives it is decided at the end of the transmission:
 *
 * - the receiver was listening when the packet started (preamble) and never stopped
 *   listening until it ended (a node that went deaf to queue a reply loses it),
 * - same channel: frequency, bandwidth, spreading factor and sync word match,
 * - no overlapping transmission on that channel was heard by the receiver, unless this
 *   packet is at least CAPTURE_DB stronger than every overlapping one there (capture),
 * - the SNR at the receiver is above the demodulation floor of the spreading factor,
 * - the per-packet random loss (fault injection) does not drop it.
 *
 * RSSI/SNR are per pair of radios: a node's seeded link quality towards the gateway, and
 * for node↔node a value derived from both nodes' qualities, plus small per-packet noise.
 * These are heuristics (the reference cannot say how real radios behave here, §13).
 *
 * Several gateways (networks) may share the air, each with its own fleet: a node's seeded
 * quality is towards its home gateway, and another gateway hears it SITE_DISTANCE_DB weaker
 * (it stands at another part of the venue). Only radios on the same channel hear each other
 * at all, so networks on separate channels never interact; on one channel they collide.
 */
import type { RfConfig } from '../protocol/types.ts';
import { loraAirtimeMs, loraParamsFromRf } from '../protocol/airtime.ts';
import { TypedEmitter } from '../util/typed-emitter.ts';
import type { Prng } from '../util/prng.ts';
import type { SimScheduler } from './scheduler.ts';

/** A stronger packet survives an overlap if it is at least this much stronger. */
export const CAPTURE_DB = 6;
const NOISE_RSSI_DB = 2;
const NOISE_SNR_DB = 1.5;
/** How much weaker a node is heard by a gateway other than its home gateway. */
export const SITE_DISTANCE_DB = 25;
/** How long finished transmissions are kept for overlap checks. */
const HISTORY_MS = 10_000;

export interface AirRadio {
  /** Unique id, the radio's LoRa address (last3 hex). */
  readonly id: string;
  readonly rf: RfConfig;
  /** True while the radio is in receive mode and could lock onto a new packet. */
  isListening(): boolean;
  /** Increments every time the radio leaves receive mode (so a packet in progress is lost). */
  readonly rxEpoch: number;
  receive(packet: Uint8Array, rssi: number, snr: number): void;
}

/** Link quality of a radio towards the gateway (the hub), at 14 dBm. */
export interface LinkQuality {
  rssi: number;
  snr: number;
}

interface Heard {
  rssi: number;
  snr: number;
  /** Receiver's rxEpoch at packet start, or null if it was not listening then. */
  epoch: number | null;
}

interface Transmission {
  id: number;
  sender: string;
  rf: RfConfig;
  start: number;
  end: number;
  bytes: Uint8Array;
  heard: Map<string, Heard>;
}

export interface AirEvents extends Record<string, unknown> {
  tx: { sender: string; bytes: Uint8Array; start: number; end: number };
  rx: { receiver: string; sender: string; bytes: Uint8Array; rssi: number; snr: number };
  lost: { receiver: string; sender: string; reason: 'collision' | 'snr' | 'loss' | 'deaf' };
}

export interface AirStats {
  transmissions: number;
  delivered: number;
  collisions: number;
  snrDrops: number;
  lossDrops: number;
  deafDrops: number;
}

export function sameChannel(a: RfConfig, b: RfConfig): boolean {
  return a.freqHz === b.freqHz && a.bwKhzX10 === b.bwKhzX10 && a.sf === b.sf && a.syncWord === b.syncWord;
}

/** LoRa demodulation floor (dB SNR) per spreading factor (SX126x datasheet values). */
export function snrFloorDb(sf: number): number {
  return -7.5 - 2.5 * (sf - 7);
}

/** Typical reported SNR for an RSSI: saturates near +12 dB, falls towards the noise floor. */
export function snrForRssi(rssi: number): number {
  return Math.max(-10, Math.min(12, 12 - ((-40 - rssi) * 20) / 75));
}

export function symbolMs(rf: RfConfig): number {
  return (2 ** rf.sf * 1000) / (rf.bwKhzX10 * 100);
}

export function airtimeMs(rf: RfConfig, bytes: number): number {
  return loraAirtimeMs(bytes, loraParamsFromRf(rf));
}

export class Air {
  readonly events = new TypedEmitter<AirEvents>();
  readonly stats: AirStats = {
    transmissions: 0,
    delivered: 0,
    collisions: 0,
    snrDrops: 0,
    lossDrops: 0,
    deafDrops: 0,
  };
  /** Probability (0..1) that a packet is lost at a receiver, independently per receiver. */
  lossRate = 0;
  private readonly radios = new Map<string, { radio: AirRadio; quality: LinkQuality | null }>();
  private readonly pairOverrides = new Map<string, LinkQuality>();
  private txs: Transmission[] = [];
  private nextId = 1;
  private hubId: string | null = null;
  private readonly hubs = new Set<string>();
  /** Node → its home gateway; only set when several gateways share the air. */
  private readonly homes = new Map<string, string>();

  constructor(
    private readonly sched: SimScheduler,
    private readonly rng: Prng,
  ) {}

  /** The gateway: its link to a node is that node's quality. */
  registerHub(radio: AirRadio): void {
    this.hubId ??= radio.id;
    this.hubs.add(radio.id);
    this.radios.set(radio.id, { radio, quality: null });
  }

  /**
   * Benchmarks (common random numbers): the air's noise and loss draws restart from a state
   * derived from the seed and `label` only (Prng.restart); the loss model is unchanged.
   */
  restartRandom(label: string): void {
    this.rng.restart(label);
  }

  /** The gateway a node's link quality is measured towards (several gateways on one air). */
  setHome(nodeId: string, hubId: string): void {
    this.homes.set(nodeId, hubId);
  }

  register(radio: AirRadio, quality: LinkQuality): void {
    if (this.radios.has(radio.id)) throw new Error(`air: radio ${radio.id} already registered`);
    this.radios.set(radio.id, { radio, quality });
  }

  unregister(id: string): void {
    this.radios.delete(id);
  }

  /** Forces the link quality between two radios (tests, e.g. to provoke capture). */
  setPairQuality(a: string, b: string, q: LinkQuality): void {
    this.pairOverrides.set(pairKey(a, b), q);
  }

  qualityOf(id: string): LinkQuality | null {
    return this.radios.get(id)?.quality ?? null;
  }

  /** Mean link quality between two radios, before per-packet noise. */
  pairQuality(a: string, b: string): LinkQuality {
    const o = this.pairOverrides.get(pairKey(a, b));
    if (o) return o;
    const qa = this.radios.get(a)?.quality ?? null;
    const qb = this.radios.get(b)?.quality ?? null;
    if (this.hubs.has(a) && qb) return this.towards(a, b, qb);
    if (this.hubs.has(b) && qa) return this.towards(b, a, qa);
    // Two nodes: roughly as far apart as their distances to the gateway suggest.
    const rssi = ((qa?.rssi ?? -80) + (qb?.rssi ?? -80)) / 2 - 6;
    return { rssi, snr: snrForRssi(rssi) };
  }

  private towards(hub: string, node: string, q: LinkQuality): LinkQuality {
    const home = this.homes.get(node);
    if (home === undefined || home === hub) return q;
    const rssi = q.rssi - SITE_DISTANCE_DB;
    return { rssi, snr: Math.min(q.snr, snrForRssi(rssi)) };
  }

  /** Puts a packet on the air now; `onEnd` runs when the last symbol has left the antenna. */
  transmit(sender: AirRadio, bytes: Uint8Array, onEnd?: () => void): { start: number; end: number } {
    const start = this.sched.now();
    const rf = { ...sender.rf };
    const end = start + airtimeMs(rf, bytes.length);
    const heard = new Map<string, Heard>();
    for (const { radio } of this.radios.values()) {
      if (radio.id === sender.id || !sameChannel(radio.rf, rf)) continue;
      const q = this.pairQuality(sender.id, radio.id);
      const power = rf.txPowerDbm - 14;
      heard.set(radio.id, {
        rssi: q.rssi + power + this.rng.range(-NOISE_RSSI_DB, NOISE_RSSI_DB),
        snr: q.snr + this.rng.range(-NOISE_SNR_DB, NOISE_SNR_DB),
        epoch: radio.isListening() ? radio.rxEpoch : null,
      });
    }
    const tx: Transmission = { id: this.nextId++, sender: sender.id, rf, start, end, bytes, heard };
    this.prune(start);
    this.txs.push(tx);
    this.stats.transmissions++;
    this.events.emit('tx', { sender: sender.id, bytes, start, end });
    this.sched.at(end, () => {
      this.finish(tx);
      onEnd?.();
    });
    return { start, end };
  }

  /**
   * Channel activity detection at `radio` over [from, to]: true if a transmission on its
   * channel (heard by it) overlaps the window. Packets that start in the last half of the
   * window are missed, like a real CAD that needs a few preamble symbols.
   */
  channelBusy(radio: AirRadio, from: number, to: number): boolean {
    const latestStart = from + (to - from) / 2;
    return this.txs.some(
      (t) =>
        t.sender !== radio.id &&
        t.start <= latestStart &&
        t.end > from &&
        t.heard.has(radio.id) &&
        sameChannel(t.rf, radio.rf),
    );
  }

  /** True while any transmission is on the air (diagnostics). */
  get busy(): boolean {
    const now = this.sched.now();
    return this.txs.some((t) => t.start <= now && t.end > now);
  }

  private finish(tx: Transmission): void {
    for (const [rid, h] of tx.heard) {
      if (h.epoch === null) continue;
      const entry = this.radios.get(rid);
      if (!entry) continue;
      const r = entry.radio;
      if (r.rxEpoch !== h.epoch || !r.isListening() || !sameChannel(r.rf, tx.rf)) {
        this.drop(rid, tx, 'deaf');
        continue;
      }
      if (this.collided(tx, rid, h.rssi)) {
        this.drop(rid, tx, 'collision');
        continue;
      }
      if (h.snr < snrFloorDb(tx.rf.sf)) {
        this.drop(rid, tx, 'snr');
        continue;
      }
      if (this.lossRate > 0 && this.rng.chance(this.lossRate)) {
        this.drop(rid, tx, 'loss');
        continue;
      }
      this.stats.delivered++;
      const bytes = Uint8Array.from(tx.bytes);
      this.events.emit('rx', { receiver: rid, sender: tx.sender, bytes, rssi: h.rssi, snr: h.snr });
      r.receive(bytes, h.rssi, h.snr);
    }
  }

  private collided(tx: Transmission, rid: string, rssi: number): boolean {
    for (const o of this.txs) {
      if (o === tx || o.start >= tx.end || o.end <= tx.start) continue;
      const oh = o.heard.get(rid);
      if (!oh) continue;
      if (rssi < oh.rssi + CAPTURE_DB) return true;
    }
    return false;
  }

  private drop(receiver: string, tx: Transmission, reason: AirEvents['lost']['reason']): void {
    if (reason === 'collision') this.stats.collisions++;
    else if (reason === 'snr') this.stats.snrDrops++;
    else if (reason === 'loss') this.stats.lossDrops++;
    else this.stats.deafDrops++;
    this.events.emit('lost', { receiver, sender: tx.sender, reason });
  }

  private prune(now: number): void {
    if (this.txs.length < 64) return;
    this.txs = this.txs.filter((t) => t.end > now - HISTORY_MS);
  }
}

function pairKey(a: string, b: string): string {
  return a < b ? `${a}|${b}` : `${b}|${a}`;
}
