/**
 * Blackout and the red flag from every path (issue 37, part 5): press → the moment the
 * last LED node of a 300-node simulated field shows the look, while a status poll runs and
 * an OSC surface floods the host at 200 messages/s. Prints a table; asserts nothing.
 *
 *   npm run bench:flags-osc                  3 presses per path and look
 *   npm run bench:flags-osc -- --presses 5   more presses
 *   npm run bench:flags-osc -- --no-ui       without chromium (no UI row)
 *
 * The host runs in this process on the simulator in real time (as bench/scene-fanout.ts
 * does), so the press and the nodes' state share one clock: a node "has the look" when its
 * simulated LED state shows it, checked on every packet the air delivers (and every 10 ms).
 * Startblocks (device types 50/51) have no LED strip and are not counted.
 *
 * Paths:
 *   ui      chromium clicks the status bar's Blackout and its ⚑ Red
 *   api     POST /api/blackout, POST /api/flags/red
 *   rh      the RotorHazard plugin's route POST /api/integration/flags/red; the plugin has
 *           no Blackout route (bridge.py calls only flags), so its blackout row is absent
 *   osc     /lightnet/blackout, /lightnet/flag/red (node-osc's encoder, its own socket)
 *
 * Between presses the field is put back to a known look (green flag, or cleared) and the
 * next press waits until every node shows it. The flood is /lightnet/group/<n>/color
 * (a fader surface) at 200/s against the host's default OSC rate of 50/s, to groups 101–108
 * that hold no node (the frames it lets through take airtime but do not repaint the field,
 * which would hide whether the look arrived): Blackout and flags must get through regardless.
 *
 * The command path's own cost: `admit` + `end` on the host's live path (what every
 * control pays before its sender) and the pure `decide()` with a table of holds.
 */
import { createSocket } from 'node:dgram';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { encode, Message } from 'node-osc';
import { startHost, type HostHandle } from '../src/host/index.ts';
import { silentLogger } from '../src/logger.ts';
import { decide } from '../src/services/command-path/decide.ts';
import type { Hold, Intent } from '../src/services/command-path/types.ts';
import type { SimNode } from '../src/sim/node/node.ts';
import type { TaskSnapshot } from '../src/tasks/task-manager.ts';
import { openBrowser, type BrowserHandle } from '../test/e2e/browser.ts';
import { freePort } from '../test/integration/harness.ts';
import { snrFloorDb } from '../src/sim/air.ts';
import { simHostConfig } from './sim-host-config.ts';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: number): number => {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) : dflt;
};
const PRESSES = opt('--presses', 3);
const NODES = opt('--nodes', 300);
const FLOOD_PER_S = opt('--flood', 200);
const WITH_UI = !argv.includes('--no-ui');
const SECRET = 'bench-flags-osc-secret-0123456789abcdef';
const STARTBLOCK = [50, 51];
// A node that has not shown the look by then missed it (its radio was busy, or it is out of reach).
const LOOK_TIMEOUT_MS = 10_000;

type Path = 'ui' | 'api' | 'rh' | 'osc';
type Look = 'blackout' | 'red';

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? NaN;
}

const colour = (n: SimNode): string => {
  const s = n.snapshot();
  return `${s.bri}:${[...(s.segment.colors[0] ?? [])].join(',')}`;
};
const IS: Record<Look | 'green' | 'cleared', (n: SimNode) => boolean> = {
  blackout: (n) => n.snapshot().bri === 0,
  red: (n) => colour(n) === '255:255,0,0',
  green: (n) => colour(n) === '255:0,255,0',
  cleared: (n) => n.snapshot().bri === 0,
};

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

interface Shown {
  /** performance.now() when the last node that showed the look showed it. */
  lastAt: number;
  /** Nodes that had not shown it when the wait ended. */
  missing: number;
  /**
   * The same for the nodes whose link is clear of the noise floor (`healthy`): at the floor a
   * node hears one frame in several, however the host schedules them.
   */
  healthyAt: number;
  healthyMissing: number;
  /** Why the host's frames did not reach the missing nodes meanwhile (air drop reasons). */
  why: Record<string, number>;
}

/**
 * Waits until every one of `nodes` satisfied `is` (or `timeoutMs` passed), checked after
 * every delivered packet (the node applies it in the same turn) and every 10 ms.
 */
