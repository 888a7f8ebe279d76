/**
 * "A 200 means kept", tried the hard way: the real host (production bundle) as a child
 * process, bursts of concurrent operator changes (group and device renames, native presets,
 * scenes), kill -9 at a seeded random point of each burst, restart, and every change that
 * was answered 200 must be served by the restarted host. Seed and cycles:
 * LIGHTNET_KILL_SEED, LIGHTNET_KILL_CYCLES (the table used 30 and 20 cycles).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fleetState } from '../../../bench/fleet-state.ts';
import { serializeState } from '../../../src/state/migrations.ts';
import { api, buildBundle, prng, startHostProc, tmpData, type Bundle } from './durability-helpers.ts';

const SEED = Number(process.env.LIGHTNET_KILL_SEED ?? 15);
const CYCLES = Number(process.env.LIGHTNET_KILL_CYCLES ?? 0);
const WORKERS = 4;

interface Acked {
  total: number;
  /** Last acknowledged version per renamed entity ("g1", "d2"). */
  last: Map<string, number>;
  /** Labels of created presets and scenes that were acknowledged. */
  created: { presets: Set<string>; scenes: Set<string> };
}

type Op = { path: string; method: string; body: unknown; ack(): void };

function nextOp(rand: () => number, w: number, i: number, cycle: number, addrs: string[], a: Acked): Op {
  const k = rand();
  const tag = `${cycle}-${w}-${i}`;
  if (k < 0.3) {
    const name = `w${w}-${i}`;
    return {
      method: 'POST',
      path: '/groups/rename',
      body: { id: w + 1, name },
      ack: () => a.last.set(`g${w}`, i),
    };
  }
  if (k < 0.6) {
    return {
      method: 'POST',
      path: '/devices/update-meta',
      body: { macs: [addrs[w]], name: `d${w}-${i}` },
      ack: () => a.last.set(`d${w}`, i),
    };
  }
  if (k < 0.8) {
    const label = `p-${tag}`;
    return {
      method: 'POST',
      path: '/native-presets',
      body: { label },
      ack: () => a.created.presets.add(label),
    };
  }
  const label = `s-${tag}`;
  return {
    method: 'POST',
    path: '/scenes',
    body: { label, actions: [] },
    ack: () => a.created.scenes.add(label),
  };
}

