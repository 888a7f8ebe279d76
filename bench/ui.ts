/**
 * Browser benchmark of the web UI (issue 20): Debian's chromium through playwright-core
 * against the real host, at 300 and 1 000 stored devices, 1280×800:
 *  - open → rows rendered (navigation start to the first device row, median of --runs),
 *  - sort click, select-all click, one filter keystroke (input → next frame painted),
 *  - Devices → Health page (nav click → its table drawn),
 *  - scrolling the table to the end (script-set scrollTop, a third of the box per frame)
 *    and back to the top (mouse-wheel input, as a user scrolls): long tasks over 50 ms,
 *    worst and mean frame,
 *  - cold open: a new browser profile each time (nothing cached) → the first row, the host
 *    running a 300-node simulated fleet it discovered and polled (issue 40), median, p90
 *    and range of --cold-runs (default max(--runs, 10)); with --before DIR also the host
 *    and UI of another checkout (e.g. a worktree of main), both up at once and the opens
 *    alternating between them,
 *  - Blackout click → first off frame received by the simulated gateway (p50/p99/max of
 *    --clicks), idle and during a status poll of a bound 300-node field that answers,
 *    split into the browser's and the host's part, with the host's event-loop delay
 *    (bench/ui-blackout.ts).
 * The host runs as its own process, the built server as `npm start` runs it
 * (bench/ui-host.ts); with --pi-class the cold open and Blackout rows are measured twice in
 * one run: host here, and host under ../shared/tools/pi-class.sh (a quarter of one core,
 * about a Raspberry Pi 4) — the browser and the measuring side always run at full speed.
 * For Blackout the simulated gateway and its 300 nodes run in this process (they stand for
 * the radio) and the host reaches them over TCP. Prints tables; asserts nothing. Builds
 * the UI (and the server, when stale) first unless --no-build.
 *
 * BENCH_DEBUG=1 prints every Blackout click's latency as it is measured.
 *
 * `--trace DIR` also writes a chromium trace of each scroll (DIR/scroll-N.json, for
 * chrome://tracing or the DevTools performance panel) to see what a long task did.
 *
 *   npx tsx bench/ui.ts [-- --runs 5 --clicks 30 --sizes 300,1000 --pi-class --no-build
 *                          --skip-table --skip-cold --skip-blackout --trace DIR
 *                          --cold-runs N --before DIR]
 *
 * Targets: cold open → first row median <= 400 ms and p90 <= 600 ms (host here), <= 1.5 s
 * (host under pi-class) (issue 40); Blackout p99 <= 60 ms with the host under pi-class
 * during a 300-node poll (issue 29).
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { build } from 'vite';
import { serializeState } from '../src/state/migrations.ts';
import { openBrowser, type BrowserHandle } from '../test/e2e/browser.ts';
import { fleetState } from './fleet-state.ts';
import { blackoutSide } from './ui-blackout.ts';
import {
  buildServerIfStale,
  piClassAvailable,
  startBenchFleet,
  startUiHost,
  tasksSettled,
  type UiHost,
} from './ui-host.ts';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const runs = Number(arg('runs')) || 5;
const clicks = Number(arg('clicks')) || 30;
const sizes = (arg('sizes') ?? '300,1000').split(',').map(Number);
const traceDir = arg('trace');
const flag = (name: string): boolean => process.argv.includes(`--${name}`);
const sides: boolean[] = flag('pi-class') ? [false, true] : [false];
const sideName = (pi: boolean): string => (pi ? 'host under pi-class' : 'host here');

type Page = BrowserHandle['page'];

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)]! : NaN;
};
const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]! : NaN;
};
const fmt = (n: number): string => (Number.isFinite(n) ? n.toFixed(0) : 'n/a');

/** Varied rows: names, battery (1S/2S/6S), signal, online state, over 16 groups. */
function stateFor(n: number): string {
  const s = fleetState(n, 16);
  s.devices.forEach((d, i) => {
    d.name = `Gate ${String(i + 1).padStart(4, '0')}`;
    d.voltage_mV = [0, 3900, 7600, 22800, 3300][i % 5]!;
    d.node_rssi = -70 - (i % 40);
    d.node_snr = 8 - (i % 15);
    d.host_snr = 7 - (i % 13);
    d.version = 2;
    d.effectId = i % 10;
    d.last_seen_ts = 1_700_000_000 + i;
  });
  return serializeState(s);
}

