/**
 * MQTT (issue 38): a 300-node simulated fleet against a real broker (Debian's mosquitto on a
 * free port). Prints a table; asserts nothing.
 *
 *   npm run bench:mqtt                    300 nodes, 40 sets per kind
 *   npm run bench:mqtt -- --nodes 100 --sets 20
 *
 * 1. Retained state on connect: a host that knows the fleet (discovered by a first host on
 *    the same data folder, then stopped) starts with `--mqtt`; a subscriber already on the
 *    broker (`lightnet/#`, `homeassistant/#`) times, from the bridge's `online` (the first
 *    thing the bridge publishes once connected and subscribed), until the last device's state,
 *    the last availability and the last discovery config arrive. The event-loop delay
 *    (perf_hooks' histogram) over that window says whether the batches blocked it.
 * 2. `…/set` → frame on air: the subscriber's client publishes a set (a device by name: one
 *    unicast frame; the group of all nodes: one broadcast) and times until the simulated air
 *    starts the gateway's transmission of it. Sets go one at a time, each a new brightness
 *    (a repeat would be dropped by the dedupe rule), spaced by 50 ms.
 *
 * The host runs in this process on the simulator in real time (time scale 1), so the publish
 * and the air share one clock.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { startHost, type HostHandle } from '../src/host/index.ts';
import { silentLogger } from '../src/logger.ts';
import type { TaskSnapshot } from '../src/tasks/task-manager.ts';
import { startBroker, Watcher } from '../test/mqtt/broker.ts';
import { simHostConfig } from './sim-host-config.ts';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: number): number => {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) : dflt;
};
const NODES = opt('--nodes', 300);
const SETS = opt('--sets', 40);
const SEED = 7;

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? NaN;
}
const ms = (x: number): string => x.toFixed(1);

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

async function main(): Promise<void> {
  console.log(
    `load average at start: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-bench-mqtt-'));
  const broker = await startBroker();
  const rows: string[][] = [];
  try {
    // The fleet, known: discovered once and saved in the data folder.
    {
      const host = await startHost(simHostConfig(dataDir, NODES, SEED), silentLogger());
      const t = await waitTask(host, host.services.discovery.start({ newGroupName: 'Field' }).id);
      console.log(`discovery: ${host.services.store.state.devices.length} devices, ${t.state}`);
      await host.close();
    }

    const w = await Watcher.connect(broker.url, ['lightnet/#', 'homeassistant/#']);
    const lag = monitorEventLoopDelay({ resolution: 1 });
    const host = await startHost(
      {
        ...simHostConfig(dataDir, NODES, SEED),
        mqtt: { url: broker.url, baseTopic: 'lightnet', discoveryPrefix: 'homeassistant', discovery: true },
      },
      silentLogger(),
    );
    try {
      const devices = host.services.store.state.devices;
      const names = new Set(devices.map((d) => `lightnet/${d.name}`));
      const avail = new Set(devices.map((d) => `lightnet/${d.name}/availability`));
      const at = (pred: (topic: string) => boolean, count: number): number => {
        const seen = new Set<string>();
        for (const m of w.messages)
          if (pred(m.topic) && m.payload !== '') {
            seen.add(m.topic);
            if (seen.size === count) return m.at;
          }
        return NaN;
      };
      const lightConfigs = devices.length + host.services.store.state.groups.length;
      await w.until(() => w.last('lightnet/bridge/state') === 'online', 'the bridge online', 60_000);
      // From the subscriber's view of `online` (a few ms after the bridge sent it) to the end.
      lag.enable();
      // Counted as they arrive: the check runs on every message and must cost nothing.
      let pending = names.size + avail.size;
      let lights = 0;
      const seen = new Set<string>();
      w.client.on('message', (topic) => {
        if (topic.startsWith('homeassistant/light/')) lights++;
        else if ((names.has(topic) || avail.has(topic)) && !seen.has(topic)) {
          seen.add(topic);
          pending--;
        }
      });
      for (const m of w.messages)
        if ((names.has(m.topic) || avail.has(m.topic)) && !seen.has(m.topic)) {
          seen.add(m.topic);
          pending--;
        } else if (m.topic.startsWith('homeassistant/light/')) lights++;
      await w.until(() => pending === 0 && lights >= lightConfigs, 'every retained topic', 60_000);
      lag.disable();
      const online =
        w.messages.find((m) => m.topic === 'lightnet/bridge/state' && m.payload === 'online')?.at ?? NaN;
      const lastState = at((t) => names.has(t), names.size);
      const lastAvail = at((t) => avail.has(t), avail.size);
      const lastDisc = at((t) => t.startsWith('homeassistant/light/'), lightConfigs);
      const count = w.messages.filter((m) => m.at >= online).length;
      rows.push(['connect → last device state', ms(lastState - online), `${names.size} device topics`]);
      rows.push(['connect → last availability', ms(lastAvail - online), `${avail.size} topics`]);
      rows.push(['connect → last discovery light config', ms(lastDisc - online), `${lightConfigs} lights`]);
      rows.push(['messages at the subscriber', String(count), 'state, availability, discovery, race']);
      rows.push([
        'host event-loop delay while publishing',
        `p99 ${ms(lag.percentile(99) / 1e6)} / max ${ms(lag.max / 1e6)}`,
        'the host, the simulated fleet and the subscriber share this process',
      ]);

      // …/set → the gateway's transmission starting on the simulated air.
      const air = host.sim!.fleet.air;
      const gw = host.sim!.fleet.gateway.addr;
      const timed = async (topic: string, i: number): Promise<number> => {
        const sent = performance.now();
        const onAir = new Promise<number>((resolve) => {
          const off = air.events.on('tx', (e) => {
            if (e.sender !== gw) return;
            off();
            resolve(performance.now());
          });
        });
        await w.client.publishAsync(topic, JSON.stringify({ state: 'ON', brightness: 20 + (i % 200) }), {
          qos: 0,
        });
        const t = await onAir;
        await new Promise((r) => setTimeout(r, 50));
        return t - sent;
      };
      const first = devices[0]!;
      for (const [label, topic] of [
        ['device set → unicast on air', `lightnet/${first.name}/set`],
        ['group set → broadcast on air', 'lightnet/group/Field/set'],
      ] as const) {
        const xs: number[] = [];
        for (let i = 0; i < SETS; i++) xs.push(await timed(topic, i));
        rows.push([
          label,
          `p50 ${ms(pct(xs, 50))} / p99 ${ms(pct(xs, 99))}`,
          `${SETS} sets, max ${ms(Math.max(...xs))}`,
        ]);
      }
      const s = host.services.mqttStats();
      rows.push(['refused / duplicates / errors', `${s?.refused} / ${s?.duplicates} / ${s?.errors}`, '']);
    } finally {
      await host.close();
      await w.close();
    }
  } finally {
    await broker.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
  console.log(`\nMQTT, ${NODES} simulated nodes, mosquitto on loopback (ms)\n`);
  console.log('| what | ms | note |\n| --- | --- | --- |');
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
  console.log(
    `\nload average at the end: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
