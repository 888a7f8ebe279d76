/**
 * Race morning for bench/networks.ts: a known, bound field (every node stored in group
 * "Track", on the network of its gateway) reboots at once; the host restores every node
 * (one recovery sweep per network, in parallel). Returns the simulated seconds to 99 % and
 * 100 % restored, and the healthy nodes the next status poll marks offline.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SteppedClock } from '../src/clock.ts';
import { defaultConsoleSettings } from '../src/domain/console-settings.ts';
import { newDevice, type StateModel } from '../src/domain/model.ts';
import { newNetwork } from '../src/domain/networks.ts';
import { startHost } from '../src/host/index.ts';
import { silentLogger } from '../src/logger.ts';
import { snrFloorDb } from '../src/sim/air.ts';
import { createFleets } from '../src/sim/fleets.ts';
import type { SimFleet } from '../src/sim/fleet.ts';
import { serializeState } from '../src/state/migrations.ts';
import { restartRandom, waitUntil, type Scenario } from './networks-util.ts';
import { simHostConfig } from './sim-host-config.ts';

const GROUP = 1;
const BUDGET_MS = 300_000;

/** The state an earlier host run left: every node known, in group 1, on its gateway's network. */
export function knownFieldState(sc: Scenario, nodesEach: number, seed: number, split = false): StateModel {
  // The same seeded fleets the host will build (createFleets is deterministic per seed).
  const fleets = createFleets({
    gateways: sc.gateways,
    nodes: nodesEach,
    seed,
    clock: new SteppedClock(1),
    ...(sc.sameChannel ? { sameChannel: true } : {}),
    ...(split ? { split: true } : {}),
  });
  return {
    devices: fleets.flatMap((f, k) =>
      f.nodes.map((node) => ({
        ...newDevice(node.addr, node.mac, node.devType),
        groupId: GROUP,
        network_id: k + 1,
      })),
    ),
    groups: [{ id: GROUP, name: 'Track', dev_type: 0 }],
    native_presets: [],
    scenes: [],
    settings: { led_presets_file: null },
    console: defaultConsoleSettings(),
    networks: fleets.map((f, k) =>
      newNetwork(k + 1, sc.gateways > 1 ? f.gateway.mac.replace(/:/g, '') : null),
    ),
  };
}

const restoredIn = (f: SimFleet): number =>
  f.nodes.filter((n) => n.isPowered && n.groupId === GROUP && n.master === f.gateway.addr).length;

export async function raceMorning(
  sc: Scenario,
  total: number,
  seed: number,
  lossRate: number,
  /** The old method (bench/networks.ts header): no restart of the random streams, own fleets. */
  method: { chained?: boolean; ownFleets?: boolean } = {},
): Promise<{
  t99: number | null;
  t100: number | null;
  /** Per network: seconds to 99 % of its own nodes restored. */
  each99: (number | null)[];
  restored: number;
  wrongOff: number;
}> {
  const nodesEach = total / sc.gateways;
  const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-networks-race-'));
  await writeFile(
    join(dataDir, 'state.json'),
    serializeState(knownFieldState(sc, nodesEach, seed, !method.ownFleets)),
  );
  const clock = new SteppedClock(1).start();
  const cfg = {
    ...simHostConfig(dataDir, nodesEach, seed),
    simGateways: sc.gateways,
    ...(sc.sameChannel ? { simSameChannel: true } : {}),
    ...(method.ownFleets ? {} : { simSplitFleet: true }),
  };
  const host = await startHost(cfg, silentLogger(), { simClock: clock });
  try {
    const fleets = host.sims.map((s) => s.fleet);
    const air = fleets[0]?.air;
    if (air) air.lossRate = lossRate;
    const restored = (): number => fleets.reduce((n, f) => n + restoredIn(f), 0);
    const { services } = host;
    // The field comes up bound (the host's start restores it), then everything reboots.
    await waitUntil(clock, () => restored() >= total, 120_000);
    await waitUntil(clock, () => !services.recovery.progress().active, 60_000);
    await clock.sleep(2000);
    restartRandom(fleets, 'race-morning', method.chained === true);
    for (const f of fleets) f.faults.rebootFleet({ spreadMs: 2000 });
    const t0 = clock.now();
    let t99: number | null = null;
    let t100: number | null = null;
    const each99: (number | null)[] = fleets.map(() => null);
    await waitUntil(
      clock,
      () => {
        const k = restored();
        const s = (clock.now() - t0) / 1000;
        fleets.forEach((f, i) => {
          if (each99[i] === null && restoredIn(f) >= Math.ceil(0.99 * f.nodes.length)) each99[i] = s;
        });
        if (t99 === null && k >= Math.ceil(0.99 * total)) t99 = s;
        if (t100 === null && k >= total) t100 = s;
        return k >= total;
      },
      BUDGET_MS,
    );
    const done = restored();
    await waitUntil(clock, () => !services.recovery.progress().active, BUDGET_MS);
    await waitUntil(clock, () => !services.tasks.isRunning(), 60_000);
    services.status.start({ groupId: 255 });
    await waitUntil(clock, () => services.tasks.current()?.state !== 'running', BUDGET_MS);
    const floor = snrFloorDb(7) + 1.5;
    const healthy = new Set(
      fleets.flatMap((f) =>
        f.nodes
          .filter((n) => n.groupId === GROUP && n.master === f.gateway.addr)
          .filter((n) => (f.air.qualityOf(n.addr)?.snr ?? 12) > floor)
          .map((n) => n.addr),
      ),
    );
    const reg = services.registry;
    const wrongOff = reg.all().filter((d) => healthy.has(d.addr) && reg.linkState(d) === 'offline').length;
    return { t99, t100, each99, restored: done, wrongOff };
  } finally {
    await host.close();
    clock.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
