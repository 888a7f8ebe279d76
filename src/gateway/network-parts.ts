/**
 * Per-network sending for the callers that plan their own frames per network (scenes,
 * Blackout, the armed race start): the driver of each network, or — when its gateway is not
 * attached or not connected — a failure naming it, so that part fails at once instead of
 * waiting out the send queue's deadline. With one gateway (no Radio) there are no parts:
 * callers keep today's single-driver path.
 */
import type { RfConfig } from '../protocol/types.ts';
import { Radio } from './radio.ts';
import type { GatewayDriver } from './types.ts';

export interface NetworkRef {
  id: number;
  name: string;
  /** What the network's nodes are tuned to (estimates of a missing gateway's share). */
  rf?: RfConfig | null;
}

export type NetworkRoute = { ok: true; driver: GatewayDriver } | { ok: false; error: string };

export interface NetworkRouter {
  /** The networks traffic may go to (several gateways), or null with one gateway. */
  networks(): NetworkRef[] | null;
  /** The gateway of a network, or why it cannot send (`gateway_missing: <name>`). */
  route(networkId: number): NetworkRoute;
}

export function networkRouter(driver: GatewayDriver, networks: () => readonly NetworkRef[]): NetworkRouter {
  const radio = driver instanceof Radio ? driver : null;
  const name = (id: number): string => networks().find((n) => n.id === id)?.name ?? `network ${id}`;
  return {
    networks: () => (radio ? networks().map((n) => ({ id: n.id, name: n.name, rf: n.rf ?? null })) : null),
    route: (id) => {
      if (!radio) return { ok: true, driver };
      const d = radio.driverOf(id);
      if (!d || !d.readiness().ready) return { ok: false, error: `gateway_missing: ${name(id)}` };
      return { ok: true, driver: d };
    },
  };
}
