/**
 * Scene fan-out benchmark (prints a table, asserts nothing): a broadcast CONTROL with every
 * field, run as a scene on one gateway and on two networks (separate channels), on the
 * stepped clock. The estimate must price what the run sends; on two networks the wall clock
 * must stay one frame's, not two. Then network B is unplugged and A's runs are timed again.
 *
 *   npx tsx bench/scene-fanout.ts            20 runs per row, seed 1
 *   npx tsx bench/scene-fanout.ts 50
 *
 *   est pk / air / wall   the estimate's total packets, airtime and wall clock (ms)
 *   run pk                frames the simulated gateways received per run
 *   run p50 / p99         the run's action duration, simulated ms (host write → last TX done)
 *   tx skew               start of TX on gateway B − on gateway A, ms (two networks)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SteppedClock } from '../src/clock.ts';
import type { SceneAction } from '../src/domain/scenes/types.ts';
import { startHost, type HostHandle } from '../src/host/index.ts';
import { silentLogger } from '../src/logger.ts';
import { simHostConfig } from './sim-host-config.ts';

const runs = Number(process.argv[2] ?? 20);

const SCENE: SceneAction[] = [
  {
    kind: 'native_effect',
    target: { kind: 'broadcast' },
    params: {
      mode: 2,
      speed: 128,
      intensity: 128,
      custom1: 1,
      custom2: 2,
      custom3: 3,
      check1: true,
      check2: false,
      check3: false,
      palette: 0,
      color1: [255, 0, 0],
      color2: [0, 0, 0],
      color3: [0, 0, 0],
      brightness: 200,
    },
    flags_override: {},
  },
];

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

async function timedRuns(
  host: HostHandle,
): Promise<{ durations: number[]; frames: number[]; skews: number[]; errors: string[] }> {
  const out = {
    durations: [] as number[],
    frames: [] as number[],
    skews: [] as number[],
    errors: [] as string[],
  };
  const gws = host.sims.map((s) => s.fleet.gateway);
  for (let i = 0; i < runs; i++) {
    let frames = 0;
    const starts = new Map<string, number>();
    const offM2n = gws.map((g) => g.events.on('m2n', () => frames++));
    const air = host.sims[0]?.fleet.air;
    const offTx = air?.events.on('tx', (e) => {
      if (gws.some((g) => g.addr === e.sender) && !starts.has(e.sender)) starts.set(e.sender, e.start);
    });
    const r = await host.services.sceneDispatch.run('bench', { actions: SCENE, stop_on_error: false });
    offM2n.forEach((o) => o());
    offTx?.();
    out.durations.push(r.actions[0]?.duration_ms ?? 0);
    out.frames.push(frames);
    if (!r.ok) out.errors.push(r.error ?? 'failed');
    const [a, b] = gws.map((g) => starts.get(g.addr));
    if (a !== undefined && b !== undefined) out.skews.push(b - a);
  }
  return out;
}

async function row(gateways: number, unplugB: boolean): Promise<string[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-fanout-'));
  const clock = new SteppedClock(1).start();
  const cfg = { ...simHostConfig(dataDir, 4, 1), simGateways: gateways };
  const host = await startHost(cfg, silentLogger(), { simClock: clock });
  try {
    await clock.sleep(3000);
    if (unplugB) {
      host.sims[1]?.fleet.faults.dropLink();
      while (host.services.driver.readiness().ready) await clock.sleep(10);
    }
    const est = host.services.sceneDispatch.estimate(SCENE);
    const t = await timedRuns(host);
    return [
      `${gateways} gateway${gateways > 1 ? 's' : ''}${unplugB ? ', B unplugged' : ''}`,
      String(est.total.packets),
      String(est.total.airtime_ms),
      String(est.total.wall_clock_ms),
      `${Math.min(...t.frames)}–${Math.max(...t.frames)}`,
      String(pct(t.durations, 50)),
      String(pct(t.durations, 99)),
      t.skews.length ? `${pct(t.skews, 50).toFixed(1)} / ${pct(t.skews, 99).toFixed(1)}` : '–',
      t.errors[0] ?? '',
    ];
  } finally {
    await host.close();
    clock.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const head = [
  'setup',
  'est pk',
  'est air',
  'est wall',
  'run pk',
  'run p50',
  'run p99',
  'tx skew p50/p99',
  'error',
];
const rows = [await row(1, false), await row(2, false), await row(2, true)];
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
const line = (cells: string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
console.log(`Scene fan-out: broadcast CONTROL, every field, SF7, ${runs} runs per row\n`);
console.log(line(head));
console.log(line(widths.map((w) => '-'.repeat(w))));
for (const r of rows) console.log(line(r));
process.exit(0);
