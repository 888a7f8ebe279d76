/**
 * Investigation helper (issue 29): the host (built server, start flags; under pi-class with
 * --pi-class) with a bound 300-node simulated field, a browser-like reader (the SSE stream;
 * GET /api/devices with ETag and br at most every 250 ms after a `devices` refresh, as the
 * UI's scheduleDevices; --no-reader leaves it out), and either one status poll cancelled
 * after --seconds or, with --clicks N, N polls each ended by a Blackout 0.3–5 s in (the
 * delays of bench/ui-blackout.ts). Prints the host's event-loop delay, CPU and memory.
 *   npx tsx bench/poll-stalls.ts [--pi-class] [--seconds 40 | --clicks 12] [--no-reader]
 *   BENCH_HOST_FLAGS="--trace-gc-nvp" … adds Node flags to the host (its stdout is shown)
 *   SNAPSHOT=/tmp/x.heapsnapshot … writes a heap snapshot of the host at the end
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { newDevice } from '../src/domain/model.ts';
import { serializeState } from '../src/state/migrations.ts';
import { Prng } from '../src/util/prng.ts';
import { fleetState } from './fleet-state.ts';
import { startBenchFleet, startUiHost, tasksSettled } from './ui-host.ts';

const argv = process.argv;
const seconds = Number(argv[argv.indexOf('--seconds') + 1]) || 40;
const pi = argv.includes('--pi-class');
const sim = await startBenchFleet(300, 5, 16);
const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-poll-stalls-'));
const state = fleetState(0, 16);
sim.fleet.nodes.forEach((node, i) => {
  const d = newDevice(node.addr, node.mac.replace(/:/g, ''), node.devType);
  d.groupId = (i % 16) + 1;
  state.devices.push(d);
});
await writeFile(join(dataDir, 'state.json'), serializeState(state));
const host = await startUiHost(dataDir, ['--gateway', sim.gateway], pi);
const ac = new AbortController();
let etag = '';
let fetches = 0;
let timer: NodeJS.Timeout | null = null;
const loadDevices = async (): Promise<void> => {
  if (ac.signal.aborted) return;
  const r = await fetch(`${host.url}/api/devices`, {
    headers: { 'accept-encoding': 'gzip, deflate, br, zstd', ...(etag ? { 'if-none-match': etag } : {}) },
  });
  etag = r.headers.get('etag') ?? etag;
  await r.arrayBuffer();
  fetches++;
};
const sse = await fetch(`${host.url}/sse?console=1`, { signal: ac.signal });
console.log(`sse ${sse.status} ${sse.headers.get('content-type')}`);
void (async () => {
  const dec = new TextDecoder();
  try {
    for await (const chunk of sse.body!) {
      const text = dec.decode(chunk as Uint8Array);
      if (text.includes('"devices"') && !timer && !argv.includes('--no-reader'))
        timer = setTimeout(() => {
          timer = null;
          void loadDevices();
        }, 250);
    }
  } catch {
    /* aborted */
  }
})();
await loadDevices();
await host.resetLag();
const c0 = (await host.stats()).cpuMs;
const t0 = performance.now();
let polls = 0;
// As bench/ui-blackout.ts's poll row: a poll, Blackout 0.3-5 s later (it cancels the poll).
const clicks = Number(argv[argv.indexOf('--clicks') + 1]) || 0;
if (clicks === 0) {
  await host.post('/api/status', {});
  polls++;
  await new Promise((r) => setTimeout(r, seconds * 1000));
  await host.post('/api/task/cancel', {});
  await tasksSettled(host, 600_000);
}
const delays = new Prng('blackout-delays');
for (let i = 0; i < clicks; i++) {
  await host.post('/api/status', {});
  polls++;
  await new Promise((r) => setTimeout(r, 300 + delays.next() * 4700));
  const b = await host.post('/api/blackout', {});
  if (b.status !== 200) console.log(`blackout ${b.status}`);
  await tasksSettled(host, 600_000);
}
const s = await host.stats();
if (process.env.SNAPSHOT) console.log(await host.snapshot(process.env.SNAPSHOT));
const plain = await fetch(`${host.url}/api/devices`).then((r) => r.arrayBuffer());
console.log(`devices body ${plain.byteLength} bytes`);
console.log(
  JSON.stringify({
    pi,
    polls,
    fetches,

    wallMs: Math.round(performance.now() - t0),
    cpuMs: Math.round(s.cpuMs - c0),
    lag: s.lag,
    rssMb: Math.round(s.rss / 2 ** 20),
    heapMb: Math.round(s.heapUsed / 2 ** 20),
    load: loadavg()
      .map((x) => x.toFixed(1))
      .join(' '),
  }),
);
ac.abort();
await host.stop();
await sim.stop();
await rm(dataDir, { recursive: true, force: true });
