/**
 * Networks benchmark (prints a table, asserts nothing): the same fleet size on one gateway
 * and split over two gateways on separate channels (one network each), on the stepped
 * clock like bench/fleet.ts, so the numbers are deterministic and independent of load.
 *
 *   npm run bench:networks                 300 nodes, seeds 1–3
 *   npm run bench:networks -- 200 --seeds 1
 *
 * Per run: a discovery into a new group, then a status poll of every device.
 *   found / bound   devices the discovery reported / nodes that acknowledged the group
 *   wrong off       healthy, bound nodes the poll marked offline
 *   disc s, poll s  simulated seconds of each task
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SteppedClock } from '../src/clock.ts';
import { startHost, type HostHandle } from '../src/host.ts';
import { silentLogger } from '../src/logger.ts';
import { snrFloorDb } from '../src/sim/air.ts';
import type { TaskSnapshot } from '../src/tasks/task-manager.ts';
import { simHostConfig } from './sim-host-config.ts';

const args = process.argv.slice(2);
const seedArg = args.indexOf('--seeds');
const seeds = seedArg >= 0 ? (args[seedArg + 1] ?? '1').split(',').map(Number) : [1, 2, 3];
const total = Number(args.find((a, i) => /^\d+$/.test(a) && i !== seedArg + 1) ?? 300);

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

async function run(gateways: number, seed: number): Promise<string[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-networks-'));
  const clock = new SteppedClock(1).start();
  const cfg = { ...simHostConfig(dataDir, total / gateways, seed), simGateways: gateways };
  const host = await startHost(cfg, silentLogger(), { simClock: clock });
  try {
    await clock.sleep(8000);
    const floor = snrFloorDb(7);
    const fleets = host.sims.map((s) => s.fleet);
    const healthy = fleets.flatMap((f) =>
      f.nodes.filter((n) => (f.air.qualityOf(n.addr)?.snr ?? -99) >= floor + 1.5).map((n) => n.addr),
    );
    const { services } = host;
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
    t0 = clock.now();
    const poll = await waitTask(host, services.status.start({}).id);
    const pollS = (clock.now() - t0) / 1000;
    const offline = new Set(
      services.registry
        .all()
        .filter((d) => !d.online)
        .map((d) => d.addr),
    );
    const wrongOff = healthy.filter((a) => bound.has(a) && offline.has(a)).length;
    return [
      `${gateways} × ${total / gateways}`,
      String(seed),
      String(r.found ?? 0),
      String(bound.size),
      discS.toFixed(1),
      String((poll.result as { updated?: number } | null)?.updated ?? 0),
      String(wrongOff),
      pollS.toFixed(1),
    ];
  } finally {
    await host.close();
    clock.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const rows: string[][] = [['fleet', 'seed', 'found', 'bound', 'disc s', 'answered', 'wrong off', 'poll s']];
for (const seed of seeds) for (const g of [1, 2]) rows.push(await run(g, seed));
const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length))) ?? [];
console.log(
  `\nOne gateway vs two on separate channels, ${total} nodes (SF7/125 kHz, stepped clock, simulated s)`,
);
rows.forEach((r, i) => {
  console.log(r.map((cell, c) => cell.padStart(widths[c] ?? 0)).join('  '));
  if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
});
