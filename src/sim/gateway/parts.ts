/** Options, timing, statistics and the radio of the simulated gateway. */
import type { RfConfig } from '../../protocol/types.ts';
import type { AirRadio } from '../air.ts';
import type { SimTimer } from '../scheduler.ts';

export interface GatewayEvents extends Record<string, unknown> {
  /** Setup finished (after power-on, a reset or a reboot). */
  booted: { boots: number };
  /**
   * An M2N request frame from the host (observability for tests and diagnostics):
   * `tx` it took the TX slot, `rejected` it was turned away, `deferred` a SYNC the gateway
   * rejected as TXPENDING and sends by itself once the slot frees.
   */
  m2n: {
    typeFull: number;
    receiver: string;
    body: Uint8Array;
    outcome: 'tx' | 'rejected' | 'deferred';
    at: number;
  };
}

export interface GatewayTiming {
  /** Host frame accepted → radio starts the TX (and `F1 01`). */
  txStartDelayMs: number;
  /**
   * End of the packet's airtime → `F3 01` (and the `F1 00` right after it): the TX-done
   * interrupt, its handling and the USB hop. With txStartDelayMs this makes write → TX_DONE
   * airtime + 12 ms, the low end of the measured 12–16 ms (§4.6). The radio only listens
   * again once TX_DONE was handled (continuous RX is re-armed after it, §4.3).
   */
  txDoneDelayMs: number;
  /** Power-on/reset until setup ends (`F1 00`); host bytes before that are lost. */
  bootMs: number;
  /** After a persisted RF change: wait, then reboot. */
  rfRebootDelayMs: number;
  autosyncIntervalMs: number;
  rxWindowUnicastMs: number;
  rxWindowBroadcastMs: number;
  rxWindowQuietMs: number;
}

export const DEFAULT_GATEWAY_TIMING: GatewayTiming = {
  txStartDelayMs: 1,
  txDoneDelayMs: 11,
  bootMs: 300,
  rfRebootDelayMs: 100,
  autosyncIntervalMs: 30_000,
  rxWindowUnicastMs: 1000,
  rxWindowBroadcastMs: 2000,
  rxWindowQuietMs: 700,
};

export interface SimGatewayOptions {
  mac?: string;
  rf?: RfConfig;
  timing?: Partial<GatewayTiming>;
  /** Emulate a CP2102 board: opening the port resets the ESP32 (boot events follow). */
  resetOnOpen?: boolean;
  /** With resetOnOpen: the ROM boot log arrives as garbage at 921600 baud. */
  bootNoise?: () => Uint8Array;
}

export interface GatewayStats {
  framesIn: number;
  framesIgnored: number;
  txDone: number;
  rejected: number;
  forwarded: number;
  autosyncs: number;
  syncRetries: number;
  boots: number;
}

/** The gateway radio: continuous receive except while transmitting (no CAD, no jitter). */
export class GatewayRadio implements AirRadio {
  rxEpoch = 0;
  transmitting = false;
  on = false;
  deaf = false;
  onPacket: (bytes: Uint8Array, rssi: number, snr: number) => void = () => {};
  constructor(
    readonly id: string,
    public rf: RfConfig,
  ) {}
  isListening(): boolean {
    return this.on && !this.transmitting && !this.deaf;
  }
  receive(bytes: Uint8Array, rssi: number, snr: number): void {
    if (this.isListening()) this.onPacket(bytes, rssi, snr);
  }
  leaveRx(): void {
    this.rxEpoch++;
  }
}

/**
 * The bounded receive window after a STREAM (§4.3.2): ends at its deadline, or once the
 * expected reply count arrived; without the count it only ends after `quietMs` without
 * any received packet (measured from the last packet, even one from before the window).
 */
export class RxWindow {
  private current: { lenMs: number; expected: number; count: number; timer: SimTimer } | null = null;

  constructor(
    private readonly after: (ms: number, fn: () => void) => SimTimer,
    private readonly now: () => number,
    private readonly lastRxAt: () => number,
    private readonly quietMs: number,
    private readonly onClose: () => void,
  ) {}

  get isOpen(): boolean {
    return this.current !== null;
  }

  open(lenMs: number, expected: number): void {
    this.current?.timer.cancel();
    this.current = { lenMs, expected, count: 0, timer: this.after(lenMs, () => this.deadline()) };
  }

  /** Aborts an open window without the close callback; returns its length (for re-opening). */
  abort(): number | null {
    const w = this.current;
    if (!w) return null;
    w.timer.cancel();
    this.current = null;
    return w.lenMs;
  }

  /** Drops the window silently (reboot). */
  reset(): void {
    this.abort();
  }

  /** A packet was forwarded while the window is open. */
  countPacket(): void {
    const w = this.current;
    if (!w) return;
    w.count++;
    if (w.expected > 0 && w.count >= w.expected) this.close();
  }

  private deadline(): void {
    const w = this.current;
    if (!w) return;
    const quietUntil = this.lastRxAt() + this.quietMs;
    if (this.now() < quietUntil) {
      w.timer = this.after(quietUntil - this.now(), () => this.deadline());
      return;
    }
    this.close();
  }

  private close(): void {
    this.abort();
    this.onClose();
  }
}
