/**
 * Several simulated gateways, each with its own seeded fleet, on one shared air and one
 * stepped timeline (`--sim-gateways N`, the networks tests and benchmark). Gateway k sits on
 * its own channel, 500 kHz apart — from the default channel that is the firmware's table,
 * EU868 ch 1, 2, 3… (separated bands never interact) — unless `sameChannel` puts them all on
 * one, where their packets collide like any others. Gateway 0's fleet is the
 * fleet a single-gateway run of the same seed would build.
 */
import { DEFAULT_RF, type RfConfig } from '../protocol/types.ts';
import { Prng } from '../util/prng.ts';
import { Air } from './air.ts';
import { ScaledClock } from '../clock.ts';
import { createFleet, type FleetOptions, type NodeSpec, type SimFleet } from './fleet.ts';
import { SimScheduler } from './scheduler.ts';
import { serveFleetOnMemory, type SimOnMemory, type SimOnMemoryOptions } from './sim-host.ts';

export const CHANNEL_SPACING_HZ = 500_000;

export interface FleetsOptions extends Omit<FleetOptions, 'gatewayMac' | 'nodeSpecs'> {
  gateways: number;
  /** All gateways on gateway 0's channel (to show why networks need separate channels). */
  sameChannel?: boolean;
  /**
   * Benchmarks: the fleets are the ONE seeded fleet of `gateways × nodes` that a single
   * gateway of that size would have, split in order (gateway k gets nodes k·n … (k+1)·n − 1
   * with their MACs, types, batteries and links), so 1 × 300 and 2 × 150 compare the same
   * 300 nodes. Default: each gateway's own seeded fleet (gateway 0's = a single gateway's).
   */
  split?: boolean;
}

/** Gateway k's MAC: the single gateway's for k = 0, then …:10:2k:30. */
export const simGatewayMac = (k: number): string => `48:CA:43:10:${(0x20 + k).toString(16).toUpperCase()}:30`;

export function simGatewayRf(k: number, base: RfConfig = DEFAULT_RF, sameChannel = false): RfConfig {
  return sameChannel ? { ...base } : { ...base, freqHz: base.freqHz + k * CHANNEL_SPACING_HZ };
}

export function createFleets(opts: FleetsOptions): SimFleet[] {
  if (!Number.isInteger(opts.gateways) || opts.gateways < 1 || opts.gateways > 8) {
    throw new RangeError(`gateways must be an integer in 1..8 (got ${opts.gateways})`);
  }
  const { gateways, sameChannel, split, ...fleetOpts } = opts;
  const specs = split && gateways > 1 ? splitSpecs(opts, gateways) : null;
  const root = new Prng(typeof opts.seed === 'number' ? opts.seed : String(opts.seed));
  const sched = new SimScheduler(opts.clock);
  const air = new Air(sched, root.fork('air'));
  const shared = { sched, air, used: new Set<string>() };
  return Array.from({ length: gateways }, (_, k) =>
    createFleet(
      {
        ...fleetOpts,
        seed: k === 0 ? opts.seed : `${String(opts.seed)}/gateway-${k + 1}`,
        gatewayMac: simGatewayMac(k),
        rf: simGatewayRf(k, opts.rf, sameChannel),
        ...(specs ? { nodeSpecs: specs.slice(k * opts.nodes, (k + 1) * opts.nodes) } : {}),
      },
      shared,
    ),
  );
}

/** Every node of the single seeded fleet of `gateways × nodes`, as per-index specs. */
function splitSpecs(opts: FleetsOptions, gateways: number): NodeSpec[] {
  // Built only to read its nodes (never started): leftovers.ts does the same.
  const whole = createFleet({ nodes: opts.nodes * gateways, seed: opts.seed, clock: new ScaledClock(1) });
  return whole.nodes.map((n) => {
    const quality = whole.air.qualityOf(n.addr);
    return { mac: n.mac, devType: n.devType, vbatMv: n.vbatMv, ...(quality ? { quality } : {}) };
  });
}

/** N simulated gateways served in-process, one memory endpoint (USB port) each. */
export function startSimGatewaysOnMemory(opts: FleetsOptions & SimOnMemoryOptions): SimOnMemory[] {
  return createFleets(opts).map((fleet, k) => serveFleetOnMemory(fleet, { ...opts, path: `sim:${k}` }));
}
