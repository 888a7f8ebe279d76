/**
 * Networks benchmark (prints tables, asserts nothing): the same fleet on one gateway, split
 * over two gateways on separate channels, and split over two gateways on the SAME channel
 * (shown, not targeted: why networks need separate channels), side by side in one run, on
 * the stepped clock like bench/fleet.ts (deterministic per seed, independent of load).
 * SF7/125 kHz, 5 % packet loss per receiver.
 *
 *   npm run bench:networks                 300 nodes, seeds 1–3
 *   npm run bench:networks -- 200 --seeds 1
 *   npm run bench:networks -- --no-loss    the stage-1 conditions (no packet loss)
 *   npm run bench:networks -- --seeds 1,2,…,32 --tasks-only
 *                                          table 1 only, many seeds: a seed's figures move by
 *                                          ~±10 s with any change of timing (the simulated air
 *                                          draws differently), so compare totals over many seeds
 *   npm run bench:networks -- --own-fleets --chained
 *                                          the old method (below), for comparison
 *
 * Same fleet, same draws (the method is printed first): every layout runs the SAME N nodes —
 * 2 × N/2 is the seeded 1 × N fleet split in order (createFleets `split`; `--own-fleets`:
 * each gateway its own seeded fleet, so network B held other nodes, e.g. seed 2's 18 weak
 * links among 150 instead of 18 among 300) — and each measured phase (the discovery, the
 * poll, the race morning's reboot) restarts every random stream of the simulated air and
 * nodes at a state derived from (seed, phase) only (SimFleet.restartRandom, Prng.restart;
 * `--chained`: one stream per seed through all phases): common random numbers. The physics
 * and the loss model are untouched. A phase still starts from the state the one before left
 * (who is bound, what the registry heard), so a change of discovery still moves the poll,
 * less (docs/developers/benchmarks.md).
 *
 * Table 1, per run: a discovery into a new group, then a status poll of every device.
 *   found / bound   devices the discovery reported / nodes that acknowledged the group
 *   wrong off       healthy, bound nodes the poll marked offline
 *   disc s, poll s  simulated seconds of each task (× = ratio to 1 × N of the same seed)
 *   coll            packets lost to collisions during both tasks (the shared air's count)
 * Summary (after table 1): per scenario, totals over the seeds and how many seeds miss the
 *   targets (discovery ≤ 0.65×, poll ≤ 0.55× of 1 × N).
 * Table 2, race morning (bench/networks-race.ts): the bound field reboots at once; time to
 *   99 % / 100 % restored, and healthy nodes the next poll marks offline.
 * Table 3, fan-out (bench/networks-fanout.ts): a broadcast CONTROL's wall clock on the air;
 *   network A's CONTROL latency with B's gateway unplugged vs clean.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SteppedClock } from '../src/clock.ts';
import { startHost, type HostHandle } from '../src/host/index.ts';
import { silentLogger } from '../src/logger.ts';
import { snrFloorDb } from '../src/sim/air.ts';
import type { TaskSnapshot } from '../src/tasks/task-manager.ts';
import { fanoutTable } from './networks-fanout.ts';
import { raceMorning } from './networks-race.ts';
import { printTable, restartRandom, type Scenario } from './networks-util.ts';
import { simHostConfig } from './sim-host-config.ts';

const args = process.argv.slice(2);
const seedArg = args.indexOf('--seeds');
const seeds = seedArg >= 0 ? (args[seedArg + 1] ?? '1').split(',').map(Number) : [1, 2, 3];
const total = Number(args.find((a, i) => /^\d+$/.test(a) && i !== seedArg + 1) ?? 300);
const lossRate = args.includes('--no-loss') ? 0 : 0.05;
const tasksOnly = args.includes('--tasks-only');
/** The old method (see "Same fleet, same draws" in the header): one stream through every phase … */
const chained = args.includes('--chained');
/** … and a fleet per gateway instead of the 1 × N fleet split. */
const ownFleets = args.includes('--own-fleets');

const SCENARIOS: Scenario[] = [
  { label: `1 × ${total}`, gateways: 1, sameChannel: false },
  { label: `2 × ${total / 2} ch 1+2`, gateways: 2, sameChannel: false },
  { label: `2 × ${total / 2} one ch`, gateways: 2, sameChannel: true },
];

function waitTask(host: HostHandle, id: number): Promise<TaskSnapshot> {
  const current = host.services.tasks.current();
  if (current && current.id === id && current.state !== 'running') return Promise.resolve(current);
  return new Promise((resolve) => {
    const off = host.services.bus.on('task', (t) => {
      if (t.id === id && t.state !== 'running') {
        off();
        resolve(t);
      }
    });
  });
}

interface TaskRow {
  found: number;
  bound: number;
  discS: number;
  answered: number;
  wrongOff: number;
  pollS: number;
  collisions: number;
}

