/**
 * Radio timing a service derives from the gateway's active RF settings (never fixed SF7
 * numbers): reply quiet times for burst pacing and the expected rate of a pipelined unicast
 * follow-up, which decides when broadcast rounds stop paying off.
 */
import type { GatewayDriver } from '../../../gateway/types.ts';
import { loraParamsFromRf, packetAirtimeMs } from '../../../protocol/airtime.ts';
import { DEFAULT_PIPELINE_DEPTH, replyQuietMs } from './unicast-pipeline.ts';

/** Reply bodies (wire-protocol §6): ACK 3 B, STATUS_REPLY 8 B, IDENTIFY_REPLY 9 B. */
const REPLY_BODY = { ack: 3, status: 8, identify: 9 } as const;
/** Request bodies: SET_GROUP 1 B, STATUS 2 B. */
const REQUEST_BODY = { ack: 1, status: 2, identify: 2 } as const;
/** Host + gateway overhead per frame on top of its airtime (wire-protocol §4.6: 12–16 ms). */
const FRAME_OVERHEAD_MS = 15;

export interface RadioPace {
  symbolMs: number;
  airtimeMs(bodyLength: number): number;
  /** Burst pacing quiet time after a request (unicast-pipeline.ts replyQuietMs). */
  quietMs(kind: keyof typeof REPLY_BODY): number;
  /**
   * Expected answered exchanges per second of a burst-paced pipeline of `depth`: a burst
   * sends `depth` requests back to back, then waits for the slowest reply.
   */
  unicastPerS(kind: keyof typeof REPLY_BODY, depth?: number): number;
}

export function radioPace(driver: Pick<GatewayDriver, 'radioSettings'>): RadioPace {
  const p = loraParamsFromRf(driver.radioSettings().rf);
  const symbolMs = (2 ** p.sf * 1000) / p.bwHz;
  const air = (n: number): number => packetAirtimeMs(n, p);
  return {
    symbolMs,
    airtimeMs: air,
    quietMs: (kind) => replyQuietMs(air(REPLY_BODY[kind]), symbolMs),
    unicastPerS: (kind, depth = DEFAULT_PIPELINE_DEPTH) => {
      const sendMs = depth * (air(REQUEST_BODY[kind]) + FRAME_OVERHEAD_MS);
      // The slowest of `depth` uniform delays sits near the top of the 50–300 ms range.
      const slowest = 50 + (250 * depth) / (depth + 1);
      const burstMs = sendMs + slowest + 4 * symbolMs + air(REPLY_BODY[kind]);
      // Measured at SF7: ~5 % of first attempts are lost and retried (bench/pipeline-depth.ts).
      return (0.95 * 1000 * depth) / burstMs;
    },
  };
}

/** LoRa demodulation floor (dB SNR) per spreading factor (SX126x datasheet values). */
export function snrFloorDb(sf: number): number {
  return -7.5 - 2.5 * (sf - 7);
}
