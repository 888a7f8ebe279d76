/**
 * Race-morning benchmark: a field of known gates (all stored in group "Track") powers up at
 * once, and the host has to put every node back into its group (issue 19). Runs the real
 * host in-process on the simulated fleet (stepped clock, SF7, 5 % packet loss) and prints,
 * per fleet size and seed: time to 50/90/99/100 % restored (simulated seconds from the
 * power-up; a node counts once it is in its stored group and bound to this gateway, i.e.
 * it answers STATUS), SET_GROUP frames sent per node, and how many healthy nodes the first
 * status poll afterwards marks offline. Asserts nothing.
 *
 * "Healthy" = restored, with a link whose mean SNR clears the SF's demodulation floor by
 * more than the simulator's per-packet SNR noise (1.5 dB). The seeded fleet also has a few
 * nodes at or below the floor (2–10 % of their exchanges get through): they are counted in
 * their own column ("marginal: silent/all"), since no poll can promise them an answer.
 *
 *   npm run bench:race-morning -- [--sizes 50,100,200,300] [--seeds 1,2,3]
 *        [--mode power-up|reboot|host-after] [--persist] [--budget-s 300] [--fs-time]
 *
 * Disk writes (the host's journal and state fsyncs) take no virtual time (SteppedClock
 * holdDuringFs), so the figures are the same run after run and on a busy machine;
 * `--fs-time` lets the clock run on while the disk works (the old behaviour, load-dependent).
 *
 * Modes: power-up — the host runs, the whole field is switched on (every node boots);
 * reboot — the field is up and bound, then all of it reboots at once (faults.rebootFleet);
 * host-after — the field is up and bound to an earlier host run when a new host starts.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SteppedClock } from '../src/clock.ts';
import { defaultConsoleSettings } from '../src/domain/console-settings.ts';
import { newDevice, type StateModel } from '../src/domain/model.ts';
import { DEFAULT_NETWORK_ID, newNetwork } from '../src/domain/networks.ts';
import { startHost, type HostHandle } from '../src/host/index.ts';
import { silentLogger } from '../src/logger.ts';
import type { RecoveryOptions } from '../src/services/devices/index.ts';
import { snrFloorDb } from '../src/sim/air.ts';
import { startSimOnMemory, type SimOnMemory } from '../src/sim/sim-host.ts';
import { serializeState } from '../src/state/migrations.ts';
import { simHostConfig } from './sim-host-config.ts';

type Mode = 'power-up' | 'reboot' | 'host-after';

const arg = (name: string, def: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? def) : def;
};
const sizes = arg('sizes', '50,100,200,300').split(',').map(Number);
const seeds = arg('seeds', '1,2,3').split(',').map(Number);
const mode = arg('mode', 'power-up') as Mode;
const persist = process.argv.includes('--persist');
const budgetMs = Number(arg('budget-s', '300')) * 1000;
const GROUP = 1;
/** The simulator's per-packet SNR noise (± dB, sim/air.ts). */
const LINK_NOISE_DB = 1.5;
/** The simulated fleet runs SF7 (the title line says so). */
const SF = 7;
/** Recovery option overrides for tuning runs, e.g. --tune '{"depth":3}'. */
const tuning = JSON.parse(arg('tune', '{}')) as Partial<RecoveryOptions>;

interface Row {
  n: number;
  seed: number;
  t: (number | null)[];
  restored: number;
  setGroupPerNode: number;
  pollAnswered: number;
  wronglyOffline: number;
  marginalSilent: number;
  marginal: number;
}

const config = simHostConfig;

/** Nodes in their stored group and bound to this gateway (so they answer STATUS). */
function restoredCount(sim: SimOnMemory): number {
  const gw = sim.fleet.gateway.addr;
  return sim.fleet.nodes.filter((n) => n.isPowered && n.groupId === GROUP && n.master === gw).length;
}

const waitUntil = async (clock: SteppedClock, pred: () => boolean, maxMs: number): Promise<boolean> => {
  const end = clock.now() + maxMs;
  while (!pred()) {
    if (clock.now() >= end) return false;
    await clock.sleep(100);
  }
  return true;
};

