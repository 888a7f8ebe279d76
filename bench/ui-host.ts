/**
 * The two sides of bench/ui.ts: the host as its own process, started as an operator starts
 * it (the built server with `npm start`'s Node flags), optionally under
 * ../shared/tools/pi-class.sh (a quarter of one core, about a Raspberry Pi 4), while the
 * browser and the measuring run here at full speed. For the Blackout figures the simulated
 * gateway and fleet run in the bench process (they stand for the radio hardware, not for
 * the Pi's CPU) and the host reaches them over TCP, as it would a ser2net-style gateway.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ScaledClock } from '../src/clock.ts';
import { createFleet, type SimFleet } from '../src/sim/fleet.ts';
import { startSimTcpServer } from '../src/sim/sim-host.ts';
import { freePort } from '../test/integration/harness.ts';
import { ask, DIST_MAIN, extraNodeFlags, startEnv, startFlags, type ProbeStats } from './host-process.ts';

export const PI_CLASS = resolve('..', 'shared', 'tools', 'pi-class.sh');
export const piClassAvailable = (): boolean => existsSync(PI_CLASS);

/** Builds dist/server when a bundled source changed (as `npm start` does). */
export function buildServerIfStale(): void {
  const b = spawnSync(process.execPath, ['scripts/build-server.mjs', '--if-stale'], { stdio: 'inherit' });
  if (b.status !== 0) throw new Error('server build failed');
}

export interface UiHost {
  /** http://127.0.0.1:<port>/lightnet */
  url: string;
  readyMs: number;
  get<T>(path: string): Promise<T>;
  post<T>(path: string, body: unknown): Promise<{ status: number; body: T }>;
  /**
   * The host's own figures from bench/probe.mjs (preloaded): event-loop delay since the
   * last `resetLag`, CPU time, memory.
   */
  stats(): Promise<ProbeStats>;
  resetLag(): Promise<void>;
  /** Writes a heap snapshot of the host to `file` (investigations). */
  snapshot(file: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Starts `node <start flags> dist/server/main.js` (under pi-class.sh when `piClass`) with
 * `args` (gateway options), silent logs, no Wi-Fi, on a free port; resolves once
 * /api/health says phase ready. `root`: the checkout whose built server and UI to run
 * (default: this one; another is e.g. a worktree of main for a before/after in one run).
 */
export async function startUiHost(
  dataDir: string,
  args: string[],
  piClass: boolean,
  root?: string,
): Promise<UiHost> {
  const port = await freePort();
  const node = [
    process.execPath,
    // The probe answers over the IPC channel, which pi-class.sh passes on (an inherited fd).
    '--import',
    './bench/probe.mjs',
    ...startFlags(),
    ...extraNodeFlags(),
    DIST_MAIN,
    ...['--port', String(port), '--data-dir', dataDir, '--log-level', 'silent', '--wifi', 'none'],
    ...args,
  ];
  const [cmd, ...rest] = piClass ? ['bash', PI_CLASS, ...node] : node;
  const t0 = performance.now();
  // Its own process group: pi-class.sh's child and the host stop together.
  const child: ChildProcess = spawn(cmd!, rest, {
    // Its stdout carries only what extra Node flags print (e.g. --trace-gc): logs are silent.
    stdio: ['ignore', extraNodeFlags().length ? 'inherit' : 'ignore', 'inherit', 'ipc'],
    detached: true,
    env: { ...process.env, ...startEnv() },
    cwd: root,
  });
  const url = `http://127.0.0.1:${port}/lightnet`;
  let exit: string | null = null;
  const exited = new Promise<void>((r) =>
    child.once('exit', (code, signal) => {
      exit = `exited (code ${code}, signal ${signal})`;
      r();
    }),
  );
  // A request that fails says whether the host is gone (and how) or only not answering.
  const call = async (path: string, init?: RequestInit): Promise<Response> => {
    try {
      return await fetch(`${url}${path}`, init);
    } catch (err) {
      throw new Error(`host ${exit ?? 'running'}: ${path}: ${(err as Error).message}`, { cause: err });
    }
  };
  let readyMs = -1;
  while (readyMs < 0) {
    if (child.exitCode !== null) throw new Error(`host exited with ${child.exitCode}`);
    if (performance.now() - t0 > 120_000) throw new Error('host not ready in 120 s');
    const phase = await fetch(`${url}/api/health`).then(
      async (r) => ((await r.json()) as { phase?: string }).phase,
      () => undefined,
    );
    if (phase === 'ready') readyMs = performance.now() - t0;
    else await new Promise((r) => setTimeout(r, 10));
  }
  return {
    url,
    readyMs,
    get: async <T>(path: string) => (await (await call(path)).json()) as T,
    post: async <T>(path: string, body: unknown) => {
      const r = await call(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: r.status, body: (await r.json()) as T };
    },
    stats: () => ask<ProbeStats>(child, 'stats', 'cpuMs'),
    resetLag: async () => {
      await ask(child, 'reset', 'reset');
    },
    snapshot: async (file) =>
      (await ask<{ snapshot: string }>(child, `snapshot:${file}`, 'snapshot')).snapshot,
    stop: async () => {
      const pgid = child.pid!;
      if (child.exitCode === null) process.kill(-pgid, 'SIGTERM');
      await exited;
      // pi-class.sh may exit before the host has finished its shutdown: wait for the group.
      for (let i = 0; groupAlive(pgid); i++) {
        if (i === 600) process.kill(-pgid, 'SIGKILL');
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface BenchFleet {
  fleet: SimFleet;
  /** The host's --gateway value: tcp:127.0.0.1:<port>. */
  gateway: string;
  stop(): Promise<void>;
}

/**
 * A simulated gateway and `nodes` nodes in this process, served over TCP (real time).
 * With `groups`, a field an earlier host run bound: once every node is powered, node i is
 * in group (i % groups) + 1 with this gateway its master — a node straight from power-on
 * has no master and, with its MAC filter on, drops everything but DEVICES and SET_GROUP,
 * so it would never answer a status poll.
 */
export async function startBenchFleet(nodes: number, seed: number, groups = 0): Promise<BenchFleet> {
  const fleet = createFleet({ nodes, seed, clock: new ScaledClock(1) });
  fleet.start();
  await fleet.gateway.whenBooted();
  if (groups > 0) {
    // Power-on clears the group and master (boot values): bind only after every node is on.
    while (fleet.nodes.some((n) => !n.isPowered)) await new Promise((r) => setTimeout(r, 50));
    fleet.sched.runExternal(() =>
      fleet.nodes.forEach((n, i) => {
        n.groupId = (i % groups) + 1;
        n.master = fleet.gateway.addr;
      }),
    );
  }
  const server = await startSimTcpServer({ host: '127.0.0.1', port: 0, fleet });
  return {
    fleet,
    gateway: `tcp:127.0.0.1:${server.port}`,
    stop: async () => {
      fleet.stop();
      await server.close();
    },
  };
}

/** Waits until no task runs on the host (a status poll ended or was cancelled). */
export async function tasksSettled(host: UiHost, timeoutMs = 120_000): Promise<void> {
  const t0 = performance.now();
  for (;;) {
    const { task } = await host.get<{ task: { state?: string } | null }>('/api/task');
    if (task?.state !== 'running') return;
    if (performance.now() - t0 > timeoutMs) throw new Error('a task still runs');
    await new Promise((r) => setTimeout(r, 50));
  }
}
