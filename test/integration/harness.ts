/**
 * Integration harness: starts the real host in-process on the simulated fleet
 * (memory link, scaled clock) in a temp data dir, and gives a test an HTTP client
 * and an SSE reader. Everything is torn down afterwards.
 */
import { parseUniverse, type UniverseSpec } from '../../src/domain/dmx-universes.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SteppedClock } from '../../src/clock.ts';
import type { Config } from '../../src/config/index.ts';
import { startHost, type HostHandle, type HostOverrides } from '../../src/host/index.ts';
import { silentLogger, createLogger } from '../../src/logger.ts';
import type { TaskSnapshot } from '../../src/tasks/task-manager.ts';

export interface HostOptions {
  nodes?: number;
  seed?: number;
  timeScale?: number;
  dataDir?: string;
  /** The simulator's own folder (default: the data dir itself). */
  simDataDir?: string;
  password?: string;
  allowedHosts?: string[];
  prefix?: string;
  wifi?: 'nmcli' | 'none';
  /** With `wifi: 'none'`: chosen because nmcli is missing (Config.wifiMissing). */
  wifiMissing?: string;
  /** Default: the in-process simulator on a memory link. */
  gateway?: Config['gateway'];
  overrides?: HostOverrides;
  /** Run as managed by a timing-application plugin with this shared secret. */
  integrationSecret?: string;
  /** Simulated gateways, each with its own fleet of `nodes` (default 1). */
  simGateways?: number;
  /** Several gateways (the `--gateway` list); `gateway` is then the first. */
  gateways?: Config['gateway'][];
  /** `--osc-port` (0: any free port; the host says which in `osc.port`), `--osc-rate`, `--osc-feedback`. */
  osc?: { port: number; rate?: number; feedback?: { host: string; port: number }[] };
  /** `--mqtt` and its options. */
  mqtt?: Config['mqtt'];
  /** `--dmx` inputs (`sacn:1`, `artnet:0.0.1`) on any free ports (the host says which in `dmx.ports`). */
  dmx?: string[];
}

export interface HttpResult<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

export interface Harness {
  host: HostHandle;
  dataDir: string;
  url: string;
  get<T = Record<string, unknown>>(path: string, init?: RequestInit): Promise<HttpResult<T>>;
  post<T = Record<string, unknown>>(path: string, body?: unknown, init?: RequestInit): Promise<HttpResult<T>>;
  patch<T = Record<string, unknown>>(
    path: string,
    body?: unknown,
    init?: RequestInit,
  ): Promise<HttpResult<T>>;
  put<T = Record<string, unknown>>(path: string, body?: unknown, init?: RequestInit): Promise<HttpResult<T>>;
  /** The live stream; `query` adds opt-ins, e.g. `console=1`. */
  sse(query?: string): Promise<SseReader>;
  /** Waits (via the task endpoint's SSE events) until the task with this id ends. */
  waitTask(id: number, timeoutMs?: number): Promise<TaskSnapshot>;
}

export function testConfig(dataDir: string, o: HostOptions = {}): Config {
  return {
    port: 0,
    host: '127.0.0.1',
    prefix: o.prefix ?? '/lightnet',
    dataDir,
    // The temp folder is the simulator's own (every test runs on it) unless a test sets one.
    simDataDir: o.simDataDir ?? dataDir,
    gateway: o.gateway ?? { kind: 'sim' },
    gatewayText: o.gateway?.kind ?? 'sim',
    simNodes: o.nodes ?? 6,
    simSeed: o.seed ?? 7,
    simTimeScale: o.timeScale ?? 0.1,
    wifi: o.wifi ?? 'none',
    wifiMissing: o.wifiMissing ?? null,
    password: o.password ?? null,
    allowedHosts: o.allowedHosts ?? [],
    logLevel: 'silent',
    configFile: null,
    ...(o.simGateways ? { simGateways: o.simGateways } : {}),
    ...(o.gateways?.[0] ? { gateways: o.gateways, gateway: o.gateways[0] } : {}),
    ...(o.integrationSecret ? { integration: 'rotorhazard', integrationSecret: o.integrationSecret } : {}),
    ...(o.mqtt ? { mqtt: o.mqtt } : {}),
    ...(o.dmx ? { dmx: o.dmx.map(dmxInput), dmxSacnPort: 0, dmxArtnetPort: 0 } : {}),
    ...(o.osc ? { oscPort: o.osc.port, oscRate: o.osc.rate ?? 50, oscFeedback: o.osc.feedback ?? [] } : {}),
  };
}

function dmxInput(text: string): UniverseSpec {
  const u = parseUniverse(text);
  if (typeof u === 'string') throw new Error(u);
  return u;
}

