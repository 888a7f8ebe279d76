/**
 * FPVTrackside push under load: a host on a 300-node simulated fleet (its own process,
 * reached over TCP through a relay here that timestamps every byte the host writes to the
 * gateway), the whole fleet being status-polled over and over, and the stand-in sender
 * (test/fpvtrackside/sender.ts: one request in flight, as FPVTrackside) pushing 100 events/s:
 * mostly events that light nothing (results, detections of an unmapped timing system), and
 * every FLASH_EVERY_MS a detection on a mapped gate. Prints:
 *
 *  - the PUT answer time (sender: request start → answer), p50/p99/max (goal p99 ≤ 5 ms);
 *  - for each mapped detection that flashed: PUT start → first CONTROL frame written to the
 *    gateway after it (goal p99 ≤ 30 ms), and how many were not flashed (radio busy …);
 *  - the receiver's counters and the host's event-loop lag.
 *
 *   npx tsx bench/fpvtrackside.ts [--seconds 20] [--nodes 300] [--rate 100] [--mode dist|tsx]
 *
 * Asserts nothing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { OPC } from '../src/protocol/types.ts';
import { FpvTracksideSender } from '../test/fpvtrackside/sender.ts';
import { defaultMode, spawnHost, type ServerMode } from './host-process.ts';
import { post, startSimProcess, waitTask } from './sse-load.ts';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const SECONDS = Number(arg('seconds')) || 20;
const NODES = Number(arg('nodes')) || 300;
const RATE = Number(arg('rate')) || 100;
const mode = (arg('mode') as ServerMode | undefined) ?? defaultMode();
/** Sim radio speed (0.1: ten times real time), so discovering 300 nodes takes seconds. */
const TIME_SCALE = 0.1;
const FLASH_EVERY_MS = 500;
const FLASH_LENGTH_MS = 200;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? NaN;
}
const row = (name: string, xs: number[]): string =>
  `${name.padEnd(44)} n ${String(xs.length).padStart(5)}   p50 ${pct(xs, 50).toFixed(1).padStart(6)} ms   ` +
  `p99 ${pct(xs, 99).toFixed(1).padStart(6)} ms   max ${Math.max(...xs)
    .toFixed(1)
    .padStart(6)} ms`;

