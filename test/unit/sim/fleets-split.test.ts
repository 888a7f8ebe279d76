/**
 * Benchmark support on the simulator (bench/networks.ts "Same fleet, same draws"): several
 * gateways' fleets as the one seeded fleet a single gateway would have, split in order, and
 * a fleet's random streams restarted per phase.
 */
import { describe, expect, it } from 'vitest';
import { createFleets } from '../../../src/sim/fleets.ts';
import { createFleet } from '../../../src/sim/fleet.ts';
import { ManualClock } from './manual-clock.ts';

const props = (f: ReturnType<typeof createFleet>) =>
  f.nodes.map((n) => ({ mac: n.mac, devType: n.devType, vbatMv: n.vbatMv, q: f.air.qualityOf(n.addr) }));

describe('createFleets split', () => {
  it('gives gateway k the nodes k·n … (k+1)·n − 1 of the single fleet of that seed', () => {
    const clock = new ManualClock();
    const whole = props(createFleet({ nodes: 40, seed: 7, clock }));
    const [a, b] = createFleets({ gateways: 2, nodes: 20, seed: 7, clock, split: true });
    expect(a && props(a)).toEqual(whole.slice(0, 20));
    expect(b && props(b)).toEqual(whole.slice(20, 40));
    // Each node is heard on its own network, towards its own gateway.
    expect(b?.nodes.every((n) => b.air.qualityOf(n.addr) !== null)).toBe(true);
  });

  it('without split, each gateway has its own seeded fleet (the default is unchanged)', () => {
    const clock = new ManualClock();
    const whole = props(createFleet({ nodes: 40, seed: 7, clock }));
    const [a, b] = createFleets({ gateways: 2, nodes: 20, seed: 7, clock });
    // Gateway 0's is the single gateway's fleet of 20 (the type mix depends on the size).
    expect(a && props(a)).toEqual(props(createFleet({ nodes: 20, seed: 7, clock })));
    expect(b && props(b).map((p) => p.mac)).not.toEqual(whole.slice(20, 40).map((p) => p.mac));
  });
});
