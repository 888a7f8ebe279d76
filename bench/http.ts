/**
 * HTTP benchmark: autocannon against GET /api/devices (200 devices) and GET /api/groups
 * at 2 and 32 connections, RSS after start and after load, and time from process start
 * to `phase: ready`. Prints a table; asserts nothing.
 *
 *   npm run bench:http [-- --duration 5]
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { newDevice, type StateModel } from '../src/domain/model.ts';
import { startHost } from '../src/host.ts';
import { silentLogger } from '../src/logger.ts';
import { serializeState } from '../src/state/migrations.ts';
import { freePort, startCli, testConfig } from '../test/integration/harness.ts';

const duration = Number(process.argv[process.argv.indexOf('--duration') + 1]) || 5;
const mb = (n: number): string => `${(n / 1024 / 1024).toFixed(1)} MiB`;

function fleetState(devices: number, groups: number): StateModel {
  const s: StateModel = {
    devices: [],
    groups: [],
    native_presets: [],
    scenes: [],
    settings: { led_presets_file: null },
  };
  for (let g = 1; g <= groups; g++) s.groups.push({ id: g, name: `Group ${g}`, dev_type: 0 });
  for (let i = 0; i < devices; i++) {
    const addr = (0x100000 + i * 7919).toString(16).toUpperCase().slice(-6);
    const d = newDevice(addr, `246F28${addr}`, i % 7 === 0 ? 50 : 12);
    d.groupId = (i % groups) + 1;
    d.host_rssi = -60 - (i % 50);
    d.voltage_mV = i % 3 === 0 ? 3900 : 0;
    s.devices.push(d);
  }
  return s;
}

/** Wall time from spawning the CLI to /api/health answering phase:ready. */
async function startToReady(dataDir: string): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const child = await startCli(dataDir, port, ['--log-level', 'silent']);
  const ms = performance.now() - t0;
  child.kill('SIGTERM');
  return ms;
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-bench-'));
  await writeFile(join(dataDir, 'state.json'), serializeState(fleetState(200, 16)));
  const readyMs = await startToReady(dataDir);

  const host = await startHost({ ...testConfig(dataDir, { nodes: 0, timeScale: 1 }) }, silentLogger());
  const rssStart = process.memoryUsage().rss;
  const rows: string[][] = [];
  for (const path of ['/api/devices', '/api/groups']) {
    for (const connections of [2, 32]) {
      const r = await autocannon({ url: host.url + path, connections, duration });
      rows.push([
        `GET ${path}`,
        String(connections),
        r.requests.average.toFixed(0),
        String(r.latency.p99),
        String(r.non2xx + r.errors),
        mb(r.throughput.average),
      ]);
    }
  }
  const rssLoad = process.memoryUsage().rss;
  await host.close();
  await rm(dataDir, { recursive: true, force: true });

  const header = ['route (200 devices, 16 groups)', 'conns', 'req/s', 'p99 ms', 'errors', 'throughput/s'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ');
  console.log(`\nHTTP benchmark (${duration} s per run, autocannon, loopback)\n`);
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const r of rows) console.log(line(r));
  console.log(`\nRSS after start: ${mb(rssStart)}   RSS after load: ${mb(rssLoad)}`);
  console.log(`Start to ready (CLI via tsx, simulator, 200 devices in state): ${readyMs.toFixed(0)} ms\n`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
