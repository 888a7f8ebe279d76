/**
 * Hot-plug benchmark (prints a table, asserts nothing): one simulated gateway with its
 * fleet, pulled out and plugged back, on the stepped clock with the port list injected
 * (as the integration test does). Per case, the simulated time from the port appearing
 * to its network ready again:
 *   new socket, port event   another port name appears and /dev reports it (fs.watch)
 *   new socket, poll only    the same without an event: the 2 s listing finds it
 *   same socket, port event  the port name comes back: its own driver connects at once
 *   … after 10 min           the same two new-socket cases after 10 min missing instead of
 *                            20 s: the listing has slowed down to every 30 s by then (a
 *                            network kept for a gateway not used today), a port event has not
 * The `listings` column counts the port listings from the loss to the network ready.
 * The identify probe waits the real 0.5 s settle (a CP2102 resets on open); the simulated
 * board answers at once, so a real board adds its boot time (~0.1 s) on top. Simulated
 * time runs one ms per event-loop turn, so it also runs on while the host waits for real
 * I/O (realpath, fsync): the median is the figure, the max is that artifact; the wall
 * column is this machine's real time for the same steps.
 *
 *   npm run bench:hotplug            5 trials per case
 *   npm run bench:hotplug -- 10
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SteppedClock } from '../src/clock.ts';
import type { Radio } from '../src/gateway/radio/radio.ts';
import { startHost } from '../src/host/index.ts';
import { createLogger, silentLogger } from '../src/logger.ts';
import { createFleets } from '../src/sim/fleets.ts';
import { serveFleetOnMemory } from '../src/sim/sim-host.ts';
import type { LinkFactory } from '../src/transport/link.ts';
import { MemoryEndpoint } from '../src/transport/memory-link.ts';
import { simHostConfig } from './sim-host-config.ts';

const trials = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 5);
type Case =
  | 'new socket, port event'
  | 'new socket, poll only'
  | 'same socket, port event'
  | 'port event, after 10 min'
  | 'poll only, after 10 min';

async function run(kind: Case, seed: number): Promise<{ sim: number; wall: number; listings: number }> {
  const clock = new SteppedClock(1).start();
  const [fleet] = createFleets({ gateways: 1, nodes: 10, seed, clock, gatewayUp: true });
  const sim = serveFleetOnMemory(fleet!, { clock, path: 'sim', autoStart: false });
  fleet!.start();
  // The socket the gateway is in; every other listed name is empty.
  let socketOf = 'sim';
  const empty = new MemoryEndpoint(() => undefined, { path: 'none' });
  empty.unplug();
  const socket =
    (path: string): LinkFactory =>
    () =>
      path === socketOf ? sim.linkFactory() : empty.factory();
  let ports = ['sim'];
  let portEvent = null as (() => void) | null;
  let listings = 0;
  const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-hotplug-'));
  const host = await startHost(
    simHostConfig(dataDir, 10, seed),
    process.env.HOTPLUG_LOG ? createLogger(process.env.HOTPLUG_LOG) : silentLogger(),
    {
      simClock: clock,
      sim: { ...sim, linkFactory: socket('sim') },
      detect: {
        candidates: () => {
          listings++;
          return Promise.resolve(ports.map((path) => ({ path })));
        },
        open: (path) => socket(path)(),
        linkFactory: socket,
        identify: { settleMs: 500 },
        watch: (fn) => {
          portEvent = fn;
          return () => (portEvent = null);
        },
      },
    },
  );
  const radio = host.services.driver as Radio;
  const until = async (ok: () => boolean): Promise<void> => {
    const end = Date.now() + 60_000;
    while (!ok()) {
      if (Date.now() > end) throw new Error(`${kind}: timed out`);
      await new Promise((r) => setTimeout(r, 1));
    }
  };
  try {
    await until(() => radio.readiness().ready);
    listings = 0;
    socketOf = 'gone';
    ports = [];
    fleet!.faults.dropLink();
    await until(() => !radio.readiness().ready);
    fleet!.faults.restoreLink();
    portEvent?.();
    // Unplugged for a while: the driver's backoff has grown (the same-socket case must beat it).
    await clock.sleep(kind.endsWith('10 min') ? 600_000 : 20_000);
    const name = kind.startsWith('same') ? 'sim' : 'sim:usb7';
    socketOf = name;
    ports = [name];
    // Read the clock in the readiness event itself: the stepped clock runs on between polls.
    let readyAt: number | null = null;
    let wallAt = 0;
    const off = radio.on('readiness', (r) => {
      if (r.ready && readyAt === null) {
        readyAt = clock.now();
        wallAt = performance.now();
      }
    });
    const t0 = clock.now();
    const w0 = performance.now();
    if (!kind.includes('poll only')) portEvent?.();
    await until(() => readyAt !== null);
    off();
    return { sim: (readyAt ?? t0) - t0, wall: Math.round(wallAt - w0), listings };
  } finally {
    await host.close();
    sim.stop();
    clock.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const cases: Case[] = [
  'new socket, port event',
  'new socket, poll only',
  'same socket, port event',
  'port event, after 10 min',
  'poll only, after 10 min',
];
const stats = (v: number[]): string => {
  const t = [...v].sort((a, b) => a - b);
  const med = t[Math.floor(t.length / 2)] ?? 0;
  return `${String(t[0]).padStart(6)} ${String(med).padStart(6)} ${String(t.at(-1)).padStart(6)}`;
};
console.log(`hot-plug: port appeared → network ready, ${trials} trials each`);
console.log(
  'case                       sim ms: min median    max | wall ms: min median  max | listings: median',
);
for (const c of cases) {
  const r: { sim: number; wall: number; listings: number }[] = [];
  for (let s = 1; s <= trials; s++) r.push(await run(c, s));
  const l = r.map((x) => x.listings).sort((a, b) => a - b)[Math.floor(r.length / 2)] ?? 0;
  console.log(
    `${c.padEnd(26)}        ${stats(r.map((x) => x.sim))} |      ${stats(r.map((x) => x.wall))} | ${String(l).padStart(16)}`,
  );
}
