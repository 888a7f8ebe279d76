/**
 * DMX in under a console's load (issue 38): a real sACN sender (the `sacn` library) streams
 * one universe at 44 Hz with 16 fixtures (8 channels each) fading their dimmers all the time,
 * into the host on the 300-node simulated fleet (16 groups). Prints packets in, the frames
 * the host put on air for DMX, how long a value took from the packet that carried it to the
 * frame on air (p50/p99: from the last packet that brought the value the frame carries; the
 * values in between were superseded by a newer one, which is the point), and the event
 * loop's delay while it runs.
 *
 *   npm run bench:dmx                   10 s of stream
 *   npm run bench:dmx -- --seconds 20   longer
 *
 * The host runs in this process on the simulator in real time, so the packet and the frame
 * on air share one clock (performance.now()).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Sender } from 'sacn';
import { startHost, type HostHandle } from '../src/host/index.ts';
import { silentLogger } from '../src/logger.ts';
import { decodeRequestBody } from '../src/protocol/packets.ts';
import type { TaskSnapshot } from '../src/tasks/task-types.ts';
import { simHostConfig } from './sim-host-config.ts';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: number): number => {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) : dflt;
};
const SECONDS = opt('--seconds', 10);
const NODES = opt('--nodes', 300);
const FIXTURES = 16;
const HZ = 44;
const STARTBLOCK = [50, 51];

function waitTask(host: HostHandle, id: number): Promise<TaskSnapshot> {
  const current = host.services.tasks.current();
  if (current && current.id === id && current.state !== 'running') return Promise.resolve(current);
  return new Promise((resolve) => {
    const off = host.services.bus.on('task', (t) => {
      if (t.id === id && t.state !== 'running') {
        off();
        resolve(t);
      }
    });
  });
}

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-bench-dmx-'));
  const host = await startHost(
    {
      ...simHostConfig(dataDir, NODES, 7),
      dmx: [{ key: 'sacn:1', protocol: 'sacn', number: 1 }],
      dmxSacnPort: 0,
      dmxArtnetPort: 0,
    },
    silentLogger(),
  );
  const svc = host.services;
  try {
    const t0 = performance.now();
    await waitTask(host, svc.discovery.start({}).id);
    const leds = svc.registry.all().filter((d) => !STARTBLOCK.includes(d.dev_type));
    for (let g = 1; g <= FIXTURES; g++) svc.groups.create(`Gate ${g}`, leds[0]?.dev_type ?? 0);
    // The LED nodes in 16 groups, round robin (one SET_GROUP task per group).
    for (let g = 1; g <= FIXTURES; g++) {
      const macs = leds.filter((_, i) => i % FIXTURES === g - 1).map((d) => d.addr);
      const r = await fetch(host.url + '/api/devices/update-meta', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ macs, groupId: g }),
      });
      const { task } = (await r.json()) as { task: TaskSnapshot };
      await waitTask(host, task.id);
    }
    console.log(
      `setup: ${svc.registry.all().length} devices (${leds.length} LED nodes) in ${FIXTURES} groups, ` +
        `${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    const dmx = host.dmx!;
    await dmx.service.setPatch(
      Array.from({ length: FIXTURES }, (_, i) => ({
        group: i + 1,
        universe: 'sacn:1',
        address: i * 8 + 1,
        fixture: 'full' as const,
      })),
    );

    // When each (group, brightness) was first sent, and each frame on air that carried one.
    const sentAt = new Map<string, number>();
    const latencies: number[] = [];
    let onAir = 0;
    host.sim!.fleet.gateway.events.on('m2n', (e: { typeFull: number; body: Uint8Array }) => {
      const req = decodeRequestBody(e.typeFull & 0x7f, e.body);
      if (!req || req.op !== 'CONTROL') return;
      onAir++;
      const at = sentAt.get(`${req.groupId}:${req.fields.brightness}`);
      if (at !== undefined) latencies.push(performance.now() - at);
    });
    const sender = new Sender({
      universe: 1,
      port: dmx.ports.sacn!,
      useUnicastDestination: '127.0.0.1',
      defaultPacketOptions: { sourceName: 'bench desk', priority: 100, useRawDmxValues: true },
    });
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const frames = SECONDS * HZ;
    const start = performance.now();
    for (let i = 0; i < frames; i++) {
      const payload: Record<number, number> = {};
      for (let f = 0; f < FIXTURES; f++) {
        // A triangle fade per fixture, phase-shifted: every fixture changes on every frame.
        const phase = (i * 3 + f * 16) % 510;
        const dim = phase < 255 ? phase : 510 - phase;
        const base = f * 8 + 1;
        Object.assign(payload, { [base]: dim, [base + 1]: 255, [base + 2]: 64, [base + 3]: 0 });
        // The value's age is counted from the packet that last brought it (a fade repeats values).
        sentAt.set(`${f + 1}:${dim}`, performance.now());
      }
      await sender.send({ payload });
      const next = start + ((i + 1) * 1000) / HZ;
      await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
    }
    const streamMs = performance.now() - start;
    // The trailing edge: the last values land after the stream stops.
    await new Promise((r) => setTimeout(r, 3000));
    const totalS = (performance.now() - start) / 1000;
    loop.disable();
    sender.close();
    const u = dmx.service.view().universes[0]!;
    const row = {
      seconds: +(streamMs / 1000).toFixed(1),
      packets_in: u.packets,
      frames_changed: u.frames_changed,
      commands_sent: u.commands_sent,
      control_frames_on_air: onAir,
      // Over the stream and its 3 s tail (the last values land after the stream stops).
      per_s: +(u.commands_sent / totalS).toFixed(1),
      dropped_for_rate: u.dropped_for_rate,
      refused: u.refused.held + u.refused.rate_limited + u.refused.disabled,
      value_to_air_p50_ms: Math.round(pct(latencies, 50)),
      value_to_air_p99_ms: Math.round(pct(latencies, 99)),
      loop_delay_p50_ms: +(loop.percentile(50) / 1e6).toFixed(1),
      loop_delay_p99_ms: +(loop.percentile(99) / 1e6).toFixed(1),
      loop_delay_max_ms: +(loop.max / 1e6).toFixed(1),
    };
    console.table([row]);
    console.log(
      `load average: ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    await host.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