async function run(sc: Scenario, seed: number): Promise<TaskRow> {
  const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-networks-'));
  const clock = new SteppedClock(1).start();
  const cfg = {
    ...simHostConfig(dataDir, total / sc.gateways, seed),
    simGateways: sc.gateways,
    ...(sc.sameChannel ? { simSameChannel: true } : {}),
    ...(ownFleets ? {} : { simSplitFleet: true }),
  };
  const host = await startHost(cfg, silentLogger(), { simClock: clock });
  try {
    const air = host.sims[0]?.fleet.air;
    if (air) air.lossRate = lossRate;
    await clock.sleep(8000);
    const floor = snrFloorDb(7);
    const fleets = host.sims.map((s) => s.fleet);
    const healthy = fleets.flatMap((f) =>
      f.nodes.filter((n) => (f.air.qualityOf(n.addr)?.snr ?? -99) >= floor + 1.5).map((n) => n.addr),
    );
    const { services } = host;
    const coll0 = air?.stats.collisions ?? 0;
    restartRandom(fleets, 'discovery', chained);
    let t0 = clock.now();
    const disc = await waitTask(host, services.discovery.start({ newGroupName: 'Fleet' }).id);
    const discS = (clock.now() - t0) / 1000;
    const r = (disc.result ?? {}) as { found?: number; targetGroupId?: number };
    const bound = new Set(
      fleets.flatMap((f) =>
        f.nodes
          .filter((n) => n.snapshot().master === f.gateway.addr && n.snapshot().groupId === r.targetGroupId)
          .map((n) => n.addr),
      ),
    );
    restartRandom(fleets, 'poll', chained);
    t0 = clock.now();
    const poll = await waitTask(host, services.status.start({}).id);
    const pollS = (clock.now() - t0) / 1000;
    const offline = new Set(
      services.registry
        .all()
        .filter((d) => !d.online)
        .map((d) => d.addr),
    );
    return {
      found: r.found ?? 0,
      bound: bound.size,
      discS,
      answered: (poll.result as { updated?: number } | null)?.updated ?? 0,
      wrongOff: healthy.filter((a) => bound.has(a) && offline.has(a)).length,
      pollS,
      collisions: (air?.stats.collisions ?? 0) - coll0,
    };
  } finally {
    await host.close();
    clock.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const ratio = (v: number, base: number | undefined): string =>
  base ? `${v.toFixed(1)} (${(v / base).toFixed(2)}×)` : v.toFixed(1);

const method = [
  ownFleets ? 'a seeded fleet per gateway (--own-fleets)' : `every layout runs the same ${total} nodes`,
  chained ? 'one random stream through all phases (--chained)' : 'random streams restarted per (seed, phase)',
].join(', ');
const conditions = `SF7/125 kHz, ${lossRate * 100} % loss, stepped clock, simulated s`;
console.log(`Method: ${method}${ownFleets && chained ? ' — the old method' : ''}.`);
const tasks: string[][] = [
  ['fleet', 'seed', 'found', 'bound', 'disc s', 'answered', 'wrong off', 'poll s', 'coll'],
];
/** Per scenario: totals over the seeds, and seeds over the discovery / poll targets. */
const sums = new Map<
  string,
  { found: number; bound: number; discS: number; pollS: number; overD: number; overP: number }
>();
const race: string[][] = [
  ['fleet', 'seed', '99 % s', '100 % s', '99 % per network s', 'restored', 'wrong off'],
];
for (const seed of seeds) {
  let base: TaskRow | undefined;
  let baseRace: number | null | undefined;
  for (const sc of SCENARIOS) {
    const row = await run(sc, seed);
    base ??= row;
    tasks.push([
      sc.label,
      String(seed),
      String(row.found),
      String(row.bound),
      ratio(row.discS, sc === SCENARIOS[0] ? undefined : base.discS),
      String(row.answered),
      String(row.wrongOff),
      ratio(row.pollS, sc === SCENARIOS[0] ? undefined : base.pollS),
      String(row.collisions),
    ]);
    const sum = sums.get(sc.label) ?? { found: 0, bound: 0, discS: 0, pollS: 0, overD: 0, overP: 0 };
    sums.set(sc.label, {
      found: sum.found + row.found,
      bound: sum.bound + row.bound,
      discS: sum.discS + row.discS,
      pollS: sum.pollS + row.pollS,
      overD: sum.overD + (row.discS > 0.65 * base.discS ? 1 : 0),
      overP: sum.overP + (row.pollS > 0.55 * base.pollS ? 1 : 0),
    });
    if (tasksOnly) continue;
    const rm99 = await raceMorning(sc, total, seed, lossRate, { chained, ownFleets });
    if (baseRace === undefined) baseRace = rm99.t99;
    race.push([
      sc.label,
      String(seed),
      rm99.t99 === null ? '—' : ratio(rm99.t99, sc === SCENARIOS[0] ? undefined : (baseRace ?? undefined)),
      rm99.t100 === null ? '—' : rm99.t100.toFixed(1),
      rm99.each99.map((t) => (t === null ? '—' : t.toFixed(1))).join(' / '),
      `${rm99.restored}/${total}`,
      String(rm99.wrongOff),
    ]);
  }
}
printTable(`Discovery and status poll, ${total} nodes (${conditions})`, tasks);
printTable(`Totals over seeds ${seeds.join(',')} (over: seeds above 0.65× discovery / 0.55× poll)`, [
  ['fleet', 'found', 'bound', 'disc s', 'poll s', 'over'],
  ...[...sums].map(([label, t]) => [
    label,
    String(t.found),
    String(t.bound),
    t.discS.toFixed(1),
    t.pollS.toFixed(1),
    label === SCENARIOS[0]?.label ? '—' : `${t.overD} / ${t.overP}`,
  ]),
]);
if (tasksOnly) process.exit(0);
printTable(`Race morning: the bound field reboots at once, ${total} nodes (${conditions})`, race);
await fanoutTable(seeds, total, lossRate);
