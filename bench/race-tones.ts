/**
 * The race countdown's precision: how far from its moment each step's trigger SYNC was on
 * the air (the end of its transmission, when the nodes change), against the timer's own
 * scheduled moment. Three runs:
 *
 *   sim:       the host in this process, 150 simulated nodes on 2 gateways (real time), a
 *              RotorHazard-4.4.1-dev-like stage and tone events posted to the plugin routes
 *   4.4.0:     the real RotorHazard 4.4.0 + plugin (no tone events: tones derived from the stage)
 *   4.4.1-dev: the real RotorHazard 4.4.1-dev + plugin (RACE_STAGE_TONE)
 *
 *   LIGHTNET_ROTORHAZARD=../shared/tools/rotorhazard.sh npm run bench:race-tones -- [--races 5]
 *     [--runs sim,4.4.0,4.4.1-dev]
 *
 * Prints p50/p95/max of |skew| for tones and GO; asserts nothing. LIGHTNET_COUNTDOWN_TRACE=1
 * also prints, per RotorHazard step and relative to RotorHazard's own moment: the host's
 * converted due time, its fire time, when the trigger was handed to the driver, when its
 * bytes reached the relay, and when it was on the air — where a late step lost its time.
 * Run it under /work/helpers/bench-priority.sh (or an idle machine): on a loaded 2-core
 * machine the figures are the machine's scheduling, not the product's (docs/race-lights.md). Without
 * LIGHTNET_ROTORHAZARD the RotorHazard runs are skipped (said so). Ports 6850..6851.
 */
import { decodeLoraPacket } from '../src/protocol/packets.ts';
import { OPC } from '../src/protocol/types.ts';
import { withHost, type Harness } from '../test/integration/harness.ts';
import { countdownRace } from '../test/e2e/rotorhazard/countdown-run.ts';
import { rotorhazardAvailable, startRig } from '../test/e2e/rotorhazard/rig.ts';
import { SocketIoClient } from '../test/e2e/rotorhazard/socketio.ts';

const arg = process.argv.indexOf('--races');
const RACES = arg > 0 ? Number(process.argv[arg + 1]) : 5;
const runsArg = process.argv.indexOf('--runs');
/** Which runs: `sim`, `4.4.0`, `4.4.1-dev` (comma-separated; default all). */
const RUNS = new Set(
  runsArg > 0 ? (process.argv[runsArg + 1] ?? '').split(',') : ['sim', '4.4.0', '4.4.1-dev'],
);
const SECRET = 'race-tones-bench-secret-0123456789';

const monoS = (): number => Number(process.hrtime.bigint()) / 1e9;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(0, ms)));

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? NaN;
}

async function waitFor(fn: () => Promise<boolean> | boolean, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error('timeout');
    await sleep(20);
  }
}

interface Row {
  run: string;
  tones: number[];
  go: number[];
  missed: number;
}

