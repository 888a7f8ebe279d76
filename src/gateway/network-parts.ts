/**
 * Per-network sending for the callers that plan their own frames per network (scenes,
 * Blackout, the armed race start): the driver of each network, or — when its gateway is not
 * attached or not connected — a failure naming it, so that part fails at once instead of
 * waiting out the send queue's deadline. With one gateway (a pass-through Radio) there are no parts:
 * callers keep today's single-driver path.
 */
import type { RfConfig } from '../protocol/types.ts';
import { Radio } from './radio/radio.ts';
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
  // The same rule as networkLegs: one gateway keeps today's single-driver path (the Radio
  // passes its calls through, and fails them at once while its gateway is held).
  const multi = (): Radio | null => (driver instanceof Radio && driver.multi ? driver : null);
  const name = (id: number): string => networks().find((n) => n.id === id)?.name ?? `network ${id}`;
  return {
    networks: () => (multi() ? networks().map((n) => ({ id: n.id, name: n.name, rf: n.rf ?? null })) : null),
    route: (id) => {
      const radio = multi();
      if (!radio) return { ok: true, driver };
      const d = radio.driverOf(id);
      if (!d || !d.readiness().ready) return { ok: false, error: `gateway_missing: ${name(id)}` };
      return { ok: true, driver: d };
    },
  };
}