/** Writes host → gateway, timestamped; CONTROL frames are told apart by their opcode byte. */
function relay(targetPort: number, controls: number[]): Promise<Server> {
  const server = createServer((inbound: Socket) => {
    const out = connect(targetPort, '127.0.0.1');
    inbound.setNoDelay(true);
    out.setNoDelay(true);
    inbound.on('data', (b: Buffer) => {
      if (b.length > 2 && b[2] === OPC.CONTROL) controls.push(Date.now());
      out.write(b);
    });
    out.on('data', (b) => inbound.write(b));
    const end = (): void => {
      inbound.destroy();
      out.destroy();
    };
    inbound.on('close', end).on('error', end);
    out.on('close', end).on('error', end);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function main(): Promise<void> {
  const sim = await startSimProcess({ nodes: NODES, timeScale: TIME_SCALE });
  const controls: number[] = [];
  const rl = await relay(sim.port, controls);
  const relayPort = (rl.address() as { port: number }).port;
  const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-bench-fpvt-'));
  const host = await spawnHost(mode, dataDir, ['--gateway', `tcp:127.0.0.1:${relayPort}`]);
  let polling = true;
  try {
    await sleep(Math.max(500, 3000 * TIME_SCALE));
    const gid = (await post(`${host.url}/api/groups/create`, { name: 'Bench' })).id as number;
    const disc = (await post(`${host.url}/api/discover`, { targetGroupId: gid })).task as { id: number };
    const found = (((await waitTask(host.url, disc.id, 30 * 60_000)).result ?? {}) as { found?: number })
      .found;
    const list = (await (await fetch(`${host.url}/api/devices`)).json()) as {
      devices: { addr: string; dev_type: number }[];
    };
    const gates = list.devices.filter((d) => d.dev_type !== 50 && d.dev_type !== 51).slice(0, 2);
    if (gates.length < 2) throw new Error('fewer than 2 LED nodes discovered');
    const put = await fetch(`${host.url}/api/race-lights`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        timing_systems: gates.map((g, index) => ({ index, gate: { kind: 'device', value: g.addr } })),
        flash: { effect: 0, length_ms: FLASH_LENGTH_MS, brightness: 255 },
      }),
    });
    if (!put.ok) throw new Error(`race lights settings refused: ${await put.text()}`);
    const timers = (await (await fetch(`${host.url}/api/timers`)).json()) as {
      fpvtrackside: { url: string };
    };

    // The whole fleet polled, one status task after the other, all through the run.
    const poller = (async () => {
      let polls = 0;
      while (polling) {
        const t = (await post(`${host.url}/api/status`, {})).task as { id: number };
        await waitTask(host.url, t.id, 10 * 60_000);
        polls++;
      }
      return polls;
    })();

    const sender = new FpvTracksideSender(timers.fpvtrackside.url);
    sender.start();
    while (!sender.helloAccepted()) await sleep(20);
    await host.resetLag();
    // The floor on this machine at this moment: the host's cheapest route, 10 times a second.
    const health: number[] = [];
    let sending = true;
    const floor = (async () => {
      while (sending) {
        const a = performance.now();
        await (await fetch(`${host.url}/api/health`)).arrayBuffer();
        health.push(performance.now() - a);
        await sleep(100);
      }
    })();
    const flashSeqs = new Set<number>();
    const total = SECONDS * RATE;
    const t0 = performance.now();
    let lastFlash = -Infinity;
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const now = performance.now();
      const id = `bench-${i}`;
      const channel = {
        band: 'Raceband',
        number: 1 + (i % 8),
        frequency: 5658,
        colorR: 255,
        colorG: i % 256,
        colorB: 0,
      };
      const det = (index: number) => ({
        detectionId: id,
        round: 1,
        race: 1,
        pilotName: `P${i % 8}`,
        channel,
        timingSystemIndex: index,
        isLapEnd: index === 0,
        lapNumber: 1 + Math.floor(i / 8),
        valid: true,
        position: 1,
        positionSnapshot: [],
        raceFinishedForPilot: false,
      });
      if (now - lastFlash >= FLASH_EVERY_MS) {
        lastFlash = now;
        flashSeqs.add(sender.send('DetectionExt', det(flashSeqs.size % 2)));
      } else if (i % 2 === 0) {
        sender.send('DetectionExt', det(7)); // a timing system with no gate: nothing to light
      } else {
        sender.send('RaceResult', { round: 1, race: 1, pilots: [] });
      }
    }
    await sender.idle();
    const sendWallS = (performance.now() - t0) / 1000;
    sending = false;
    await floor;
    await sleep(FLASH_LENGTH_MS + 500);
    const stats = await host.stats();
    polling = false;
    const polls = await poller;

    const answers = sender.log.filter((s) => s.type !== 'Hello' && s.ms !== null).map((s) => s.ms as number);
    const toControl: number[] = [];
    for (const s of sender.log) {
      if (!flashSeqs.has(s.seq) || s.sentAt === null) continue;
      const w = controls.find((c) => c >= (s.sentAt as number));
      // A CONTROL long after the PUT is a later flash's or a restore's, not this one's.
      if (w !== undefined && w - s.sentAt < FLASH_LENGTH_MS) toControl.push(w - s.sentAt);
    }
    const src = (await (await fetch(`${host.url}/api/timers`)).json()) as {
      fpvtrackside: { counters: Record<string, number>; detections: unknown };
    };
    const rlv = (await (await fetch(`${host.url}/api/race-lights`)).json()) as {
      stats: { flashes_sent: number; dropped: Record<string, number>; ignored: Record<string, number> };
    };
    console.log(
      `FPVTrackside push: ${sender.log.length - 1} events in ${sendWallS.toFixed(1)} s (${RATE}/s asked), ` +
        `${found}/${NODES} nodes discovered and status-polled ${polls} times meanwhile (sim radio ${1 / TIME_SCALE}x real time), host ${mode}`,
    );
    console.log(`sender outcomes: ${JSON.stringify(sender.outcomes())}`);
    console.log(row('PUT answered (sender: start -> answer)', answers) + '   goal p99 <= 5 ms');
    console.log(row('GET /api/health meanwhile (the floor)', health));
    console.log(
      row('mapped detection: PUT start -> first CONTROL', toControl) +
        `   goal p99 <= 30 ms (${flashSeqs.size} sent, ${flashSeqs.size - toControl.length} without a CONTROL in ${FLASH_LENGTH_MS} ms)`,
    );
    console.log(`receiver counters: ${JSON.stringify(src.fpvtrackside.counters)}`);
    console.log(`receiver detections: ${JSON.stringify(src.fpvtrackside.detections)}`);
    console.log(
      `race lights: flashes sent ${rlv.stats.flashes_sent}, dropped ${JSON.stringify(rlv.stats.dropped)}`,
    );
    console.log(`machine load average (1 min): ${loadavg()[0]?.toFixed(2)} on ${cpus().length} cores`);
    console.log(
      `host event-loop lag: p50 ${stats.lag.p50} ms, p99 ${stats.lag.p99} ms, max ${stats.lag.max} ms`,
    );
  } finally {
    polling = false;
    await host.stop();
    sim.stop();
    rl.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