/**
 * (The selectors fit the table of every version since 5fb5e9e — rows with data-addr and
 * sort buttons inside data-testid=device-table — so this file can measure an older
 * checkout side by side.)
 *
 * Page-side helpers, installed before every page load (plain JS: the bench's own
 * TypeScript has no DOM types). `__rowsAt` marks the first device row in the DOM.
 */
const PAGE_HELPERS = String.raw`
(() => {
  const mark = () => {
    if (document.querySelector('[data-testid=device-table] [data-addr]')) {
      window.__rowsAt = performance.now();
      return true;
    }
    return false;
  };
  const mo = new MutationObserver(() => mark() && mo.disconnect());
  addEventListener('DOMContentLoaded', () => mo.observe(document.body, { childList: true, subtree: true }));
  const nextFrame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  window.__bench = {
    // Navigation start → the frame after the first row was added.
    rowsPainted: () => new Promise((r) => requestAnimationFrame(() => r(window.__rowsAt ?? performance.now()))),
    async frameAfter(fn) {
      const t0 = performance.now();
      fn();
      await nextFrame();
      return performance.now() - t0;
    },
    search(q) {
      const el = document.querySelector('input[aria-label="Search devices"]');
      el.value = q;
      el.dispatchEvent(new Event('input', { bubbles: true }));
    },
    sortBy(label) {
      [...document.querySelectorAll('[data-testid=device-table] button.sort')]
        .find((b) => b.textContent.startsWith(label))
        .click();
    },
    async scroll() {
      const box = document.querySelector('.table-wrap');
      const long = [];
      const obs = new PerformanceObserver((l) => l.getEntries().forEach((e) => long.push(e.duration)));
      obs.observe({ type: 'longtask', buffered: false });
      const frames = [];
      let last = performance.now();
      const step = Math.max(40, box.clientHeight / 3);
      for (let i = 0; i < 150 && box.scrollTop + box.clientHeight < box.scrollHeight - 2; i++) {
        box.scrollTop += step;
        await new Promise((r) => requestAnimationFrame(() => r()));
        const now = performance.now();
        frames.push(now - last);
        last = now;
      }
      await new Promise((r) => setTimeout(r, 100));
      obs.disconnect();
      return {
        longMax: long.length ? Math.max(...long) : 0,
        longCount: long.length,
        frameMax: Math.max(...frames),
        frameMean: frames.reduce((a, b) => a + b, 0) / Math.max(1, frames.length),
        frames: frames.length,
      };
    },
    // For the wheel scroll driven from outside: records long tasks and frames until stopped.
    watchFrames() {
      const w = { long: [], frames: [], stop: false };
      w.obs = new PerformanceObserver((l) => l.getEntries().forEach((e) => w.long.push(e.duration)));
      w.obs.observe({ type: 'longtask', buffered: false });
      let last = performance.now();
      const tick = () => {
        const now = performance.now();
        w.frames.push(now - last);
        last = now;
        if (!w.stop) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
      window.__watch = w;
    },
    async endWatch() {
      await new Promise((r) => setTimeout(r, 100));
      const w = window.__watch;
      w.stop = true;
      w.obs.disconnect();
      return {
        longMax: w.long.length ? Math.max(...w.long) : 0,
        longCount: w.long.length,
        frameMax: Math.max(...w.frames),
        frameMean: w.frames.reduce((a, b) => a + b, 0) / Math.max(1, w.frames.length),
        frames: w.frames.length,
      };
    },
    // Click a nav link, then wait (frame by frame) until the selector is in the page: ms to the frame after.
    async navTo(link, selector) {
      const t0 = performance.now();
      [...document.querySelectorAll('a')].find((a) => a.textContent.trim() === link).click();
      while (!document.querySelector(selector)) await new Promise((r) => requestAnimationFrame(r));
      await nextFrame();
      return performance.now() - t0;
    },
    // What a cold open did before its first row (ms from navigation start; bytes as sent).
    coldFacts() {
      const at = window.__rowsAt ?? performance.now();
      const res = performance.getEntriesByType('resource').filter((e) => e.startTime < at);
      const api = res.filter((e) => e.name.includes('/api/'));
      const js = res.filter((e) => /\.m?js(\?|$)/.test(new URL(e.name).pathname));
      const devices = api.find((e) => new URL(e.name).pathname.endsWith('/api/devices'));
      const nav = performance.getEntriesByType('navigation')[0];
      return {
        firstApi: api.length ? Math.min(...api.map((e) => e.startTime)) : NaN,
        devicesEnd: devices ? devices.responseEnd : NaN,
        scriptRun: nav ? nav.domContentLoadedEventStart : NaN,
        requests: res.length + 1,
        jsBytes: js.reduce((n, e) => n + e.encodedBodySize, 0),
        jsDecoded: js.reduce((n, e) => n + e.decodedBodySize, 0),
      };
    },
    clickBlackout() {
      const t = performance.timeOrigin + performance.now();
      document.querySelector('[data-testid=blackout]').click();
      return t;
    },
  };
})();
`;