export async function withHost<T>(o: HostOptions, fn: (h: Harness) => Promise<T>): Promise<T> {
  const dataDir = o.dataDir ?? (await mkdtemp(join(tmpdir(), 'lightnet-it-')));
  const log = process.env.LIGHTNET_TEST_LOG ? createLogger(process.env.LIGHTNET_TEST_LOG) : silentLogger();
  // Virtual time advancing per event-loop turn: a loaded machine slows the radio down
  // uniformly instead of firing timeouts early, so scenarios do not flake under load.
  const clock = o.timeScale === undefined ? new SteppedClock(1).start() : undefined;
  let host: HostHandle;
  try {
    host = await startHost(testConfig(dataDir, o), log, { simClock: clock, ...o.overrides });
  } catch (err) {
    // A host that failed to start leaves no temp folder and no running clock behind.
    clock?.stop();
    if (!o.dataDir) await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  const readers: SseReader[] = [];
  const request = async <R>(
    method: string,
    path: string,
    body?: unknown,
    init: RequestInit = {},
  ): Promise<HttpResult<R>> => {
    const headers = new Headers(init.headers);
    if (body !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
    const res = await fetch(host.url + path, {
      ...init,
      method,
      headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* non-JSON bodies stay text so tests can assert on them */
    }
    return { status: res.status, body: parsed as R, headers: res.headers };
  };
  const h: Harness = {
    host,
    dataDir,
    url: host.url,
    get: (path, init) => request('GET', path, undefined, init),
    post: (path, body, init) => request('POST', path, body, init),
    patch: (path, body, init) => request('PATCH', path, body, init),
    put: (path, body, init) => request('PUT', path, body, init),
    sse: async (query) => {
      const r = await SseReader.connect(host.url + '/sse' + (query ? `?${query}` : ''));
      readers.push(r);
      return r;
    },
    waitTask: async (id, timeoutMs = 60_000) => {
      const current = host.services.tasks.current();
      if (current && current.id === id && current.state !== 'running') return current;
      return new Promise<TaskSnapshot>((resolve, reject) => {
        const timer = setTimeout(() => {
          off();
          reject(new Error(`task ${id} did not end within ${timeoutMs} ms`));
        }, timeoutMs);
        const off = host.services.bus.on('task', (t) => {
          if (t.id === id && t.state !== 'running') {
            clearTimeout(timer);
            off();
            resolve(t);
          }
        });
      });
    },
  };
  try {
    return await fn(h);
  } finally {
    for (const r of readers) r.close();
    await host.close();
    clock?.stop();
    if (!o.dataDir) await rm(dataDir, { recursive: true, force: true });
  }
}

export interface SseEvent {
  event: string;
  data: unknown;
}

/** Reads an SSE stream with fetch and parses events; tests wait on predicates. */
export class SseReader {
  readonly events: SseEvent[] = [];
  comments = 0;
  private waiters: { pred: (e: SseEvent) => boolean; resolve: (e: SseEvent) => void }[] = [];
  private constructor(
    private readonly abort: AbortController,
    readonly headers: Headers,
  ) {}

  static async connect(url: string): Promise<SseReader> {
    const abort = new AbortController();
    const res = await fetch(url, { headers: { accept: 'text/event-stream' }, signal: abort.signal });
    if (!res.body) throw new Error('no SSE body');
    const reader = new SseReader(abort, res.headers);
    void reader.pump(res.body);
    return reader;
  }

  /** Resolves with the first event (already received or future) that matches. */
  waitFor(
    event: string,
    pred: (data: unknown) => boolean = () => true,
    timeoutMs = 30_000,
  ): Promise<SseEvent> {
    const match = (e: SseEvent): boolean => e.event === event && pred(e.data);
    const found = this.events.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no SSE "${event}" event matched within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.waiters.push({
        pred: match,
        resolve: (e) => {
          clearTimeout(timer);
          resolve(e);
        },
      });
    });
  }

  close(): void {
    this.abort.abort();
  }

  private async pump(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for await (const chunk of body) {
        buf += decoder.decode(chunk, { stream: true });
        let idx;
        while ((idx = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, idx);
          buf = buf.slice(idx + 2);
          this.parse(block);
        }
      }
    } catch {
      /* aborted */
    }
  }

  private parse(block: string): void {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) this.comments++;
      else if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
    }
    if (data.length === 0) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(data.join('\n'));
    } catch {
      parsed = data.join('\n');
    }
    const e = { event, data: parsed };
    this.events.push(e);
    this.waiters = this.waiters.filter((w) => {
      if (!w.pred(e)) return true;
      w.resolve(e);
      return false;
    });
  }
}

/** A TCP port that was free a moment ago (for child processes that need a fixed port). */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      srv.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });

/**
 * Starts the real CLI (`src/main.ts`) on the simulator in a child process and resolves
 * once /api/health says ready.
 */
export async function startCli(dataDir: string, port: number, extra: string[] = []): Promise<ChildProcess> {
  const args = [
    '--import',
    'tsx',
    'src/main.ts',
    '--gateway',
    'sim',
    '--port',
    String(port),
    '--data-dir',
    dataDir,
    // The temp folder is the simulator's own (as in testConfig).
    '--sim-data-dir',
    dataDir,
  ];
  const child = spawn(process.execPath, [...args, ...extra], { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = `http://127.0.0.1:${port}/lightnet/api/health`;
  for (let i = 0; i < 1500; i++) {
    if (child.exitCode !== null) throw new Error(`host exited with ${child.exitCode}`);
    try {
      const r = await fetch(url);
      if (r.ok && ((await r.json()) as { phase: string }).phase === 'ready') return child;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  child.kill('SIGKILL');
  throw new Error('host did not become ready');
}