function lastNodeShows(
  host: HostHandle,
  nodes: SimNode[],
  is: (n: SimNode) => boolean,
  timeoutMs = LOOK_TIMEOUT_MS,
  healthy: ReadonlySet<string> = new Set(),
): Promise<Shown> {
  const air = host.sim!.fleet.air;
  const fleetAddrs = new Set(host.sim!.fleet.nodes.map((n) => n.addr));
  return new Promise((resolve) => {
    const pending = new Set(nodes);
    const drops = new Map<string, string[]>();
    const offLost = air.events.on('lost', (l) => {
      if (fleetAddrs.has(l.sender)) return;
      (drops.get(l.receiver) ?? drops.set(l.receiver, []).get(l.receiver)!).push(l.reason);
    });
    let lastAt = performance.now();
    let healthyAt = lastAt;
    let queued = false;
    const check = (): void => {
      queued = false;
      const now = performance.now();
      for (const n of pending)
        if (is(n)) {
          pending.delete(n);
          lastAt = now;
          if (healthy.has(n.addr)) healthyAt = now;
        }
      if (pending.size === 0) finish();
    };
    const onRx = (): void => {
      if (!queued) {
        queued = true;
        queueMicrotask(check);
      }
    };
    const off = air.events.on('rx', onRx);
    const tick = setInterval(check, 10);
    const timer = setTimeout(() => finish(), timeoutMs);
    const finish = (): void => {
      off();
      offLost();
      clearInterval(tick);
      clearTimeout(timer);
      const why: Record<string, number> = {};
      for (const n of pending) for (const r of drops.get(n.addr) ?? ['none']) why[r] = (why[r] ?? 0) + 1;
      const healthyMissing = [...pending].filter((n) => healthy.has(n.addr)).length;
      resolve({ lastAt, missing: pending.size, healthyAt, healthyMissing, why });
    };
    check();
  });
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-bench-flags-osc-'));
  const oscPort = await freePort();
  const host = await startHost(
    {
      ...simHostConfig(dataDir, NODES, 7),
      integration: 'rotorhazard',
      integrationSecret: SECRET,
      oscPort,
      oscRate: 50,
      oscFeedback: [],
    },
    silentLogger(),
  );
  const svc = host.services;
  const leds = host.sim!.fleet.nodes.filter((n) => !STARTBLOCK.includes(n.devType));
  // Links clear of the noise floor (as bench/fleet.ts counts them): SNR ≥ floor + 1.5 dB.
  const air = host.sim!.fleet.air;
  const healthy = new Set(
    leds.filter((n) => (air.qualityOf(n.addr)?.snr ?? -99) >= snrFloorDb(7) + 1.5).map((n) => n.addr),
  );
  const call = async (path: string, headers: Record<string, string> = {}): Promise<number> => {
    const r = await fetch(host.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: '{}',
    });
    await r.arrayBuffer();
    return r.status;
  };
  const osc = createSocket('udp4');
  await new Promise<void>((r) => osc.bind(0, '127.0.0.1', () => r()));
  const oscSend = (address: string, ...args: number[]): void => {
    osc.send(encode(new Message(address, ...args)), oscPort, '127.0.0.1');
  };
  let browser: BrowserHandle | null = null;
  let floodTimer: NodeJS.Timeout | null = null;
  try {
    const t0 = performance.now();
    const disc = await waitTask(host, svc.discovery.start({ newGroupName: 'Field' }).id);
    const groups = new Set(svc.registry.all().map((d) => d.groupId)).size;
    console.log(
      `discovery: ${svc.registry.all().length} devices (${leds.length} LED nodes) in ${groups} group(s), ` +
        `${((performance.now() - t0) / 1000).toFixed(1)} s, ${disc.state}`,
    );

    if (WITH_UI && existsSync('dist/ui/index.html')) {
      browser = await openBrowser({ width: 1280, height: 800 });
      await browser.page.goto(host.url + '/');
      await browser.page.getByTestId('blackout').waitFor({ timeout: 60_000 });
      await browser.page.getByTestId('flag-red').waitFor({ timeout: 60_000 });
    } else if (WITH_UI) {
      console.log('no dist/ui (npm run build:ui, or run the e2e tests once): no UI row');
    }

    // Load: a status poll always running (restarted when Blackout cancels it), and the flood.
    let polls = 0;
    const pollLoop = (): void => {
      if (!svc.tasks.current() || svc.tasks.current()!.state !== 'running') {
        try {
          svc.status.start({});
          polls++;
        } catch {
          /* a task runs (discovery, another poll): try again */
        }
      }
    };
    const pollTimer = setInterval(pollLoop, 200);
    let sent = 0;
    let floodGroup = 0;
    // 200/s in 5 ms steps of one message (a timer cannot fire every 5 ms on a busy machine:
    // each step sends what is due since the flood started).
    const floodStart = performance.now();
    floodTimer = setInterval(() => {
      const due = Math.floor(((performance.now() - floodStart) / 1000) * FLOOD_PER_S);
      for (; sent < due; sent++) {
        // Groups no node is in: the frames take airtime, but do not repaint the field.
        floodGroup = (floodGroup % 8) + 1;
        oscSend(`/lightnet/group/${100 + floodGroup}/color`, sent % 256, 128, 255 - (sent % 256), 200);
      }
    }, 5);

    const press: Record<Path, Partial<Record<Look, () => Promise<void>>>> = {
      ui: browser
        ? {
            blackout: async () => {
              await browser!.page.evaluate(`document.querySelector('[data-testid=blackout]').click()`);
            },
            red: async () => {
              await browser!.page.evaluate(`document.querySelector('[data-testid=flag-red]').click()`);
            },
          }
        : {},
      api: {
        blackout: async () => void (await call('/api/blackout')),
        red: async () => void (await call('/api/flags/red')),
      },
      rh: {
        red: async () =>
          void (await call('/api/integration/flags/red', { 'x-lightnet-integration': SECRET })),
      },
      osc: {
        blackout: async () => oscSend('/lightnet/blackout', 1),
        red: async () => oscSend('/lightnet/flag/red', 1),
      },
    };

    const results = new Map<string, number[]>();
    const healthyResults = new Map<string, number[]>();
    const failures = new Map<string, string[]>();
    const missed = new Map<string, number[]>();
    for (let i = 0; i < PRESSES; i++) {
      for (const path of ['ui', 'api', 'rh', 'osc'] as Path[]) {
        for (const look of ['blackout', 'red'] as Look[]) {
          const fn = press[path][look];
          if (!fn) continue;
          const key = `${path} ${look}`;
          // Put the field back to a look that is not the one pressed.
          await call(look === 'blackout' ? '/api/flags/green' : '/api/flags/clear');
          await lastNodeShows(host, leds, look === 'blackout' ? IS.green : IS.cleared, 5000);
          pollLoop();
          // Press mid-poll: 0.3–1.3 s after the poll's start.
          await new Promise((r) => setTimeout(r, 300 + ((i * 397) % 1000)));
          const shown = lastNodeShows(host, leds, IS[look], LOOK_TIMEOUT_MS, healthy);
          const at = performance.now();
          try {
            await fn();
            const { lastAt, missing, healthyAt, healthyMissing, why } = await shown;
            if (healthyMissing === 0)
              (healthyResults.get(key) ?? healthyResults.set(key, []).get(key)!).push(healthyAt - at);
            // Only a press that reached every node counts as a latency; the others are misses.
            if (missing === 0) (results.get(key) ?? results.set(key, []).get(key)!).push(lastAt - at);
            (missed.get(key) ?? missed.set(key, []).get(key)!).push(missing);
            console.log(
              `press ${i + 1} ${key}: last node at ${(lastAt - at).toFixed(0)} ms, ${missing} missed; ` +
                `last healthy node at ${(healthyAt - at).toFixed(0)} ms, ${healthyMissing} missed` +
                (missing > 0 ? ` (host frames lost at them: ${JSON.stringify(why)})` : ''),
            );
          } catch (err) {
            (failures.get(key) ?? failures.set(key, []).get(key)!).push((err as Error).message);
            console.log(`press ${i + 1} ${key}: ${(err as Error).message}`);
          }
        }
      }
    }
    await call('/api/flags/clear');
    clearInterval(pollTimer);
    clearInterval(floodTimer);
    floodTimer = null;
    const floodS = (performance.now() - floodStart) / 1000;
    const oscStats = host.osc?.server.stats();

    // The command path's cost on the live host (its sources, settings and holds as they are).
    const path = svc.commandPath;
    const admitMs: number[] = [];
    let refused = 0;
    for (let i = 0; i < 20_000; i++) {
      const a = performance.now();
      // The operator's source; a refusal (its rate limit) is a decision too, and is counted.
      try {
        const t = path.admit({
          source: 'ui',
          targets: [{ kind: 'group', id: (i % 8) + 1 }],
          action: 'control',
        });
        path.end(t.ticket);
      } catch {
        refused++;
      }
      admitMs.push(performance.now() - a);
    }
    // decide() alone against a table of 50 holds (more than a race day has).
    const table: Hold[] = Array.from({ length: 50 }, (_, i) => ({
      source: `s${i}`,
      sourceClass: 'automation',
      priority: 40,
      target: { kind: 'device', addr: (0x100000 + i).toString(16).toUpperCase() },
      hold: 'until-release',
      since: 0,
      expiresAt: null,
      action: 'control',
      ticket: i,
    })) as unknown as Hold[];
    const decideMs: number[] = [];
    for (let i = 0; i < 20_000; i++) {
      const intent = {
        source: 'api',
        sourceClass: 'operator',
        priority: 60,
        targets: [{ kind: 'group', id: (i % 8) + 1 }],
        hold: 'none',
        liveTimeoutMs: 3000,
        action: 'control',
        now: Date.now(),
        ticket: 1000 + i,
      } as unknown as Intent;
      const a = performance.now();
      decide(table, intent);
      decideMs.push(performance.now() - a);
    }

    const f = (x: number) => x.toFixed(0).padStart(6);
    const g = (x: number) => (x * 1000).toFixed(1).padStart(7);
    console.log(
      `\nBlackout / red flag: press → last of ${leds.length} LED nodes shows it (ms), ` +
        `status poll running (${polls} started), OSC flood ${(sent / floodS).toFixed(0)} msg/s ` +
        `(${sent} sent), load ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}\n`,
    );
    console.log(
      `(all: presses that reached every node; the figures are from those. missed: nodes per press without it after ${LOOK_TIMEOUT_MS / 1000} s)\n`,
    );
    console.log(
      `| path + look      | presses | all |    p50 |    p99 |    max | missed per press | healthy (${healthy.size}): all | p50 | p99 |`,
    );
    console.log(
      `|------------------|---------|-----|--------|--------|--------|------------------|-----|--------|--------|`,
    );
    for (const [key, ms] of missed) {
      const xs = results.get(key) ?? [];
      const hs = healthyResults.get(key) ?? [];
      const stat = (v: number[], x: number) => (v.length ? f(x) : '     –');
      console.log(
        `| ${key.padEnd(16)} | ${String(ms.length).padStart(7)} | ${String(xs.length).padStart(3)} | ${stat(xs, pct(xs, 50))} | ${stat(xs, pct(xs, 99))} | ${stat(xs, Math.max(...xs))} | ${ms.join(' ').padEnd(16)} | ${String(hs.length).padStart(3)} | ${stat(hs, pct(hs, 50))} | ${stat(hs, pct(hs, 99))} |`,
      );
    }
    for (const [key, msgs] of failures) console.log(`${key}: ${msgs.length} press(es) failed: ${msgs[0]}`);
    if (oscStats) console.log(`\nOSC: ${JSON.stringify(oscStats)}`);
    console.log(`\nCommand path (µs, 20 000 each; ${refused} admits refused by a rate limit)\n`);
    console.log(`| measure                                  |     p50 |     p99 |     max |`);
    console.log(`|------------------------------------------|---------|---------|---------|`);
    console.log(
      `| admit + end on the host's path (control) | ${g(pct(admitMs, 50))} | ${g(pct(admitMs, 99))} | ${g(Math.max(...admitMs))} |`,
    );
    console.log(
      `| decide() alone, 50 holds                 | ${g(pct(decideMs, 50))} | ${g(pct(decideMs, 99))} | ${g(Math.max(...decideMs))} |`,
    );
  } finally {
    if (floodTimer) clearInterval(floodTimer);
    await browser?.close();
    osc.close();
    await host.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
