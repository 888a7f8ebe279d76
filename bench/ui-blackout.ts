/**
 * The Blackout rows of bench/ui.ts: click → the first off frame on the simulated gateway,
 * idle and during a status poll of a 300-node field that answers, with the host here or
 * under pi-class (bench/ui-host.ts).
 *
 * The field is bound as an earlier host run leaves it (16 groups, this gateway their
 * master; a node fresh from power-on has no master and drops STATUS). One full poll runs
 * first, to show how many nodes answer. Blackout cancels the running task, so each click
 * gets its own poll, clicked 0.3–5 s after the poll started (seeded, so both sides get the
 * same delays): that spreads the clicks over the poll's first group — broadcast, the reply
 * burst, the unicast follow-up.
 *
 * Each click is split where the clocks allow (the page and this process read the same
 * system clock): the browser's part (click → the request leaves, from the page's resource
 * timing), the host's part (request sent → the frame on the gateway: HTTP, route, driver,
 * TCP to the simulator) and the host's whole answer (request sent → response head, which
 * waits for the frame's on-air outcome). The host's event-loop delay (bench/probe.mjs)
 * is read per row.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { newDevice } from '../src/domain/model.ts';
import { serializeState } from '../src/state/migrations.ts';
import { Prng } from '../src/util/prng.ts';
import type { BrowserHandle } from '../test/e2e/browser.ts';
import { fleetState } from './fleet-state.ts';
import type { ProbeStats } from './host-process.ts';
import { startBenchFleet, startUiHost, tasksSettled, type UiHost } from './ui-host.ts';

const NODES = 300;
const GROUPS = 16;

export interface Click {
  /** Click → first off frame on the gateway. */
  total: number;
  /** Click → the request leaves the browser (handler, fetch). */
  browser: number;
  /** Request sent → first off frame on the gateway. */
  host: number;
  /** Request sent → response head (the host waits for the on-air outcome). */
  response: number;
  /** Nodes the poll had heard from when the click came (poll rows). */
  answered?: number;
}

export interface BlackoutRow {
  poll: boolean;
  clicks: Click[];
  /** Clicks without an off frame on the gateway or without timing (HTTP status). */
  failures: string[];
  /** Host event-loop delay and CPU during the row. */
  lag: ProbeStats['lag'];
  hostCpuMs: number;
  wallMs: number;
}

export interface BlackoutSide {
  /** The full poll before the poll row: answered of expected, in ms. */
  fullPoll: { answered: number; expected: number; offline: number; ms: number };
  rows: BlackoutRow[];
}

interface TaskView {
  task: {
    state?: string;
    meta?: { answered?: number; total?: number };
    result?: { updated?: number; offline?: number };
  } | null;
}

// Page-side (plain JS: the bench's TypeScript has no DOM types). The resource timings are
// cleared before each click: the buffer holds 250 entries, and the page fetches a lot.
const CLICK = `(() => {
  performance.clearResourceTimings();
  const t = performance.timeOrigin + performance.now();
  document.querySelector('[data-testid=blackout]').click();
  return t;
})()`;
const TIMING = `(() => {
  const e = performance.getEntriesByType('resource').filter((x) => x.name.endsWith('/api/blackout')).pop();
  return e ? { sent: performance.timeOrigin + e.requestStart, head: performance.timeOrigin + e.responseStart } : null;
})()`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function startPoll(host: UiHost): Promise<void> {
  const r = await host.post('/api/status', {});
  if (r.status !== 200 && r.status !== 202)
    throw new Error(`status poll: ${r.status} ${JSON.stringify(r.body)}`);
}