const inPage = <T>(page: Page, expr: string): Promise<T> => page.evaluate(expr) as Promise<T>;

/**
 * CPU time (ms) the renderer's main thread has spent in tasks, DevTools commands left
 * out: on a loaded machine wall times stretch, this does not (threadTicks time domain).
 */
type Cpu = () => Promise<number>;
async function cpuMeter(b: BrowserHandle): Promise<Cpu> {
  const cdp = await b.context.newCDPSession(b.page);
  await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
  return async () => {
    const m = (await cdp.send('Performance.getMetrics')).metrics;
    const v = (n: string): number => m.find((x) => x.name === n)?.value ?? 0;
    return (v('TaskDuration') - v('DevToolsCommandDuration')) * 1000;
  };
}

/**
 * The renderer main thread's rendering work so far (threadTicks: CPU, not wall): style
 * recalculations and layouts (ms and how many), script ms. A layout forced by script during
 * a render adds one to the count; a page that leaves layout to the frame has one or two.
 */
interface RenderWork {
  styleMs: number;
  styles: number;
  layoutMs: number;
  layouts: number;
  scriptMs: number;
}
async function renderMeter(b: BrowserHandle): Promise<() => Promise<RenderWork>> {
  const cdp = await b.context.newCDPSession(b.page);
  await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
  return async () => {
    const m = (await cdp.send('Performance.getMetrics')).metrics;
    const v = (n: string): number => m.find((x) => x.name === n)?.value ?? 0;
    return {
      styleMs: v('RecalcStyleDuration') * 1000,
      styles: v('RecalcStyleCount'),
      layoutMs: v('LayoutDuration') * 1000,
      layouts: v('LayoutCount'),
      scriptMs: v('ScriptDuration') * 1000,
    };
  };
}

/** Wall ms of `run` and the renderer CPU ms it cost. */
async function measured(cpu: Cpu, run: () => Promise<number>): Promise<{ wall: number; cpu: number }> {
  const c0 = await cpu();
  const wall = await run();
  const c1 = await cpu();
  // A navigation may start the counters afresh: then all of it belongs to the new page.
  return { wall, cpu: c1 >= c0 ? c1 - c0 : c1 };
}

async function tableOpen(page: Page, url: string, n: number): Promise<number> {
  await page.goto(url);
  await page.locator('.title-row', { hasText: `${n} shown` }).waitFor({ timeout: 60_000 });
  await page.locator('[data-testid=device-table] [data-addr]').first().waitFor();
  return inPage<number>(page, 'window.__bench.rowsPainted()');
}

