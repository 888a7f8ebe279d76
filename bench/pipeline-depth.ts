/**
 * How many unicast exchanges may be in flight at once (src/services/unicast-pipeline.ts)?
 * Prints, per depth 1–5, the share of first attempts that got no reply and the exchanges
 * per simulated second, for STATUS and SET_GROUP to the healthy nodes of a bound fleet
 * (stepped clock, deterministic). Asserts nothing.
 *
 *   npx tsx bench/pipeline-depth.ts [nodes=200] [--seeds 1,2,3]
 */
import { SteppedClock } from '../src/clock.ts';
import { createGatewayDriver } from '../src/gateway/driver.ts';
import { snrFloorDb } from '../src/sim/air.ts';
import { startSimOnMemory } from '../src/sim/sim-host.ts';
import { runUnicastPipeline } from '../src/services/unicast-pipeline.ts';

const args = process.argv.slice(2);
const seedArg = args.indexOf('--seeds');
const seeds = seedArg >= 0 ? (args[seedArg + 1] ?? '1').split(',').map(Number) : [1, 2, 3];
const nodes = Number(args.find((a, i) => /^\d+$/.test(a) && i !== seedArg + 1) ?? 200);
const DEPTHS = [1, 2, 3, 4, 5];

type Cell = { lost: number; tries: number; ms: number };
const table = new Map<string, Cell>();
const add = (k: string, c: Cell): void => {
  const t = table.get(k) ?? { lost: 0, tries: 0, ms: 0 };
  table.set(k, { lost: t.lost + c.lost, tries: t.tries + c.tries, ms: t.ms + c.ms });
};

for (const seed of seeds) {
  const clock = new SteppedClock(1).start();
  const sim = startSimOnMemory({ nodes, seed, clock, gatewayUp: true });
  const driver = createGatewayDriver({ linkFactory: sim.linkFactory, clock, transport: 'sim', port: 'sim' });
  await driver.start();
  await clock.sleep(8000);
  const floor = snrFloorDb(7);
  const healthy = sim.fleet.nodes
    .filter((n) => (sim.fleet.air.qualityOf(n.addr)?.snr ?? -99) >= floor + 1.5)
    .map((n) => n.addr);
  // Bind them (one at a time, many tries) so that they answer STATUS.
  await runUnicastPipeline(
    healthy.map((addr) => ({ key: addr, attempt: () => driver.setGroup(addr, 1, { attempts: 1 }) })),
    { clock, depth: 1, attempts: 6, accept: (v) => v.ok },
  );
  const bound = healthy.filter((a) => sim.fleet.node(a)?.snapshot().groupId === 1);
  for (const depth of DEPTHS) {
    for (const op of ['STATUS', 'SET_GROUP'] as const) {
      await clock.sleep(1000);
      const t0 = clock.now();
      const out = await runUnicastPipeline<unknown>(
        bound.map((addr) => ({
          key: addr,
          attempt: () =>
            op === 'STATUS'
              ? driver.statusUnicast(addr, 1, { attempts: 1 })
              : driver.setGroup(addr, 1, { attempts: 1 }),
        })),
        { clock, depth, attempts: 1 },
      );
      add(`${op}|${depth}`, {
        lost: out.filter((o) => !o.ok).length,
        tries: out.length,
        ms: clock.now() - t0,
      });
    }
  }
  await driver.stop();
  sim.stop();
  clock.stop();
}

console.log(
  `\nUnicast exchanges in flight: ${nodes} nodes, seeds ${seeds.join(',')}, healthy bound nodes only`,
);
console.log('op          depth  exchanges  lost 1st try  loss %  exchanges/s');
for (const op of ['STATUS', 'SET_GROUP']) {
  for (const d of DEPTHS) {
    const c = table.get(`${op}|${d}`);
    if (!c) continue;
    console.log(
      `${op.padEnd(10)}  ${String(d).padStart(5)}  ${String(c.tries).padStart(9)}  ${String(c.lost).padStart(12)}  ${((100 * c.lost) / c.tries).toFixed(1).padStart(6)}  ${((c.tries / c.ms) * 1000).toFixed(1).padStart(11)}`,
    );
  }
}
