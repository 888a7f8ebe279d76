/**
 * Simulated devices left in a real data folder. Versions before the simulator got its own
 * folder saved the simulated fleet into `./data`; on a real gateway those devices then sit
 * among the real ones, forever offline. The simulated fleet is seeded, so its addresses
 * are known: build the same fleet (never started, no radio) and compare.
 */
import { ScaledClock } from '../clock.ts';
import type { Addr } from '../protocol/types.ts';
import { createFleet } from './fleet.ts';

/** The addresses among `addrs` that the simulated fleet of this size and seed would have. */
export function simulatedAmong(addrs: readonly Addr[], nodes: number, seed: number): Addr[] {
  if (addrs.length === 0 || nodes === 0) return [];
  const fleet = createFleet({ nodes, seed, clock: new ScaledClock(1) });
  const sim = new Set(fleet.nodes.map((n) => n.addr));
  return addrs.filter((a) => sim.has(a));
}
