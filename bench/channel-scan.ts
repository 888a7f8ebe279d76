/**
 * Channel-scan benchmark (issue 27; prints numbers, asserts nothing): per seed a small
 * fleet is bound into a group, one healthy node is moved on its own settings page to
 * another EU868 channel (seeded), 5 % loss is switched on, and a scan of all 5 channels
 * runs; then the found node is rescued. On the stepped clock: deterministic per seed and
 * independent of machine load — the clock stands still while a disk write is in flight
 * (`--fs-time` turns that off: the old behaviour, where a slow fsync on a busy machine cost
 * seconds of simulated time).
 *
 *   npm run bench:channel-scan                 200 seeds, 6 nodes
 *   npm run bench:channel-scan -- --seeds 20
 *   npm run bench:channel-scan -- --migrate    + RF migration of 150 nodes at 5 % loss, seeds 1–3
 *   npm run bench:channel-scan -- --migrate-only   (MIG_SEEDS=1,2 picks the seeds)
 *
 *   found       the stranded node was listed on the channel it is on
 *   scan s      simulated seconds of the 5-channel scan (home channel included)
 *   rescue s    rescue start → node back online in its group
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SteppedClock } from '../src/clock.ts';
import { findChannel } from '../src/domain/rf-channels.ts';
import { startHost, type HostHandle } from '../src/host/index.ts';
import { silentLogger } from '../src/logger.ts';
import { snrFloorDb } from '../src/sim/air.ts';
import type { TaskSnapshot } from '../src/tasks/task-manager.ts';
import { Prng } from '../src/util/prng.ts';
import { simHostConfig } from './sim-host-config.ts';

const args = process.argv.slice(2);
const seedArg = args.indexOf('--seeds');
const seedCount = seedArg >= 0 ? Number(args[seedArg + 1] ?? '200') : 200;
const migrate = args.includes('--migrate') || args.includes('--migrate-only');
const scans = !args.includes('--migrate-only');

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

async function withFleet<T>(
  nodes: number,
  seed: number,
  fn: (h: HostHandle, c: SteppedClock) => Promise<T>,
): Promise<T> {
  const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-scan-bench-'));
  // Disk writes take no virtual time (see SteppedClock): the numbers do not depend on load.
  const clock = new SteppedClock(1, Date.now(), {
    holdDuringFs: !process.argv.includes('--fs-time'),
  }).start();
  const host = await startHost(simHostConfig(dataDir, nodes, seed), silentLogger(), { simClock: clock });
  try {
    await clock.sleep(6000);
    // Into a group, twice if a weak node was missed (as an operator would).
    for (let i = 0; i < 3 && host.services.registry.all().filter((d) => d.groupId !== 0).length < nodes; i++)
      await waitTask(
        host,
        host.services.discovery.start(i === 0 ? { newGroupName: 'Gates' } : { targetGroupId: 1 }).id,
      );
    return await fn(host, clock);
  } finally {
    await host.close();
    clock.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

interface ScanOut {
  seed: number;
  outcome: string | null;
  found: boolean;
  scanS: number;
  rescueS: number | null;
  home: boolean;
}

async function scanSeed(seed: number): Promise<ScanOut | null> {
  return withFleet(6, seed, async (host, clock) => {
    const fleet = host.sim!.fleet;
    const floor = snrFloorDb(7);
    const rng = new Prng(`scan-bench-${seed}`);
    const healthy = fleet.nodes.filter(
      (n) =>
        (fleet.air.qualityOf(n.addr)?.snr ?? -99) >= floor + 1.5 &&
        host.services.registry.find(n.addr)?.groupId === 1,
    );
    if (healthy.length === 0) return null;
    const node = healthy[rng.int(0, healthy.length - 1)]!;
    const channelId = rng.int(2, 5);
    fleet.faults.retuneNode(node.addr, findChannel('EU868', channelId)!.rf);
    await clock.sleep(6000);
    fleet.faults.lossRate = 0.05;
    const t0 = clock.now();
    const scan = await waitTask(
      host,
      host.services.rfMoves.scan({ networkId: 1, region: 'EU868', includeHome: true }).id,
    );
    const scanS = (clock.now() - t0) / 1000;
    const res = scan.result as { channels: { channel_id: number; heard: { addr: string }[] }[] } | null;
    const found = Boolean(
      res?.channels.find((c) => c.channel_id === channelId)?.heard.some((h) => h.addr === node.addr),
    );
    let rescueS: number | null = null;
    let home = false;
    let outcome: string | null = null;
    if (found) {
      const r = await waitTask(
        host,
        host.services.rfMoves.rescue({
          addrs: [node.addr],
          networkId: 1,
          from: findChannel('EU868', channelId)!.rf,
        }).id,
      );
      const n = (r.result as { nodes: { outcome: string; seconds: number | null }[] } | null)?.nodes[0];
      home = n?.outcome === 'home';
      outcome = n?.outcome ?? r.last_error ?? null;
      rescueS = n?.seconds ?? null;
    }
    return { seed, outcome, found, scanS, rescueS, home };
  });
}

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const fmt = (x: number): string => (Number.isFinite(x) ? x.toFixed(1) : '—');

function report(outs: ScanOut[], skipped: number): void {
  const found = outs.filter((o) => o.found).length;
  const scanTimes = outs.map((o) => o.scanS);
  const rescues = outs.flatMap((o) => (o.rescueS === null ? [] : [o.rescueS]));
  console.log(
    `channel scan, 5 EU868 channels, stranded healthy node, 5 % loss, ${outs.length} seeds (${skipped} without a healthy node)`,
  );
  console.log(
    `  found           ${found}/${outs.length} = ${((100 * found) / Math.max(1, outs.length)).toFixed(2)} %`,
  );
  console.log(
    `  scan s          median ${fmt(pct(scanTimes, 50))}  p95 ${fmt(pct(scanTimes, 95))}  max ${fmt(Math.max(...scanTimes))}`,
  );
  const notHome = outs.filter((o) => o.found && !o.home);
  console.log(
    `  rescued home    ${outs.filter((o) => o.home).length}/${found}${notHome.length ? `  (not: ${notHome.map((o) => `seed ${o.seed} ${o.outcome ?? '?'}`).join(', ')})` : ''}`,
  );
  console.log(
    `  rescue s        median ${fmt(pct(rescues, 50))}  p95 ${fmt(pct(rescues, 95))}  max ${fmt(Math.max(...rescues))}`,
  );
}

async function main(): Promise<void> {
  const outs: ScanOut[] = [];
  let skipped = 0;
  for (let seed = 1; scans && seed <= seedCount; seed++) {
    const o = await scanSeed(seed);
    if (!o) skipped++;
    else outs.push(o);
    if (seed % 20 === 0) process.stderr.write(`  ${seed}/${seedCount} seeds\n`);
  }
  if (scans) report(outs, skipped);
  if (!migrate) return;
  console.log('RF migration, 150 nodes, EU868 ch 1 → ch 3, 5 % loss (seconds simulated)');
  console.log(
    '  seed  task s  all back s  record  push  verify  gateway  rebind  rebound  stranded (marginal)',
  );
  const migSeeds = (process.env.MIG_SEEDS ?? '1,2,3').split(',').map(Number);
  for (const seed of migSeeds) {
    await withFleet(150, seed, async (host) => {
      const fleet = host.sim!.fleet;
      fleet.faults.lossRate = 0.05;
      const t = await waitTask(
        host,
        host.services.rfMoves.migrate({ networkId: 1, to: findChannel('EU868', 3)!.rf, offline: 'skip' }).id,
      );
      const r = t.result as {
        seconds: number;
        last_back_s: number | null;
        phases_s: Record<string, number>;
        summary: { rebound: number; devices: number; stranded: number };
        stranded: string[];
      } | null;
      if (!r) {
        console.log(`  ${seed}     failed: ${t.last_error ?? '?'}`);
        return;
      }
      const floor = snrFloorDb(7);
      const marginal = r.stranded.filter((a) => (fleet.air.qualityOf(a)?.snr ?? -99) < floor + 1.5).length;
      const p = r.phases_s;
      console.log(
        `  ${seed}     ${fmt(t.elapsed_s)}   ${fmt(r.last_back_s ?? NaN)}       ${fmt(p.record ?? NaN)}    ${fmt(p.push ?? NaN)}   ${fmt(p.verify ?? NaN)}     ${fmt(p.gateway ?? NaN)}      ${fmt(p.rebind ?? NaN)}    ${r.summary.rebound}/${r.summary.devices}  ${r.summary.stranded} (${marginal})`,
      );
    });
  }
}

await main();
