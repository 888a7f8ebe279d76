/**
 * Operator-change latency with durable acknowledgements: the real Store and file
 * persistence (journal + fsync, background compaction) on a temp data dir, at a ~20 KB and
 * a ~2.4 MB state. Each change renames one device and waits until it is on disk (what an
 * HTTP answer waits for). Sequential: p50/p99/max latency; concurrent (8 clients): changes
 * per second with group commit. Prints numbers; asserts nothing.
 *
 *   npm run bench:durability [-- --changes 2000] [-- --dir /path/on/the/disk/to/measure]
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScaledClock } from '../src/clock.ts';
import { EventBus } from '../src/events.ts';
import { silentLogger } from '../src/logger.ts';
import { serializeState } from '../src/state/migrations.ts';
import { FileStatePersistence } from '../src/state/persistence.ts';
import { Store } from '../src/state/store.ts';
import { fleetState } from './fleet-state.ts';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? dflt) : dflt;
};
const CHANGES = Number(arg('changes', '1000'));
const BASE = arg('dir', tmpdir());

const pct = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

async function run(devices: number): Promise<void> {
  const dir = await mkdtemp(join(BASE, 'lightnet-bench-durability-'));
  try {
    const state = fleetState(devices, 16);
    const text = serializeState(state);
    await writeFile(join(dir, 'state.json'), text);
    const store = new Store({
      persistence: new FileStatePersistence(dir),
      bus: new EventBus(),
      clock: new ScaledClock(1),
      log: silentLogger(),
    });
    await store.load();
    const n = store.state.devices.length;
    let k = 0;
    // As the rename route does it: the device is named as the only one changed.
    const change = async (): Promise<void> => {
      const d = store.state.devices[k++ % n];
      if (!d) return;
      await store.commit(['DEVICES'], () => (d.name = `renamed ${k}`), [d]);
    };
    for (let i = 0; i < 50; i++) await change(); // warm-up
    const lat: number[] = [];
    const t0 = performance.now();
    for (let i = 0; i < CHANGES; i++) {
      const t = performance.now();
      await change();
      lat.push(performance.now() - t);
    }
    const seqMs = performance.now() - t0;
    lat.sort((a, b) => a - b);
    const t1 = performance.now();
    let left = CHANGES;
    const client = async (): Promise<void> => {
      while (left-- > 0) await change();
    };
    await Promise.all(Array.from({ length: 8 }, client));
    const conMs = performance.now() - t1;
    await store.close();
    console.log(
      [
        `${(text.length / 1024).toFixed(0).padStart(6)} KiB`,
        `${String(devices).padStart(5)} devices`,
        `p50 ${pct(lat, 50).toFixed(2).padStart(6)} ms`,
        `p99 ${pct(lat, 99).toFixed(2).padStart(6)} ms`,
        `max ${(lat[lat.length - 1] ?? NaN).toFixed(1).padStart(6)} ms`,
        `sequential ${((CHANGES / seqMs) * 1000).toFixed(0).padStart(5)}/s`,
        `8 clients ${((CHANGES / conMs) * 1000).toFixed(0).padStart(5)}/s`,
      ].join('  '),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

console.log(
  `operator changes (device rename, durable before the answer), ${CHANGES} per run, data dir under ${BASE}`,
);
await run(40);
await run(4700);