async function post(h: Harness, path: string, body: unknown): Promise<void> {
  const r = await fetch(h.url + path, {
    method: 'POST',
    headers: { 'x-lightnet-integration': SECRET, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (r.status >= 300) throw new Error(`${path}: ${r.status} ${await r.text()}`);
}

async function simRun(): Promise<Row> {
  const row: Row = { run: 'sim (150 nodes, 2 gateways)', tones: [], go: [], missed: 0 };
  await withHost(
    { nodes: 75, simGateways: 2, timeScale: 1, integrationSecret: SECRET, seed: 5 },
    async (h) => {
      const d = await h.post<{ task: { id: number } }>('/api/discover', { newGroupName: 'Track' });
      await h.waitTask(d.body.task.id);
      await fetch(h.url + '/api/race-lights', {
        method: 'PUT',
        headers: { 'content-type': 'application/json', origin: new URL(h.url).origin },
        body: JSON.stringify({ all_seats_gate: { kind: 'group', value: 1 } }),
      });
      const gws = new Set(h.host.sims.map((s) => s.fleet.gateway.addr));
      const ends: number[] = [];
      for (const air of new Set(h.host.sims.map((s) => s.fleet.air)))
        air.events.on('tx', (e) => {
          const p = decodeLoraPacket(e.bytes);
          if (!p || !gws.has(p.sender) || (p.typeFull & 0x7f) !== OPC.SYNC) return;
          if (p.body.length === 5 && ((p.body[4] as number) & 1) === 1) ends.push(e.end);
        });
      for (let r = 0; r < RACES; r++) {
        ends.length = 0;
        const m = monoS();
        const wall = Date.now();
        const toWall = (s: number): number => wall + (s - m) * 1000;
        const staging = m + 0.9;
        const start = staging + 3;
        await post(h, '/api/integration/race/phase', {
          phase: 'stage',
          staging_monotonic_s: staging,
          start_monotonic_s: start,
          staging_tones: 3,
        });
        for (let i = 0; i < 3; i++) {
          await sleep(toWall(staging + i) - 900 - Date.now());
          await post(h, '/api/integration/race/tone', {
            tone_index: i,
            tones_remaining: 2 - i,
            at_monotonic_s: staging + i,
          });
        }
        await waitFor(() => Date.now() > toWall(start) + 500);
        const due = [staging, staging + 1, staging + 2, start].map(toWall);
        due.forEach((d, k) => {
          const hits = ends.filter((t) => Math.abs(t - d) < 400);
          if (hits.length < gws.size) row.missed += gws.size - hits.length;
          for (const t of hits) (k === 3 ? row.go : row.tones).push(t - d);
        });
        await sleep(500);
      }
    },
  );
  return row;
}

async function rhRun(version: '4.4.0' | '4.4.1-dev', port: number): Promise<Row> {
  const row: Row = { run: `RotorHazard ${version}`, tones: [], go: [], missed: 0 };
  const rig = await startRig({ port, nodes: 6, seed: 3, version });
  try {
    await rig.waitOutput(/Lightnet: connected to the host/);
    const io = await SocketIoClient.connect(rig.rhUrl);
    await rig.api('POST', '/api/discover', {});
    await waitFor(
      async () =>
        (await rig.api<{ task: { state: string } | null }>('GET', '/api/task')).body.task?.state === 'done',
    );
    await rig.api('PUT', '/api/race-lights', { all_seats_gate: { kind: 'broadcast' } });
    for (let r = 0; r < RACES; r++) {
      const res = await countdownRace(rig, io);
      for (const t of res.tones) {
        if (Number.isNaN(t)) row.missed++;
        else row.tones.push(t);
      }
      if (res.go === null) row.missed++;
      else row.go.push(res.go);
    }
    await io.close();
  } finally {
    await rig.close();
  }
  return row;
}

function print(rows: Row[]): void {
  const f = (xs: number[], p: number | 'max'): string => {
    const a = xs.map(Math.abs);
    return a.length === 0 ? '—' : (p === 'max' ? Math.max(...a) : pct(a, p)).toFixed(1);
  };
  console.log('\n|skew| = |on air (end of the trigger SYNC) − the timer’s scheduled moment|, ms');
  console.log(
    '| run | tones n | tone p50 | tone p95 | tone max | GO n | GO p50 | GO p95 | GO max | missed |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows)
    console.log(
      `| ${r.run} | ${r.tones.length} | ${f(r.tones, 50)} | ${f(r.tones, 95)} | ${f(r.tones, 'max')} | ${r.go.length} | ${f(r.go, 50)} | ${f(r.go, 95)} | ${f(r.go, 'max')} | ${r.missed} |`,
    );
  console.log('targets: tone p95 ≤ 50 ms, GO p95 ≤ 25 ms');
}

async function main(): Promise<void> {
  const rows: Row[] = RUNS.has('sim') ? [await simRun()] : [];
  if (!rotorhazardAvailable()) {
    console.log('RotorHazard runs skipped: set LIGHTNET_ROTORHAZARD to tools/rotorhazard.sh');
  } else {
    if (RUNS.has('4.4.0')) rows.push(await rhRun('4.4.0', 6850));
    if (RUNS.has('4.4.1-dev')) rows.push(await rhRun('4.4.1-dev', 6851));
  }
  print(rows);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