/** Returns null when this UI has no Blackout button. */
export async function blackoutSide(
  b: BrowserHandle,
  piClass: boolean,
  clicks: number,
): Promise<BlackoutSide | null> {
  const sim = await startBenchFleet(NODES, 5, GROUPS);
  const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-bench-ui-blackout-'));
  let h: UiHost | null = null;
  try {
    // The sim fleet as stored devices, in the groups the field is bound to.
    const state = fleetState(0, GROUPS);
    sim.fleet.nodes.forEach((node, i) => {
      const d = newDevice(node.addr, node.mac.replace(/:/g, ''), node.devType);
      d.groupId = (i % GROUPS) + 1;
      state.devices.push(d);
    });
    await writeFile(join(dataDir, 'state.json'), serializeState(state));
    h = await startUiHost(dataDir, ['--gateway', sim.gateway], piClass);
    const host = h;
    const page = b.page;
    await page.goto(host.url + '/');
    await page.locator('.title-row', { hasText: `${NODES} shown` }).waitFor({ timeout: 60_000 });
    if ((await page.getByTestId('blackout').count()) === 0) return null;

    let firstAt = 0;
    const off = sim.fleet.gateway.events.on('m2n', (f) => {
      // The off broadcast taken for transmission (not one refused while the radio was busy;
      // the poll's own broadcasts are STATUS, opcode 0x03).
      if (!firstAt && f.outcome === 'tx' && f.receiver === 'FFFFFF' && (f.typeFull & 0x7f) !== 0x03)
        firstAt = performance.timeOrigin + performance.now();
    });
    const failures: string[] = [];
    const click = async (): Promise<Click | null> => {
      firstAt = 0;
      const done = page.waitForResponse((r) => r.url().endsWith('/api/blackout'));
      const clickedAt = (await page.evaluate(CLICK)) as number;
      const res = await done;
      const rt = (await page.evaluate(TIMING)) as { sent: number; head: number } | null;
      // A click with no off frame taken by the gateway (or no timing) is counted, not fatal.
      if (!firstAt || !rt) failures.push(`HTTP ${res.status()}, frame ${firstAt ? 'seen' : 'not seen'}`);
      // The page has finished with this one (a click while one is in flight is ignored).
      await page.locator('[data-testid=blackout][aria-busy=false]').waitFor();
      if (!firstAt || !rt) return null;
      return {
        total: firstAt - clickedAt,
        browser: rt.sent - clickedAt,
        host: firstAt - rt.sent,
        response: rt.head - rt.sent,
      };
    };

    const rows: BlackoutRow[] = [];
    const row = async (poll: boolean, each: (i: number) => Promise<Click | null>): Promise<void> => {
      failures.length = 0;
      await host.resetLag();
      const c0 = (await host.stats()).cpuMs;
      const t0 = performance.now();
      const out: Click[] = [];
      for (let i = 0; i < clicks; i++) {
        const c = await each(i);
        if (c) out.push(c);
        if (process.env.BENCH_DEBUG)
          console.log(`${poll ? 'poll' : 'idle'} click ${i}: ${JSON.stringify(out.at(-1))}`);
      }
      const s = await host.stats();
      rows.push({
        poll,
        clicks: out,
        failures: [...failures],
        lag: s.lag,
        hostCpuMs: s.cpuMs - c0,
        wallMs: performance.now() - t0,
      });
    };
    try {
      await row(false, click);

      const p0 = performance.now();
      await startPoll(host);
      await tasksSettled(host, 600_000);
      const full = (await host.get<TaskView>('/api/task')).task;
      const fullPoll = {
        answered: full?.result?.updated ?? 0,
        expected: full?.meta?.total ?? NODES,
        offline: full?.result?.offline ?? 0,
        ms: performance.now() - p0,
      };

      const delays = new Prng('blackout-delays');
      await row(true, async () => {
        await startPoll(host);
        await sleep(300 + delays.next() * 4700);
        const c = await click();
        // Blackout cancelled the poll: wait until it ended, then read how far it got.
        await tasksSettled(host);
        if (c) c.answered = (await host.get<TaskView>('/api/task')).task?.meta?.answered ?? 0;
        return c;
      });
      return { fullPoll, rows };
    } finally {
      off();
    }
  } finally {
    await h?.stop();
    await sim.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
