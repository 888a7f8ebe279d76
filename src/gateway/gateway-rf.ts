/**
 * The gateway's own RF configuration (USB-only commands, §3.3): what its EV_RF_CHANGED
 * answers mean for a caller of setGatewayRf.
 */
import { RF_REASON, type RfConfig } from '../protocol/types.ts';

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
