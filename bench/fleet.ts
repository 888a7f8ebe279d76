/**
 * Fleet-scale radio benchmark (prints a table, asserts nothing): for fleets of 50, 100,
 * 200 and 300 simulated nodes and seeds 1–3, the whole host (services, task manager,
 * driver, simulator) runs on a stepped clock — virtual time advances 1 ms per event-loop
 * turn, so the numbers are deterministic and independent of machine load.
 *
 * Per run: a discovery into a new group (what a new user does first), then a broadcast
 * status poll of every device.
 *
 *   npm run bench:fleet                   all sizes, seeds 1–3
 *   npm run bench:fleet -- 100 300        only these sizes
 *   npm run bench:fleet -- --seeds 1      only these seeds (comma separated)
 *   npm run bench:fleet -- --unconfigured discover into Unconfigured (the Discover dialog's default)
 *
 * Columns:
 *   healthy/weak  nodes whose link never fails on noise (SNR ≥ floor + 1.5 dB) / nodes near
 *                 the SF7 demodulation floor (an exchange succeeds ~1 time in 9 at the edge);
 *                 nodes further out cannot be heard at all and are not counted
 *   found         devices the discovery reported (all nodes found, any link)
 *   bound         nodes that acknowledged the new group (checked on the simulated node)
 *   miss h        healthy nodes not found or not bound
 *   disc s        simulated seconds of the discovery task
 *   ×LB           ratio to the airtime lower bound: one DEVICES request plus, per node,
 *                 its IDENTIFY reply, one SET_GROUP and its ACK (every packet that must be on air)
 *   answered      devices that answered the status poll
 *   wrong off     healthy, bound nodes the poll marked offline
 *   poll s / ×LB  simulated seconds of the poll; lower bound: one STATUS request plus one
 *                 STATUS reply per bound node
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SteppedClock } from '../src/clock.ts';
import { startHost, type HostHandle } from '../src/host/index.ts';
import { silentLogger } from '../src/logger.ts';
import { packetAirtimeMs } from '../src/protocol/airtime.ts';
import { snrFloorDb } from '../src/sim/air.ts';
import type { TaskSnapshot } from '../src/tasks/task-manager.ts';
import { simHostConfig } from './sim-host-config.ts';

const args = process.argv.slice(2);
const seedArg = args.indexOf('--seeds');
const seeds = seedArg >= 0 ? (args[seedArg + 1] ?? '1').split(',').map(Number) : [1, 2, 3];
const sizes = args.filter((a, i) => /^\d+$/.test(a) && (seedArg < 0 || i !== seedArg + 1)).map(Number);
const fleetSizes = sizes.length > 0 ? sizes : [50, 100, 200, 300];
// Into Unconfigured the responders stay in the filtered group (they answer every round).
const unconfigured = args.includes('--unconfigured');

interface Row {
  nodes: number;
  seed: number;
  healthy: number;
  weak: number;
  found: number;
  bound: number;
  missHealthy: number;
  discS: number;
  discLb: number;
  answered: number;
  wrongOff: number;
  pollS: number;
  pollLb: number;
  wallS: number;
}

const config = simHostConfig;

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

async function run(nodes: number, seed: number): Promise<Row> {
  const wall0 = performance.now();
  const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-fleet-'));
  const clock = new SteppedClock(1).start();
  const host = await startHost(config(dataDir, nodes, seed), silentLogger(), { simClock: clock });
  try {
    const sim = host.sim;
    if (!sim) throw new Error('no simulator');
    const { fleet } = sim;
    await clock.sleep(8000); // every node booted, boot announcements are over
    const floor = snrFloorDb(7);
    const snr = (addr: string): number => fleet.air.qualityOf(addr)?.snr ?? -99;
    const healthy = fleet.nodes.filter((n) => snr(n.addr) >= floor + 1.5);
    const weak = fleet.nodes.filter((n) => snr(n.addr) < floor + 1.5 && snr(n.addr) > floor - 1.5);

    const { services } = host;
    let t0 = clock.now();
    const disc = services.discovery.start(unconfigured ? {} : { newGroupName: 'Fleet' });
    const dres = await waitTask(host, disc.id);
    const discMs = clock.now() - t0;
    const r = (dres.result ?? {}) as { found?: number; targetGroupId?: number };
    const target = unconfigured ? 0 : (r.targetGroupId ?? -1);
    const gw = fleet.gateway.addr;
    const boundSet = new Set(
      fleet.nodes
        .filter((n) => {
          const s = n.snapshot();
          return s.master === gw && s.groupId === target;
        })
        .map((n) => n.addr),
    );
    const missHealthy = healthy.filter((n) => !boundSet.has(n.addr)).length;
    const discLb =
      packetAirtimeMs(2) + boundSet.size * (packetAirtimeMs(9) + packetAirtimeMs(1) + packetAirtimeMs(3));

    t0 = clock.now();
    const poll = services.status.start({});
    const pres = await waitTask(host, poll.id);
    const pollMs = clock.now() - t0;
    const pr = (pres.result ?? {}) as { updated?: number };
    const offline = new Set(
      services.registry
        .all()
        .filter((d) => !d.online)
        .map((d) => d.addr),
    );
    const wrongOff = healthy.filter((n) => boundSet.has(n.addr) && offline.has(n.addr)).length;
    const pollLb = packetAirtimeMs(2) + boundSet.size * packetAirtimeMs(8);
    return {
      nodes,
      seed,
      healthy: healthy.length,
      weak: weak.length,
      found: r.found ?? 0,
      bound: boundSet.size,
      missHealthy,
      discS: discMs / 1000,
      discLb: discMs / discLb,
      answered: pr.updated ?? 0,
      wrongOff,
      pollS: pollMs / 1000,
      pollLb: pollMs / pollLb,
      wallS: (performance.now() - wall0) / 1000,
    };
  } finally {
    await host.close();
    clock.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

function printTable(title: string, rows: string[][]): void {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length))) ?? [];
  console.log(`\n${title}`);
  rows.forEach((r, i) => {
    console.log(r.map((cell, c) => cell.padStart(widths[c] ?? 0)).join('  '));
    if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  });
}

const header = [
  'nodes',
  'seed',
  'healthy/weak',
  'found',
  'bound',
  'miss h',
  'disc s',
  '×LB',
  'answered',
  'wrong off',
  'poll s',
  '×LB',
  'wall s',
];
const all: Row[] = [];
for (const n of fleetSizes) {
  const rows: Row[] = [];
  for (const seed of seeds) {
    const row = await run(n, seed);
    rows.push(row);
    all.push(row);
  }
  printTable(`Fleet of ${n} (SF7/125 kHz, stepped clock, simulated seconds)`, [
    header,
    ...rows.map((x) => [
      String(x.nodes),
      String(x.seed),
      `${x.healthy}/${x.weak}`,
      String(x.found),
      String(x.bound),
      String(x.missHealthy),
      x.discS.toFixed(1),
      x.discLb.toFixed(1),
      String(x.answered),
      String(x.wrongOff),
      x.pollS.toFixed(1),
      x.pollLb.toFixed(1),
      x.wallS.toFixed(0),
    ]),
  ]);
}
