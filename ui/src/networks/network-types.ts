/** Shapes of `GET /api/networks` (and the `networks` stream event) as the UI reads them. */
import type { RfConfig } from '../../../src/protocol/types.ts';
import type { Gateway } from '../types.ts';

export type { RfConfig };

/** ready · not_ready (attached, not ready) · missing (not attached) · no_gateway (none assigned). */
export type NetworkState = 'ready' | 'not_ready' | 'conflict' | 'missing' | 'no_gateway';

export interface NetworkInfo {
  id: number;
  name: string;
  gateway_mac: string | null;
  state: NetworkState;
  gateway: Gateway | null;
  device_count: number;
  online_count: number;
  rf: RfConfig | null;
  /** The table channel `rf` is on (null when custom or not known yet). */
  region?: 'EU868' | 'US915' | null;
  channel_id?: number | null;
  /** Added by the channel-plan work: the gateway's RF differs from the network's record. */
  conflict?: { gateway_rf: RfConfig | null; fields: string[] } | null;
  migration?: { from: RfConfig; to: RfConfig; started_ts: number } | null;
  /** Its gateway's USB link keeps being lost (flapping); reconnects are slowed down. */
  link_unstable?: LinkStabilityInfo | null;
}

export interface LinkStabilityInfo {
  losses: number;
  window_s: number;
  since_ts: number;
  reconnect_min_s: number;
}

export interface UnassignedGatewayInfo {
  label: string;
  gateway_mac: string | null;
  ready: boolean;
  rf: RfConfig | null;
  /** Nodes heard announcing through it (channel-plan work; absent before it). */
  unknown_heard?: number;
}

export interface NetworksAnswer {
  networks: NetworkInfo[];
  unassigned: UnassignedGatewayInfo[];
}
