/**
 * Thrown by the collecting operations (discover, statusBroadcast), whose results are plain
 * lists: when their broadcast could not be sent at all, an empty list would be a lie
 * ("nobody answered"), so they throw this instead. `reason` is the send failure.
 */
import type { TxFailure } from './types.ts';

export class GatewayTxError extends Error {
  constructor(
    readonly reason: TxFailure,
    detail: string,
  ) {
    super(detail);
    this.name = 'GatewayTxError';
  }
}
