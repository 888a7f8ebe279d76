import { describe, expect, it } from 'vitest';
import { Air, SITE_DISTANCE_DB, type AirRadio } from '../../../src/sim/air.ts';
import { createFleets, simGatewayMac, simGatewayRf } from '../../../src/sim/fleets.ts';
import { createFleet } from '../../../src/sim/fleet.ts';
import { SimScheduler } from '../../../src/sim/scheduler.ts';
import { DEFAULT_RF, type RfConfig } from '../../../src/protocol/types.ts';
import { Prng } from '../../../src/util/prng.ts';
import { ManualClock } from '../sim/manual-clock.ts';

class FakeRadio implements AirRadio {
  rxEpoch = 0;
  got: Uint8Array[] = [];
  constructor(
    readonly id: string,
    public rf: RfConfig,
  ) {}
  isListening(): boolean {
    return true;
  }
  receive(bytes: Uint8Array): void {
    this.got.push(bytes);
  }
}

const PKT = new Uint8Array(16);

function twoSites(rfB: RfConfig) {
  const clock = new ManualClock();
  const air = new Air(new SimScheduler(clock), new Prng(3));
  const gwA = new FakeRadio('A00000', { ...DEFAULT_RF });
  const gwB = new FakeRadio('B00000', rfB);
  air.registerHub(gwA);
  air.registerHub(gwB);
  const nodeA = new FakeRadio('A00001', { ...DEFAULT_RF });
  const nodeB = new FakeRadio('B00001', rfB);
  air.register(nodeA, { rssi: -70, snr: 9 });
  air.register(nodeB, { rssi: -70, snr: 9 });
  air.setHome('A00001', 'A00000');
  air.setHome('B00001', 'B00000');
  return { clock, air, gwA, gwB, nodeA, nodeB };
}

describe('several gateways on one air', () => {
  it('a-node-is-heard-weaker-by-the-other-sites-gateway', () => {
    const { air } = twoSites({ ...DEFAULT_RF });
    expect(air.pairQuality('A00000', 'A00001').rssi).toBe(-70);
    expect(air.pairQuality('B00000', 'A00001').rssi).toBe(-70 - SITE_DISTANCE_DB);
    expect(air.pairQuality('A00001', 'B00000').rssi).toBe(-70 - SITE_DISTANCE_DB);
  });

  it('separate-channels-never-interact', () => {
    const { clock, air, gwA, gwB, nodeA, nodeB } = twoSites(simGatewayRf(1));
    air.transmit(nodeA, PKT);
    air.transmit(nodeB, PKT);
    clock.advance(200);
    expect(gwA.got).toHaveLength(1);
    expect(gwB.got).toHaveLength(1);
    expect(air.stats.collisions).toBe(0);
  });

  it('one-channel-networks-collide', () => {
    const { clock, air, gwA, nodeA, nodeB } = twoSites({ ...DEFAULT_RF });
    // Equal strength at the node's own gateway would be lost; here B is 25 dB weaker at A,
    // so A's gateway captures A's packet while B's gateway loses B's packet under A's.
    air.setPairQuality('A00000', 'B00001', { rssi: -72, snr: 8 });
    air.transmit(nodeA, PKT);
    air.transmit(nodeB, PKT);
    clock.advance(200);
    expect(gwA.got).toHaveLength(0);
    expect(air.stats.collisions).toBeGreaterThan(0);
  });

  it('gateway-0s-fleet-is-the-single-gateway-fleet-of-the-same-seed', () => {
    const clock = new ManualClock();
    const one = createFleet({ nodes: 20, seed: 4, clock });
    const [first, second] = createFleets({ gateways: 2, nodes: 20, seed: 4, clock: new ManualClock() });
    expect(first?.nodes.map((n) => n.mac)).toEqual(one.nodes.map((n) => n.mac));
    expect(first?.gateway.mac).toBe(one.gateway.mac);
    expect(second?.gateway.mac).toBe(simGatewayMac(1));
    // No LoRa address twice on the shared air, and gateway 1 on its own channel.
    const addrs = [...(first?.nodes ?? []), ...(second?.nodes ?? [])].map((n) => n.addr);
    expect(new Set(addrs).size).toBe(40);
    expect(second?.nodes[0]?.snapshot().rf.freqHz).toBe(simGatewayRf(1).freqHz);
    expect(first?.air).toBe(second?.air);
  });
});
