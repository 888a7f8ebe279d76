import { SteppedClock } from '../../../src/clock.ts';
import { createGatewayDriver, type LightnetGatewayDriver } from '../../../src/gateway/driver.ts';
import type { DriverOptions } from '../../../src/gateway/options.ts';
import type { GatewayReadiness } from '../../../src/gateway/types.ts';
import { snrForRssi } from '../../../src/sim/air.ts';
import type { NodeSpec, SimFleet } from '../../../src/sim/fleet.ts';
import { startSimOnMemory, type SimOnMemory, type SimOnMemoryOptions } from '../../../src/sim/sim-host.ts';

export interface DriverEnv {
  clock: SteppedClock;
  sim: SimOnMemory;
  fleet: SimFleet;
  driver: LightnetGatewayDriver;
  /** Virtual sleep. */
  sleep(ms: number): Promise<void>;
  /** Resolves with the first readiness event that satisfies `pred`. */
  nextReadiness(pred: (r: GatewayReadiness) => boolean): Promise<GatewayReadiness>;
  /** Discovers the fleet and puts every node into `groupId` (binds them to this gateway). */
  bindAll(groupId: number): Promise<string[]>;
}

export interface DriverEnvOptions extends Omit<SimOnMemoryOptions, 'clock'> {
  driverOptions?: Partial<DriverOptions>;
  /** Virtual ms to let the fleet boot before the test body runs (default 6000). */
  bootWaitMs?: number;
}

/** Starts a seeded simulated fleet and a driver on it; always tears both down. */
export async function withDriver(
  opts: DriverEnvOptions,
  body: (env: DriverEnv) => Promise<void>,
): Promise<void> {
  const clock = new SteppedClock(1).start();
  const { driverOptions, bootWaitMs, ...simOpts } = opts;
  const sim = startSimOnMemory({ ...simOpts, clock });
  const driver = createGatewayDriver({
    linkFactory: sim.linkFactory,
    clock,
    transport: 'sim',
    port: 'sim',
    ...(driverOptions ? { options: driverOptions } : {}),
  });
  const env: DriverEnv = {
    clock,
    sim,
    fleet: sim.fleet,
    driver,
    sleep: (ms) => clock.sleep(ms),
    nextReadiness: (pred) =>
      new Promise((resolve) => {
        const off = driver.on('readiness', (r) => {
          if (pred(r)) {
            off();
            resolve(r);
          }
        });
      }),
    async bindAll(groupId) {
      const found = await driver.discover({ groupId: 0 });
      const addrs = found.map((f) => f.addr).sort();
      for (const a of addrs) {
        const r = await driver.setGroup(a, groupId);
        if (!r.ok || !r.value.ok) throw new Error(`could not bind ${a}: ${JSON.stringify(r)}`);
      }
      return addrs;
    },
  };
  try {
    await driver.start();
    await clock.sleep(bootWaitMs ?? 6000);
    await body(env);
  } finally {
    await driver.stop();
    sim.stop();
    clock.stop();
  }
}

/**
 * Link qualities spread from strong (−42 dBm) to weak but in range (−100 dBm, SNR ≈ −4 dB).
 * The seeded default fleet also places a few nodes below the demodulation floor (SNR < −7.5
 * dB at SF7), which no gateway can reach reliably; scenarios that demand "every node" use
 * these instead.
 */
export function inRange(nodes: number): NodeSpec[] {
  return Array.from({ length: nodes }, (_, i) => {
    const rssi = -42 - (58 * i) / Math.max(1, nodes - 1);
    return { quality: { rssi, snr: snrForRssi(rssi) } };
  });
}

export const fleetAddrs = (fleet: SimFleet): string[] => fleet.nodes.map((n) => n.addr).sort();