/** Starts a chromium trace of the page; the returned function ends it and writes it out. */
async function startTrace(b: BrowserHandle): Promise<(file: string) => Promise<void>> {
  const cdp = await b.context.newCDPSession(b.page);
  const events: unknown[] = [];
  cdp.on('Tracing.dataCollected', (e: { value: unknown[] }) => events.push(...e.value));
  await cdp.send('Tracing.start', {
    traceConfig: {
      includedCategories: [
        'devtools.timeline',
        'disabled-by-default-devtools.timeline',
        'v8.execute',
        'blink',
      ],
    },
  });
  return async (file) => {
    const done = new Promise<void>((r) => cdp.once('Tracing.tracingComplete', () => r()));
    await cdp.send('Tracing.end');
    await done;
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify({ traceEvents: events }));
    await cdp.detach();
  };
}

interface TaskEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string };
}

/**
 * Records the renderer's tasks (trace category `toplevel`, cheap enough to leave on)
 * to tell a task that spent over 50 ms on the CPU from one that only took 50 ms of wall
 * time because the OS gave the core to another thread (on 2 cores chromium's raster and
 * compositor threads, the host and the bench all compete with the page).
 */
async function taskRecorder(b: BrowserHandle): Promise<() => Promise<{ cpuLong: number; cpuMax: number }>> {
  const cdp = await b.context.newCDPSession(b.page);
  const events: TaskEvent[] = [];
  // The protocol types trace events as string maps; they carry numbers.
  cdp.on('Tracing.dataCollected', (e) => events.push(...(e.value as unknown as TaskEvent[])));
  await cdp.send('Tracing.start', { traceConfig: { includedCategories: ['toplevel'] } });
  return async () => {
    const done = new Promise<void>((r) => cdp.once('Tracing.tracingComplete', () => r()));
    await cdp.send('Tracing.end');
    await done;
    await cdp.detach();
    const main = new Set(
      events
        .filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
        .map((e) => `${e.pid}/${e.tid}`),
    );
    const cpu = events
      .filter((e) => e.ph === 'X' && main.has(`${e.pid}/${e.tid}`) && (e.dur ?? 0) > 50_000)
      .map((e) => (e.tdur ?? 0) / 1000);
    return { cpuLong: cpu.filter((ms) => ms > 50).length, cpuMax: Math.max(0, ...cpu) };
  };
}

interface ScrollFigures {
  longMax: number;
  longCount: number;
  /** Of the long tasks, those that spent over 50 ms on the CPU themselves. */
  cpuLong?: number;
  cpuMax?: number;
  frameMax: number;
  frameMean: number;
  frames: number;
  /** Renderer CPU ms per scrolled frame. */
  cpuPerFrame?: number;
}

/**
 * The table scrolled back to the top by mouse-wheel input (what a user does: the browser
 * scrolls, no script sets scrollTop), one notch of a third of the box per event, up to
 * 150 events; the page records long tasks and frames meanwhile.
 */
async function wheelScroll(page: Page, cpu: Cpu): Promise<ScrollFigures> {
  const box = await page.locator('.table-wrap').boundingBox();
  if (!box) throw new Error('no table box');
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const notch = Math.max(40, Math.round(box.height / 3));
  const c0 = await cpu();
  await inPage(page, 'window.__bench.watchFrames()');
  for (let i = 0; i < 150; i++) {
    await page.mouse.wheel(0, -notch);
    if (i % 10 === 9 && (await inPage<number>(page, "document.querySelector('.table-wrap').scrollTop")) <= 0)
      break;
  }
  const f = await inPage<ScrollFigures>(page, 'window.__bench.endWatch()');
  f.cpuPerFrame = ((await cpu()) - c0) / Math.max(1, f.frames);
  return f;
}

interface Sample {
  wall: number;
  cpu: number;
}

