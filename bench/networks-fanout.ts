/**
 * Fan-out for bench/networks.ts, measured on the simulated air:
 * - a broadcast CONTROL on one gateway vs on two networks: the wall clock from the call to
 *   the last frame's end on the air (two networks: one frame's worth, not two);
 * - network A's CONTROL latency (call → A's frame on the air) over 100 broadcasts, clean
 *   vs with network B's gateway unplugged (B's part fails at once and must not delay A).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SteppedClock } from '../src/clock.ts';
import { startHost, type HostHandle } from '../src/host/index.ts';
import { silentLogger } from '../src/logger.ts';
import type { M2NRequest } from '../src/protocol/types.ts';
import { printTable, waitUntil } from './networks-util.ts';
import { simHostConfig } from './sim-host-config.ts';

const SENDS = 100;
const GAP_MS = 300;

function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;
}

/** Sends `SENDS` broadcast CONTROLs; per send: call → first/last gateway frame start/end. */
async function measure(
  host: HostHandle,
  clock: SteppedClock,
): Promise<{ toA: number[]; wall: number[]; ok: number }> {
  const fleets = host.sims.map((s) => s.fleet);
  const a = fleets[0]?.gateway.addr;
  const gateways = new Set(fleets.map((f) => f.gateway.addr));
  const toA: number[] = [];
  const wall: number[] = [];
  let ok = 0;
  for (let i = 0; i < SENDS; i++) {
    const t0 = clock.now();
    let startA: number | null = null;
    let lastEnd = t0;
    const offs = fleets.map((f) =>
      f.air.events.on('tx', (e) => {
        if (!gateways.has(e.sender)) return;
        if (e.sender === a && startA === null) startA = e.start;
        lastEnd = Math.max(lastEnd, e.end);
      }),
    );
    const request: M2NRequest = { op: 'CONTROL', groupId: 255, flags: 1, fields: { brightness: i % 255 } };
    const out = await host.services.driver.send('FFFFFF', request, { priority: 'interactive' });
    if (out.ok) ok++;
    // The frame's last symbol may still be on the air when send() resolves.
    await waitUntil(clock, () => startA !== null, 2000);
    await clock.sleep(100);
    for (const off of offs) off();
    if (startA !== null) toA.push(startA - t0);
    wall.push(lastEnd - t0);
    await clock.sleep(GAP_MS);
  }
  return { toA, wall, ok };
}

async function withHost<T>(
  gateways: number,
  seed: number,
  nodesEach: number,
  lossRate: number,
  fn: (h: HostHandle, c: SteppedClock) => Promise<T>,
): Promise<T> {
  const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-networks-fanout-'));
  const clock = new SteppedClock(1).start();
  const cfg = { ...simHostConfig(dataDir, nodesEach, seed), simGateways: gateways };
  const host = await startHost(cfg, silentLogger(), { simClock: clock });
  try {
    const air = host.sims[0]?.fleet.air;
    if (air) air.lossRate = lossRate;
    await clock.sleep(8000);
    return await fn(host, clock);
  } finally {
    await host.close();
    clock.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const ms = (v: number): string => v.toFixed(0);

export async function fanoutTable(seeds: readonly number[], total: number, lossRate: number): Promise<void> {
  const rows: string[][] = [
    [
      'seed',
      'wall 1 gw',
      'wall 2 nets',
      'A p50 clean',
      'A p99 clean',
      'A p50 B out',
      'A p99 B out',
      'ok B out',
    ],
  ];
  for (const seed of seeds) {
    const one = await withHost(1, seed, total, lossRate, (h, c) => measure(h, c));
    const [clean, unplugged] = await withHost(2, seed, total / 2, lossRate, async (h, c) => {
      const first = await measure(h, c);
      h.sims[1]?.fleet.faults.dropLink();
      await waitUntil(c, () => !h.services.driver.readiness().ready, 10_000);
      const second = await measure(h, c);
      h.sims[1]?.fleet.faults.restoreLink();
      return [first, second] as const;
    });
    rows.push([
      String(seed),
      `${ms(percentile(one.wall, 50))} ms`,
      `${ms(percentile(clean.wall, 50))} ms`,
      ms(percentile(clean.toA, 50)),
      ms(percentile(clean.toA, 99)),
      ms(percentile(unplugged.toA, 50)),
      ms(percentile(unplugged.toA, 99)),
      `${unplugged.ok}/${SENDS}`,
    ]);
  }
  printTable(
    `Broadcast CONTROL fan-out (median call → last frame's end on the air) and network A's CONTROL latency (call → A's frame on the air, ms), ${SENDS} sends, B's gateway unplugged vs clean`,
    rows,
  );
}
