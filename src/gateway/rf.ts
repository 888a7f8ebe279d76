/**
 * The gateway's own RF configuration (USB-only commands, §3.3): the settings its radio is
 * using right now, the airtime-dependent limits derived from them, and what its
 * EV_RF_CHANGED answers mean for a caller of setGatewayRf.
 *
 * Every timing of the original host assumes SF7/125 kHz, where the longest packet takes
 * about 0.1 s. At SF12 one packet takes seconds, so the fixed 2 s outcome guard would call
 * a frame lost that is still on the air, and every reply window would close before the
 * reply arrives. The driver therefore reads the active settings on every connect (and after
 * each change) and stretches those limits with the airtime (reply windows: reply-windows.ts).
 */
import { loraParamsFromRf, packetAirtimeMs, type LoraParams } from '../protocol/airtime.ts';
import { validateRfConfig } from '../protocol/rf.ts';
import { STREAM_MAX_PAYLOAD } from '../protocol/stream.ts';
import { DEFAULT_RF, OPC, RF_REASON, type RfConfig } from '../protocol/types.ts';
import type { DriverOptions } from './options.ts';
import { replyWindows, type ReplyWindows } from './reply-windows.ts';

/** USB M2N frame: SOF, LEN, TYPE, receiver (3) around the LoRa body. */
const M2N_FRAME_OVERHEAD = 6;
/** A STREAM goes out as ⌈n/8⌉ fragments with a 9-byte body each (§6.7). */
const STREAM_FRAGMENT_BODY = 9;
const STREAM_MAX_FRAGMENTS = Math.ceil(STREAM_MAX_PAYLOAD / 8);
/** Host write → TX_DONE beyond the airtime (§4.6: 12–16 ms), with ample room for USB latency. */
const OUTCOME_MARGIN_MS = 500;

export class ActiveRf {
  private cfg: RfConfig = DEFAULT_RF;
  private params: LoraParams = loraParamsFromRf(DEFAULT_RF);
  private windows: { options: DriverOptions; windows: ReplyWindows } | null = null;
  private reported = false;

  /** The settings the gateway reported last (the firmware default until then). */
  get config(): RfConfig {
    return this.cfg;
  }

  /** Whether the gateway has reported its settings (else `config` is the firmware default). */
  get fromGateway(): boolean {
    return this.reported;
  }

  /**
   * An EV_RF_CHANGED: every answer carries the config active afterwards (after a refusal,
   * the old one), so any valid one is adopted. Returns true if the settings changed.
   */
  adopt(rf: RfConfig): boolean {
    if (validateRfConfig(rf) !== null) return false; // line noise, not a gateway answer
    const same = (Object.keys(rf) as (keyof RfConfig)[]).every((k) => rf[k] === this.cfg[k]);
    this.reported = true;
    this.cfg = { ...rf };
    this.params = loraParamsFromRf(rf);
    if (!same) this.windows = null;
    return !same;
  }

  /** The reply windows of §9.2 stretched for the active settings (see reply-windows.ts). */
  replyWindows(o: DriverOptions): ReplyWindows {
    if (this.windows?.options !== o) this.windows = { options: o, windows: replyWindows(o, this.params) };
    return this.windows.windows;
  }

  /** Airtime of one packet with a body of this many bytes. */
  airtimeMs(bodyLength: number): number {
    return packetAirtimeMs(bodyLength, this.params);
  }

  /** Airtime of everything one M2N USB frame puts on the air (all fragments of a STREAM). */
  frameAirtimeMs(frame: Uint8Array): number {
    const body = Math.max(0, frame.length - M2N_FRAME_OVERHEAD);
    if (frame[2] !== OPC.STREAM) return this.airtimeMs(body);
    return Math.max(1, Math.ceil(body / 8)) * this.airtimeMs(STREAM_FRAGMENT_BODY);
  }

  /** How long to wait for a frame's EV_TX_DONE / EV_TX_REJECTED before calling it lost. */
  outcomeGuardMs(frame: Uint8Array, o: DriverOptions): number {
    return Math.max(o.outcomeGuardMs, Math.ceil(2 * this.frameAirtimeMs(frame) + OUTCOME_MARGIN_MS));
  }

  /**
   * How long a TX state may last before the mirror is taken as stale. The longest thing the
   * gateway sends in one go is a full STREAM (16 fragments back to back); the option is the
   * floor (it covers the fast settings).
   */
  busyWaitMaxMs(o: DriverOptions): number {
    return Math.max(
      o.busyWaitMaxMs,
      Math.ceil(2 * STREAM_MAX_FRAGMENTS * this.airtimeMs(STREAM_FRAGMENT_BODY)),
    );
  }
}

const describeRf = (rf: RfConfig): string =>
  `${(rf.freqHz / 1e6).toFixed(3)} MHz, SF${rf.sf}, BW ${rf.bwKhzX10 / 10} kHz, CR 4/${rf.crDen}, ${rf.txPowerDbm} dBm`;

/**
 * Why the gateway refused a SET_RF_CONFIG (a non-zero EV_RF_CHANGED reason). Every answer
 * carries the config that is active afterwards, which after a refusal is the old one.
 */
export function rfRefusalDetail(reason: number, active: RfConfig): string {
  const code = `0x${reason.toString(16).padStart(2, '0')}`;
  const what =
    reason === RF_REASON.REJECTED_RANGE
      ? `rejected the RF config as out of range or failed to apply it (REJECTED_RANGE ${code})`
      : reason === RF_REASON.NVS_FAIL
        ? `could not store the RF config in its flash (NVS_FAIL ${code}); nothing was changed`
        : reason === RF_REASON.REJECTED_CRC
          ? `rejected the RF config (REJECTED_CRC ${code})`
          : `refused the RF config (reason ${code})`;
  return `gateway ${what}; active config: ${describeRf(active)}`;
}