interface TableFigures {
  n: number;
  open: Sample[];
  sort: Sample[];
  selectAll: Sample[];
  filter: Sample[];
  /** Devices → Health page (its alert list and table drawn). */
  health: Sample[];
  /** One entry per run: scripted fling down, then wheel back up. */
  scroll: ScrollFigures[];
  wheel: ScrollFigures[];
}

async function tableBench(b: BrowserHandle, cpu: Cpu, n: number): Promise<TableFigures> {
  const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-bench-ui-'));
  try {
    // On the simulator (no nodes, real time) the state lives in the data dir's simulator/.
    await mkdir(join(dataDir, 'simulator'));
    await writeFile(join(dataDir, 'simulator', 'state.json'), stateFor(n));
    const h = await startUiHost(dataDir, ['--gateway', 'sim', '--sim-nodes', '0'], false);
    try {
      const page = b.page;
      const f: TableFigures = {
        n,
        open: [],
        sort: [],
        selectAll: [],
        filter: [],
        health: [],
        scroll: [],
        wheel: [],
      };
      for (let i = 0; i < runs; i++) f.open.push(await measured(cpu, () => tableOpen(page, h.url + '/', n)));
      const after = (js: string) =>
        measured(cpu, () => inPage<number>(page, `window.__bench.frameAfter(() => { ${js} })`));
      for (let i = 0; i < runs; i++) f.sort.push(await after(`__bench.sortBy('${i % 2 ? 'Name' : 'VBat'}')`));
      for (let i = 0; i < runs; i++) {
        f.selectAll.push(
          await after(`document.querySelector('input[aria-label="Select all visible devices"]').click()`),
        );
      }
      for (let i = 0; i < runs; i++) {
        // One keystroke (a longer query each time), then cleared (the clear is not measured).
        const q = 'Gate 00'.slice(0, 5 + (i % 3));
        f.filter.push(await after(`__bench.search(${JSON.stringify(q)})`));
        await after(`__bench.search('')`);
      }
      for (let i = 0; i < runs; i++) {
        f.health.push(
          await measured(cpu, () =>
            inPage<number>(page, `window.__bench.navTo('Health', '[data-testid=health-table] tbody tr')`),
          ),
        );
        await inPage(page, `window.__bench.navTo('Devices', '[data-testid=device-table] [data-addr]')`);
      }
      const stopTrace = traceDir ? await startTrace(b) : null;
      // Long tasks are rare events: one pass says little, so the scroll runs --runs times.
      for (let i = 0; i < runs; i++) {
        let tasks = stopTrace ? null : await taskRecorder(b);
        const c0 = await cpu();
        const down = await inPage<ScrollFigures>(page, 'window.__bench.scroll()');
        down.cpuPerFrame = ((await cpu()) - c0) / Math.max(1, down.frames);
        if (tasks) Object.assign(down, await tasks());
        f.scroll.push(down);
        tasks = stopTrace ? null : await taskRecorder(b);
        const up = await wheelScroll(page, cpu);
        if (tasks) Object.assign(up, await tasks());
        f.wheel.push(up);
      }
      if (stopTrace) await stopTrace(join(traceDir!, `scroll-${n}.json`));
      return f;
    } finally {
      await h.stop();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Load-independent evidence of a cold open (page side, before the first row). */
interface ColdFacts {
  /** ms from navigation start: the first API request sent, the device list in, the app's script run (DOMContentLoaded). */
  firstApi: number;
  devicesEnd: number;
  scriptRun: number;
  /** Requests before the first row, the document included. */
  requests: number;
  /** JavaScript before the first row: bytes on the wire and decoded. */
  jsBytes: number;
  jsDecoded: number;
}

interface ColdOpen {
  tree: string;
  hostReadyMs: number;
  /** The fleet behind the host before the opens: devices found, polled, and how long that took. */
  fleet: { devices: number; answered: number; setupMs: number };
  open: Sample[];
  facts: ColdFacts[];
  /** The renderer's style and layout work of each open, up to the first row's frame. */
  render: RenderWork[];
}

/** A checkout whose host and UI a cold open runs: this one and, with --before DIR, another. */
interface Tree {
  label: string;
  root?: string;
}
const BEFORE = arg('before');
const trees: Tree[] = BEFORE
  ? [{ label: 'before', root: resolve(BEFORE) }, { label: 'after' }]
  : [{ label: '' }];
const coldRuns = Number(arg('cold-runs')) || Math.max(runs, 10);
const FLEET = 300;

interface TaskAnswer {
  task: { state?: string; result?: { updated?: number; found?: number } } | null;
}

/**
 * The host as a user has it when a new tablet opens the console: its own process, a
 * 300-node simulated fleet behind it (in this process, over TCP, as in the Blackout bench),
 * found by a discovery from an empty state and then status-polled, so it holds 300 live
 * devices with their figures — not stored rows on an idle simulator.
 */
async function fleetHost(tree: Tree, piClass: boolean, seed: number) {
  const sim = await startBenchFleet(FLEET, seed);
  // Nodes power on over a few seconds; discovery is what an operator runs once they are.
  while (sim.fleet.nodes.some((n) => !n.isPowered)) await new Promise((r) => setTimeout(r, 50));
  const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-bench-ui-cold-'));
  let h: UiHost | null = null;
  try {
    h = await startUiHost(dataDir, ['--gateway', sim.gateway], piClass, tree.root);
    const t0 = performance.now();
    for (const path of ['/api/discover', '/api/status']) {
      const r = await h.post(path, {});
      if (r.status !== 200 && r.status !== 202)
        throw new Error(`${path}: ${r.status} ${JSON.stringify(r.body)}`);
      await tasksSettled(h, 900_000);
    }
    const polled = (await h.get<TaskAnswer>('/api/task')).task;
    const devices = (await h.get<{ devices: unknown[] }>('/api/devices')).devices.length;
    const fleet = { devices, answered: polled?.result?.updated ?? 0, setupMs: performance.now() - t0 };
    const host = h;
    return {
      h: host,
      fleet,
      stop: async () => {
        await host.stop();
        await sim.stop();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await h?.stop();
    await sim.stop();
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * A first open of the UI as a new user (or a new tablet) makes it: a new browser profile
 * each time, nothing cached, the host running a discovered and polled 300-node fleet;
 * navigation start → the first row painted. With --before, both checkouts' hosts run at
 * once (each with its own fleet) and the opens alternate between them, so the machine's
 * load falls on both alike.
 */
async function coldOpenBench(piClass: boolean): Promise<ColdOpen[]> {
  const hosts: Awaited<ReturnType<typeof fleetHost>>[] = [];
  try {
    for (const [i, tree] of trees.entries()) hosts.push(await fleetHost(tree, piClass, 40 + i));
    const out: ColdOpen[] = hosts.map((x, i) => ({
      tree: trees[i]!.label,
      hostReadyMs: x.h.readyMs,
      fleet: x.fleet,
      open: [],
      facts: [],
      render: [],
    }));
    for (let run = 0; run < coldRuns; run++) {
      for (const [i, x] of hosts.entries()) {
        const b = await openBrowser({ width: 1280, height: 800 });
        try {
          await b.page.addInitScript(PAGE_HELPERS);
          const cpu = await cpuMeter(b);
          const work = await renderMeter(b);
          out[i]!.open.push(await measured(cpu, () => tableOpen(b.page, x.h.url + '/', x.fleet.devices)));
          out[i]!.render.push(await work());
          out[i]!.facts.push(await inPage<ColdFacts>(b.page, 'window.__bench.coldFacts()'));
        } finally {
          await b.close();
        }
      }
    }
    return out;
  } finally {
    for (const x of hosts) await x.stop();
  }
}

/**
 * Long tasks of every pass and the worst, e.g. "0 0 1 0 0 (max 57) · cpu 0 (max 31)": the
 * second part counts those whose own CPU time was over 50 ms, over all passes.
 */
const longTasks = (xs: ScrollFigures[]): string =>
  `${xs.map((x) => x.longCount).join(' ')} (max ${fmt(Math.max(0, ...xs.map((x) => x.longMax)))})` +
  (xs.some((x) => x.cpuLong !== undefined)
    ? ` · cpu ${xs.reduce((n, x) => n + (x.cpuLong ?? 0), 0)} (max ${fmt(Math.max(0, ...xs.map((x) => x.cpuMax ?? 0)))})`
    : '');
/** Median frame mean / worst frame of every pass (median renderer CPU per frame). */
const frameCell = (xs: ScrollFigures[]): string =>
  `${fmt(median(xs.map((x) => x.frameMean)))} / ${fmt(Math.max(...xs.map((x) => x.frameMax)))} (${fmt(
    median(xs.map((x) => x.cpuPerFrame ?? NaN)),
  )})`;

async function main(): Promise<void> {
  if (!process.argv.includes('--no-build')) {
    await build({ configFile: join(process.cwd(), 'ui', 'vite.config.ts'), logLevel: 'warn' });
    buildServerIfStale();
    if (BEFORE) {
      const b = spawnSync('npm', ['run', 'build'], {
        cwd: resolve(BEFORE),
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      if (b.status !== 0) throw new Error(`the build in ${BEFORE} failed`);
    }
  }
  if (sides.length > 1 && !piClassAvailable())
    throw new Error('--pi-class: ../shared/tools/pi-class.sh missing');
  const load0 = loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  const b = await openBrowser({ width: 1280, height: 800 });
  await b.page.addInitScript(PAGE_HELPERS);
  try {
    const t0 = performance.now();
    const rows: TableFigures[] = [];
    const cpu = await cpuMeter(b);
    if (!flag('skip-table')) for (const n of sizes) rows.push(await tableBench(b, cpu, n));
    const cell = (xs: Sample[]): string =>
      `${fmt(median(xs.map((x) => x.wall)))} (${fmt(median(xs.map((x) => x.cpu)))})`;
    if (rows.length > 0)
      console.log(
        `\nUI table, 1280×800, median of ${runs}: wall ms (renderer CPU ms); scroll: long tasks > 50 ms in each of ${runs} passes; load ${loadavg()[0]!.toFixed(1)}`,
      );
    if (rows.length > 0)
      console.table(
        rows.map((f) => ({
          devices: f.n,
          'open→rows': cell(f.open),
          sort: cell(f.sort),
          'select all': cell(f.selectAll),
          'filter key': cell(f.filter),
          'health page': cell(f.health),
          'scroll long tasks': longTasks(f.scroll),
          'scroll frame mean/max (cpu)': frameCell(f.scroll),
          'wheel long tasks': longTasks(f.wheel),
          'wheel frame mean/max (cpu)': frameCell(f.wheel),
        })),
      );
    const range = (xs: number[]): string => `${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))}`;
    if (!flag('skip-cold')) {
      const cold: { side: string; c: ColdOpen }[] = [];
      for (const pi of sides) for (const c of await coldOpenBench(pi)) cold.push({ side: sideName(pi), c });
      const walls = (c: ColdOpen): number[] => c.open.map((x) => x.wall);
      console.log(
        `\nCold open (new browser profile each run) → first row, host running a discovered and polled ` +
          `${FLEET}-node simulated fleet, ${coldRuns} runs each: wall ms; renderer CPU ms; load ${loadavg()[0]!.toFixed(1)}`,
      );
      console.table(
        cold.map(({ side, c }) => ({
          host: c.tree ? `${c.tree}: ${side}` : side,
          'fleet: devices / answered poll (setup s)': `${c.fleet.devices} / ${c.fleet.answered} (${(c.fleet.setupMs / 1000).toFixed(0)})`,
          'host ready ms': fmt(c.hostReadyMs),
          median: fmt(median(walls(c))),
          p90: fmt(pct(walls(c), 90)),
          'min–max': range(walls(c)),
          'renderer CPU': fmt(median(c.open.map((x) => x.cpu))),
          target: side === sideName(true) ? '≤ 1500' : 'median ≤ 400, p90 ≤ 600',
        })),
      );
      console.log(
        'Before the first row (medians; ms from navigation start): first API request sent, script run (DOMContentLoaded), device list in; requests; JavaScript KiB on the wire (decoded)',
      );
      const med = (c: ColdOpen, k: keyof ColdFacts): number => median(c.facts.map((f) => f[k]));
      console.table(
        cold.map(({ side, c }) => ({
          host: c.tree ? `${c.tree}: ${side}` : side,
          'first API': fmt(med(c, 'firstApi')),
          'script run': fmt(med(c, 'scriptRun')),
          'devices in': fmt(med(c, 'devicesEnd')),
          requests: fmt(med(c, 'requests')),
          'JS KiB': `${(med(c, 'jsBytes') / 1024).toFixed(1)} (${(med(c, 'jsDecoded') / 1024).toFixed(1)})`,
        })),
      );
      console.log(
        'Renderer main thread to the first row (medians, CPU ms): style recalculation (count), layout (count), script',
      );
      const work = (c: ColdOpen, k: keyof RenderWork): number => median(c.render.map((w) => w[k]));
      console.table(
        cold.map(({ side, c }) => ({
          host: c.tree ? `${c.tree}: ${side}` : side,
          style: `${fmt(work(c, 'styleMs'))} (${fmt(work(c, 'styles'))})`,
          layout: `${fmt(work(c, 'layoutMs'))} (${fmt(work(c, 'layouts'))})`,
          script: fmt(work(c, 'scriptMs')),
        })),
      );
    }
    if (!flag('skip-blackout')) {
      const rowsB: Record<string, string>[] = [];
      const notes: string[] = [];
      const dist = (xs: number[]): string =>
        `${fmt(median(xs))} / ${fmt(pct(xs, 99))} / ${fmt(Math.max(...xs))}`;
      for (const pi of sides) {
        const side = await blackoutSide(b, pi, clicks);
        if (!side) {
          rowsB.push({ host: sideName(pi), when: 'no Blackout button' });
          continue;
        }
        const f = side.fullPoll;
        notes.push(
          `${sideName(pi)}: a full status poll before the clicks: ${f.answered} of ${f.expected} answered (${f.offline} offline) in ${(f.ms / 1000).toFixed(1)} s`,
        );
        for (const r of side.rows) {
          const v = (k: 'total' | 'browser' | 'host' | 'response') => r.clicks.map((c) => c[k]);
          const answered = r.clicks.map((c) => c.answered ?? 0);
          rowsB.push({
            host: sideName(pi),
            when: r.poll
              ? `poll (answered by the click: median ${fmt(median(answered))}, ${fmt(Math.min(...answered))}–${fmt(Math.max(...answered))})`
              : 'idle',
            'click→frame p50/p99/max': dist(v('total')),
            'browser: click→sent': dist(v('browser')),
            'host: sent→frame': dist(v('host')),
            'host: sent→response': dist(v('response')),
            'host loop delay p50/p99/max': `${r.lag.p50.toFixed(0)} / ${r.lag.p99.toFixed(0)} / ${r.lag.max.toFixed(0)}`,
            'host CPU %': fmt((100 * r.hostCpuMs) / r.wallMs),
          });
          if (r.failures.length)
            notes.push(
              `${sideName(pi)}, ${r.poll ? 'poll' : 'idle'}: ${r.failures.length} clicks not measured: ${r.failures.join('; ')}`,
            );
        }
      }
      console.log(
        `\nBlackout click → first off frame on the gateway, ${clicks} clicks per row: ms p50 / p99 / max; load ${loadavg()[0]!.toFixed(1)}`,
      );
      console.table(rowsB);
      for (const n of notes) console.log(n);
    }
    console.log(`load average at start ${load0}, at the end ${loadavg()[0]!.toFixed(1)} (2 cores)`);
    console.log(`(total ${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  } finally {
    await b.close();
  }
}

await main();
