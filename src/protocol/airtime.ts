/** LoRa time-on-air (§10.2, Semtech AN1200.13 as used by the original host). */
import type { RfConfig } from './types.ts';
import { HEADER_LEN } from './packets.ts';

export interface LoraParams {
  sf: number;
  bwHz: number;
  crDen: number;
  preamble: number;
  explicitHeader: boolean;
  crc: boolean;
  /** Low-data-rate optimisation; undefined = automatic (on iff symbol time >= 16 ms). */
  lowDataRateOpt?: boolean;
}

export const DEFAULT_LORA: LoraParams = {
  sf: 7,
  bwHz: 125_000,
  crDen: 5,
  preamble: 8,
  explicitHeader: true,
  crc: true,
};

export function loraAirtimeMs(payloadBytes: number, p: Partial<LoraParams> = {}): number {
  const q: LoraParams = { ...DEFAULT_LORA, ...p };
  const symMsTimesBw = 2 ** q.sf * 1000; // T_sym in ms = symMsTimesBw / bwHz
  const de = (q.lowDataRateOpt ?? symMsTimesBw / q.bwHz >= 16) ? 1 : 0;
  const ih = q.explicitHeader ? 0 : 1;
  const crc = q.crc ? 1 : 0;
  const cr = q.crDen - 4;
  const num = 8 * payloadBytes - 4 * q.sf + 28 + 16 * crc - 20 * ih;
  const nPay = 8 + Math.max(Math.ceil(num / (4 * (q.sf - 2 * de))) * (cr + 4), 0);
  // Multiply first, divide once: the symbol count is exact in binary, so the single
  // division yields the correctly rounded value (e.g. exactly 41.216 for 9 bytes).
  return ((q.preamble + 4.25 + nPay) * symMsTimesBw) / q.bwHz;
}

/** Airtime of one LoRa packet with a body of `bodyLength` bytes (Header7 + body). */
export function packetAirtimeMs(bodyLength: number, p: Partial<LoraParams> = {}): number {
  return loraAirtimeMs(HEADER_LEN + bodyLength, p);
}

export function loraParamsFromRf(rf: RfConfig): LoraParams {
  return {
    sf: rf.sf,
    bwHz: rf.bwKhzX10 * 100,
    crDen: rf.crDen,
    preamble: rf.preamble,
    explicitHeader: true,
    crc: true,
  };
}