async function runOne(n: number, seed: number): Promise<Row> {
  const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-race-'));
  // Disk writes take no virtual time (see SteppedClock): the numbers do not depend on load.
  const clock = new SteppedClock(1, Date.now(), {
    holdDuringFs: !process.argv.includes('--fs-time'),
  }).start();
  const sim = startSimOnMemory({ nodes: n, seed, clock, autoStart: false, gatewayUp: true, lossRate: 0.05 });
  const state: StateModel = {
    devices: sim.fleet.nodes.map((node) => ({
      ...newDevice(node.addr, node.mac, node.devType),
      groupId: GROUP,
    })),
    groups: [{ id: GROUP, name: 'Track', dev_type: 0 }],
    native_presets: [],
    scenes: [],
    settings: { led_presets_file: null },
    console: defaultConsoleSettings(),
    networks: [newNetwork(DEFAULT_NETWORK_ID)],
  };
  await writeFile(join(dataDir, 'state.json'), serializeState(state));
  const hosts: HostHandle[] = [];
  const start = async (): Promise<HostHandle> => {
    const h = await startHost(config(dataDir, n, seed), silentLogger(), {
      simClock: clock,
      sim,
      recoveryOptions: tuning,
    });
    hosts.push(h);
    return h;
  };
  let host: HostHandle;
  if (mode === 'power-up') {
    sim.fleet.start({ nodes: false });
    host = await start();
    if (persist) sim.fleet.faults.masterPersistence(true);
    sim.fleet.start();
  } else {
    // A field that an earlier host run bound: every node in its group, this gateway its master.
    sim.fleet.start();
    await clock.sleep(3000);
    sim.fleet.sched.runExternal(() => {
      for (const node of sim.fleet.nodes) {
        node.groupId = GROUP;
        node.master = sim.fleet.gateway.addr;
        if (persist) node.setMasterPersistence(true);
      }
    });
    await clock.sleep(6000);
    if (mode === 'reboot') {
      host = await start();
      await clock.sleep(1000);
      sim.fleet.faults.rebootFleet({ spreadMs: 2000 });
    } else host = await start();
  }
  let setGroups = 0;
  const off = sim.fleet.gateway.events.on('m2n', (f) => {
    if ((f.typeFull & 0x7f) === 0x02 && f.outcome === 'tx') setGroups++;
  });
  const t0 = clock.now();
  const marks = [0.5, 0.9, 0.99, 1];
  const t: (number | null)[] = marks.map(() => null);
  await waitUntil(
    clock,
    () => {
      const k = restoredCount(sim);
      marks.forEach((m, i) => {
        if (t[i] === null && k >= Math.ceil(m * n)) t[i] = (clock.now() - t0) / 1000;
      });
      return k >= n;
    },
    budgetMs,
  );
  off();
  const restored = restoredCount(sim);
  // The first status poll after recovery (once the host's own recovery is idle, within
  // the budget): which healthy (restored) nodes does it call offline?
  await waitUntil(clock, () => !host.services.recovery.progress().active, budgetMs);
  await waitUntil(clock, () => !host.services.tasks.isRunning(), 60_000);
  const snap = host.services.status.start({ groupId: 255 });
  await waitUntil(clock, () => host.services.tasks.current()?.state !== 'running', 300_000);
  const result = host.services.tasks.current()?.result as { updated?: number } | null;
  const gw = sim.fleet.gateway.addr;
  const restoredNodes = sim.fleet.nodes.filter((x) => x.groupId === GROUP && x.master === gw);
  const floor = snrFloorDb(SF) + LINK_NOISE_DB;
  const goodLink = (addr: string): boolean => (sim.fleet.air.qualityOf(addr)?.snr ?? 12) > floor;
  const healthy = new Set(restoredNodes.filter((x) => goodLink(x.addr)).map((x) => x.addr));
  const marginal = new Set(restoredNodes.filter((x) => !goodLink(x.addr)).map((x) => x.addr));
  const reg = host.services.registry;
  const wronglyOffline = reg
    .all()
    .filter((d) => healthy.has(d.addr) && reg.linkState(d) === 'offline').length;
  const marginalSilent = reg
    .all()
    .filter((d) => marginal.has(d.addr) && reg.linkState(d) !== 'online').length;
  void snap;
  for (const h of hosts) await h.close();
  sim.stop();
  clock.stop();
  await rm(dataDir, { recursive: true, force: true });
  return {
    n,
    seed,
    t,
    restored,
    setGroupPerNode: setGroups / n,
    pollAnswered: result?.updated ?? 0,
    wronglyOffline,
    marginalSilent,
    marginal: marginal.size,
  };
}

const fmt = (v: number | null): string => (v === null ? '—' : v.toFixed(1));
console.log(
  `race morning — mode ${mode}${arg('tune', '') ? ` tune ${arg('tune', '')}` : ''}${persist ? ' (master persistence on)' : ''}, SF7, 5 % loss, budget ${budgetMs / 1000} s (simulated s)`,
);
console.log(
  '| fleet | seed | 50 % | 90 % | 99 % | 100 % | restored | SET_GROUP/node | poll answered | wrongly offline | marginal: silent/all |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
for (const n of sizes) {
  for (const seed of seeds) {
    const r = await runOne(n, seed);
    console.log(
      `| ${r.n} | ${r.seed} | ${r.t.map(fmt).join(' | ')} | ${r.restored}/${r.n} | ${r.setGroupPerNode.toFixed(2)} | ${r.pollAnswered} | ${r.wronglyOffline} | ${r.marginalSilent}/${r.marginal} |`,
    );
  }
}