/** One burst: WORKERS clients issue changes back to back until the host is killed after `killAt` acks. */
async function burst(
  base: string,
  kill: () => void,
  killAt: number,
  rand: () => number,
  cycle: number,
  addrs: string[],
  a: Acked,
): Promise<void> {
  let acks = 0;
  let dead = false;
  const worker = async (w: number): Promise<void> => {
    for (let i = 0; !dead; i++) {
      const op = nextOp(rand, w, i + cycle * 10_000, cycle, addrs, a);
      let status = 0;
      try {
        status = (await api(base, op.method, op.path, op.body)).status;
      } catch {
        return; // the host is gone
      }
      if (status !== 200) throw new Error(`${op.path} answered ${status}`);
      op.ack();
      a.total++;
      if (++acks === killAt && !dead) {
        dead = true;
        kill();
      }
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
}

/** Compares every acknowledged change with what the host serves; returns the lost ones. */
async function lostChanges(base: string, a: Acked, addrs: string[]): Promise<string[]> {
  const groups = (await api<{ groups: { id: number; name: string }[] }>(base, 'GET', '/groups')).body.groups;
  const devices = (await api<{ devices: { addr: string; name: string }[] }>(base, 'GET', '/devices')).body
    .devices;
  const presets = (await api<{ presets: { label: string }[] }>(base, 'GET', '/native-presets')).body.presets;
  const scenes = (await api<{ scenes: { label: string }[] }>(base, 'GET', '/scenes')).body.scenes;
  const lost: string[] = [];
  const version = (name: string | undefined, prefix: string): number => {
    const m = name?.startsWith(prefix) ? Number(name.slice(prefix.length)) : NaN;
    return Number.isInteger(m) ? m : -1;
  };
  for (let w = 0; w < WORKERS; w++) {
    const g = a.last.get(`g${w}`);
    const gv = version(groups.find((x) => x.id === w + 1)?.name, `w${w}-`);
    if (g !== undefined && gv < g) lost.push(`group ${w + 1}: acked w${w}-${g}, serves version ${gv}`);
    const d = a.last.get(`d${w}`);
    const dv = version(devices.find((x) => x.addr === addrs[w])?.name, `d${w}-`);
    if (d !== undefined && dv < d) lost.push(`device ${addrs[w]}: acked d${w}-${d}, serves version ${dv}`);
  }
  const pl = new Set(presets.map((p) => p.label));
  for (const l of a.created.presets) if (!pl.has(l)) lost.push(`preset ${l}`);
  const sl = new Set(scenes.map((s) => s.label));
  for (const l of a.created.scenes) if (!sl.has(l)) lost.push(`scene ${l}`);
  return lost;
}

async function killCycles(bundle: Bundle, devices: number, cycles: number, seed: number): Promise<void> {
  const dataDir = await tmpData('lightnet-kill9-');
  const state = fleetState(devices, WORKERS + 2);
  await writeFile(join(dataDir, 'state.json'), serializeState(state));
  const addrs = state.devices.slice(0, WORKERS).map((d) => d.addr);
  const rand = prng(seed);
  const acked: Acked = { total: 0, last: new Map(), created: { presets: new Set(), scenes: new Set() } };
  let lostTotal = 0;
  // Each host is first checked against everything acknowledged so far, then killed mid-burst.
  for (let c = 0; c <= cycles; c++) {
    const host = await startHostProc(bundle.main, dataDir);
    try {
      const lost = await lostChanges(host.api, acked, addrs);
      lostTotal += lost.length;
      expect(lost, `after cycle ${c} (seed ${seed})`).toEqual([]);
      if (c === cycles) break;
      // Killed after 1..200 acknowledged changes, while the other workers' requests are in flight.
      const killAt = 1 + Math.floor(rand() * 200);
      await burst(host.api, () => host.child.kill('SIGKILL'), killAt, rand, c, addrs, acked);
    } finally {
      await host.kill();
    }
  }
  console.log(
    `kill-9: ${devices} devices, ${cycles} cycles, seed ${seed}: ${acked.total} acknowledged, ${lostTotal} lost`,
  );
}

describe('durability under kill -9', () => {
  let bundle: Bundle;
  beforeAll(async () => {
    bundle = await buildBundle();
  }, 120_000);
  afterAll(async () => bundle?.dispose());

  it('kill-9-at-random-points-of-bursts-loses-no-acknowledged-change', async () => {
    await killCycles(bundle, 40, CYCLES || 4, SEED); // ~20 KB state
  }, 300_000);

  it('reload-racing-edits-drops-no-acknowledged-change', async () => {
    const dataDir = await tmpData('lightnet-reload-race-');
    const state = fleetState(40, WORKERS + 2);
    await writeFile(join(dataDir, 'state.json'), serializeState(state));
    const addrs = state.devices.slice(0, WORKERS).map((d) => d.addr);
    const acked: Acked = { total: 0, last: new Map(), created: { presets: new Set(), scenes: new Set() } };
    const host = await startHostProc(bundle.main, dataDir);
    const rand = prng(SEED + 2);
    let reloads = 0;
    try {
      let running = WORKERS;
      const editor = async (w: number): Promise<void> => {
        for (let i = 0; i < 100; i++) {
          const op = nextOp(rand, w, i, 0, addrs, acked);
          const r = await api(host.api, op.method, op.path, op.body);
          if (r.status !== 200) throw new Error(`${op.path} answered ${r.status}`);
          op.ack();
          acked.total++;
        }
        running--;
      };
      const reloader = async (): Promise<void> => {
        while (running > 0) {
          const path = rand() < 0.3 ? '/save' : '/reload';
          expect((await api(host.api, 'POST', path, {})).status).toBe(200);
          reloads++;
        }
      };
      await Promise.all([...Array.from({ length: WORKERS }, (_, w) => editor(w)), reloader()]);
      expect(await lostChanges(host.api, acked, addrs)).toEqual([]);
    } finally {
      await host.kill();
    }
    const again = await startHostProc(bundle.main, dataDir);
    try {
      expect(await lostChanges(again.api, acked, addrs)).toEqual([]);
    } finally {
      await again.kill();
    }
    console.log(`reload race: ${acked.total} acknowledged with ${reloads} reloads/saves racing, 0 lost`);
  }, 300_000);

  it('kill-9-with-a-2.4-MB-state-loses-no-acknowledged-change', async () => {
    await killCycles(bundle, 4700, CYCLES || 2, SEED + 1); // ~2.4 MB state
  }, 300_000);

  it('a-forget-answered-200-survives-kill-9', async () => {
    const dataDir = await tmpData('lightnet-forget-kill9-');
    const state = fleetState(200, 8);
    await writeFile(join(dataDir, 'state.json'), serializeState(state));
    // Spread over the list, so the journal carries deletions from its middle.
    const gone = state.devices.filter((_, i) => i % 17 === 3).map((d) => d.addr);
    const host = await startHostProc(bundle.main, dataDir);
    try {
      const r = await api(host.api, 'POST', '/devices/forget', { macs: gone });
      expect(r.status).toBe(200);
      // Killed the moment the answer arrived: no shutdown flush, no compaction.
      host.child.kill('SIGKILL');
    } finally {
      await host.kill();
    }
    const again = await startHostProc(bundle.main, dataDir);
    try {
      const served = (await api<{ devices: { addr: string }[] }>(again.api, 'GET', '/devices')).body.devices;
      expect(served).toHaveLength(200 - gone.length);
      expect(served.filter((d) => gone.includes(d.addr))).toEqual([]);
    } finally {
      await again.kill();
    }
  }, 120_000);
});
