/**
 * The per-packet overhead of the wall-clock estimate (host write → TX done, beyond the
 * airtime), learned from scene runs: the original's 12 ms was calibrated on one setup and
 * later measured at 11–16 ms. Each frame a scene sends at interactive priority gives one
 * sample; samples that waited behind other traffic (over 100 ms) are ignored. Until five
 * samples exist the constant is used.
 */
import { loraParamsFromRf, packetAirtimeMs } from '../../protocol/airtime.ts';
import type { RfConfig } from '../../protocol/types.ts';
import { WIRE_OVERHEAD_MS } from './cost-estimator.ts';

const ALPHA = 0.2;
const MIN_SAMPLES = 5;
const MAX_PLAUSIBLE_MS = 100;

export class WireOverheadCalibration {
  private value = WIRE_OVERHEAD_MS;
  private samples = 0;

  constructor(private readonly rf: () => RfConfig) {}

  /** One sent frame: its body length and the time from handing it to the driver to TX done. */
  sample(bodyLength: number, elapsedMs: number): void {
    const over = elapsedMs - packetAirtimeMs(bodyLength, loraParamsFromRf(this.rf()));
    if (!(over >= 0 && over <= MAX_PLAUSIBLE_MS)) return;
    this.value = this.samples === 0 ? over : this.value + ALPHA * (over - this.value);
    this.samples++;
  }

  /** The overhead to use (ms, one decimal) and where it comes from. */
  current(): { ms: number; source: 'measured' | 'default' } {
    if (this.samples < MIN_SAMPLES) return { ms: WIRE_OVERHEAD_MS, source: 'default' };
    return { ms: Math.round(this.value * 10) / 10, source: 'measured' };
  }
}
