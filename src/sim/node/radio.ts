/**
 * A node's radio (§8.5): receive mode, and one reply slot transmitted with
 * listen-before-talk — uniform 50..300 ms delay, a 4-symbol CAD, 100..200 ms backoff while
 * the channel is busy, abandoned after 5 s. From queueing until the end of its TX the radio
 * does not receive (it sits in standby during the delay).
 */
import type { RfConfig } from '../../protocol/types.ts';
import type { Prng } from '../../util/prng.ts';
import { symbolMs, type Air, type AirRadio } from '../air.ts';
import type { SimScheduler, SimTimer } from '../scheduler.ts';

export type RadioMode = 'off' | 'rx' | 'standby' | 'cad' | 'tx';

export interface NodeRadioTiming {
  replyDelayMinMs: number;
  replyDelayMaxMs: number;
  backoffMinMs: number;
  backoffMaxMs: number;
  giveUpMs: number;
  cadSymbols: number;
  /** Listen-before-talk on (true, the firmware) or plain ALOHA (for comparisons). */
  cad: boolean;
}

export const DEFAULT_NODE_RADIO_TIMING: NodeRadioTiming = {
  replyDelayMinMs: 50,
  replyDelayMaxMs: 300,
  backoffMinMs: 100,
  backoffMaxMs: 200,
  giveUpMs: 5000,
  cadSymbols: 4,
  cad: true,
};

export interface RadioStats {
  repliesQueued: number;
  repliesSent: number;
  /** Dropped because the single reply slot was occupied. */
  repliesDropped: number;
  /** Abandoned after giveUpMs of busy channel. */
  repliesAbandoned: number;
  cadBusy: number;
}

interface Slot {
  bytes: Uint8Array;
  queuedAt: number;
  onAir?: () => void;
}

export class NodeRadio implements AirRadio {
  rf: RfConfig;
  rxEpoch = 0;
  mode: RadioMode = 'off';
  /** Fault: the node neither transmits nor receives. */
  silenced = false;
  onPacket: (bytes: Uint8Array, rssi: number, snr: number) => void = () => {};
  readonly stats: RadioStats = {
    repliesQueued: 0,
    repliesSent: 0,
    repliesDropped: 0,
    repliesAbandoned: 0,
    cadBusy: 0,
  };
  private slot: Slot | null = null;
  private timer: SimTimer | null = null;

  constructor(
    readonly id: string,
    rf: RfConfig,
    private readonly air: Air,
    private readonly sched: SimScheduler,
    private readonly rng: Prng,
    private readonly timing: NodeRadioTiming = DEFAULT_NODE_RADIO_TIMING,
  ) {
    this.rf = { ...rf };
  }

  isListening(): boolean {
    return this.mode === 'rx' && !this.silenced;
  }

  receive(packet: Uint8Array, rssi: number, snr: number): void {
    if (this.isListening()) this.onPacket(packet, rssi, snr);
  }

  get slotBusy(): boolean {
    return this.slot !== null;
  }

  /** Radio up in continuous receive (end of boot). */
  start(rf?: RfConfig): void {
    if (rf) this.rf = { ...rf };
    this.setMode('rx');
  }

  /** Radio down (reboot): a queued reply is lost. */
  stop(): void {
    this.timer?.cancel();
    this.timer = null;
    this.slot = null;
    this.setMode('off');
  }

  silence(on: boolean): void {
    this.silenced = on;
    if (on) {
      this.rxEpoch++;
      // A silent node also stops transmitting: whatever waits in the slot is gone.
      if (this.slot && this.mode !== 'tx') {
        this.timer?.cancel();
        this.timer = null;
        this.slot = null;
        if (this.mode !== 'off') this.setMode('rx');
      }
    }
  }

  /**
   * Queues a reply. Returns false (and drops it) if the slot is taken, the radio is off or
   * silenced. `onAir` runs when the packet is handed to the radio (TX start).
   */
  queue(bytes: Uint8Array, onAir?: () => void): boolean {
    if (this.mode === 'off' || this.silenced) return false;
    if (this.slot) {
      this.stats.repliesDropped++;
      return false;
    }
    this.stats.repliesQueued++;
    this.slot = onAir ? { bytes, queuedAt: this.sched.now(), onAir } : { bytes, queuedAt: this.sched.now() };
    this.setMode('standby');
    const t = this.timing;
    this.wait(this.rng.int(t.replyDelayMinMs, t.replyDelayMaxMs));
    return true;
  }

  private wait(ms: number): void {
    this.timer = this.sched.after(ms, () => this.cad());
  }

  private cad(): void {
    const slot = this.slot;
    if (!slot) return;
    this.setMode('cad');
    const from = this.sched.now();
    const cadMs = this.timing.cadSymbols * symbolMs(this.rf);
    this.timer = this.sched.after(cadMs, () => {
      const to = this.sched.now();
      if (this.timing.cad && this.air.channelBusy(this, from, to)) {
        this.stats.cadBusy++;
        const t = this.timing;
        const backoff = this.rng.int(t.backoffMinMs, t.backoffMaxMs);
        if (to + backoff - slot.queuedAt > t.giveUpMs) {
          this.stats.repliesAbandoned++;
          this.slot = null;
          this.timer = null;
          this.setMode('rx');
          return;
        }
        this.setMode('standby');
        this.wait(backoff);
        return;
      }
      this.transmit(slot);
    });
  }

  private transmit(slot: Slot): void {
    this.timer = null;
    this.setMode('tx');
    this.stats.repliesSent++;
    this.air.transmit(this, slot.bytes, () => {
      if (this.slot !== slot) return;
      this.slot = null;
      if (this.mode === 'tx') this.setMode('rx');
    });
    slot.onAir?.();
  }

  private setMode(m: RadioMode): void {
    if (this.mode === 'rx' && m !== 'rx') this.rxEpoch++;
    this.mode = m;
  }
}
