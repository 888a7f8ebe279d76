/**
 * Many watchers: a host on a simulated fleet of `nodes` (discovered into one group
 * first, which binds every node), `clients` SSE streams connected, then a status poll of
 * the whole fleet. Reports the host's event-loop lag and RSS during the poll and whether
 * every client received every event (same count of each event type).
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnHost, type ProbeStats, type ServerMode } from './host-process.ts';

interface Client {
  counts: Map<string, number>;
  lastTask: { id: number; state: string } | null;
  close(): void;
}

function connectClient(url: string): Promise<Client> {
  return new Promise((resolve, reject) => {
    const counts = new Map<string, number>();
    const client: Client = { counts, lastTask: null, close: () => req.destroy() };
    const req = http.get(url, { headers: { accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`SSE answered ${res.statusCode}`));
      res.setEncoding('utf8');
      let buf = '';
      res.on('data', (chunk: string) => {
        buf += chunk;
        let end: number;
        while ((end = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          let event = '';
          let data = '';
          for (const line of block.split('\n')) {
            if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data += line.slice(5).trim();
          }
          if (!event) continue; // keep-alive comment or retry hint
          counts.set(event, (counts.get(event) ?? 0) + 1);
          if (event === 'task' && data !== 'null') client.lastTask = JSON.parse(data) as Client['lastTask'];
        }
      });
      resolve(client);
    });
    req.on('error', reject);
  });
}

export async function post(url: string, body: unknown): Promise<Record<string, unknown>> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await r.json()) as Record<string, unknown>;
  if (!r.ok) throw new Error(`${url}: ${r.status} ${JSON.stringify(json)}`);
  return json;
}

export async function waitTask(url: string, id: number, timeoutMs: number): Promise<Record<string, unknown>> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const t = ((await (await fetch(`${url}/api/task`)).json()) as { task: Record<string, unknown> }).task;
    if (t.id === id && t.state !== 'running') return t;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`task ${id} did not end within ${timeoutMs} ms`);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface SseLoadResult {
  nodes: number;
  found: number;
  clients: number;
  timeScale: number;
  pollWallMs: number;
  pollResult: unknown;
  stats: ProbeStats;
  /** Events per client during the poll, by type: min and max over all clients. */
  perClient: Record<string, { min: number; max: number }>;
  everyClientGotEveryEvent: boolean;
}

/**
 * The simulated fleet in its own process, served over TCP (`npm run sim`), so the host is
 * measured as it runs against a real gateway: without 300 simulated nodes in its heap.
 */
export async function startSimProcess(o: {
  nodes: number;
  timeScale: number;
}): Promise<{ port: number; stop(): void }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/sim/cli.ts',
      ...['--listen', '127.0.0.1:0', '--sim-nodes', String(o.nodes), '--sim-seed', '1'],
      ...['--sim-time-scale', String(o.timeScale), '--log-level', 'info'],
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      const m = /"port":(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`sim exited with ${code}`)));
  });
  return { port, stop: () => child.kill('SIGTERM') };
}

export async function sseLoad(
  mode: ServerMode,
  o: { nodes: number; clients: number; timeScale: number; simProcess?: boolean },
): Promise<SseLoadResult> {
  const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-bench-sse-'));
  const sim = o.simProcess ? await startSimProcess(o) : null;
  const gateway = sim
    ? ['--gateway', `tcp:127.0.0.1:${sim.port}`]
    : [
        '--gateway',
        'sim',
        '--sim-nodes',
        String(o.nodes),
        '--sim-seed',
        '1',
        '--sim-time-scale',
        String(o.timeScale),
      ];
  const host = await spawnHost(mode, dataDir, gateway);
  try {
    // Let the fleet boot (2 s simulated boot spread), then bind every node with a discovery.
    await sleep(Math.max(500, 3000 * o.timeScale));
    const gid = (await post(`${host.url}/api/groups/create`, { name: 'Bench' })).id as number;
    const disc = (await post(`${host.url}/api/discover`, { targetGroupId: gid })).task as { id: number };
    const discDone = await waitTask(host.url, disc.id, 30 * 60_000);
    const found = ((discDone.result ?? {}) as { found?: number }).found ?? 0;

    const clients = await Promise.all(
      Array.from({ length: o.clients }, () => connectClient(`${host.url}/sse`)),
    );
    // Every client has its connect snapshot (master + task) before the poll starts.
    while (clients.some((c) => (c.counts.get('task') ?? 0) < 1)) await sleep(20);
    await sleep(300);
    const before = clients.map((c) => new Map(c.counts));
    await host.resetLag();
    const t0 = performance.now();
    const st = (await post(`${host.url}/api/status`, {})).task as { id: number };
    while (!clients.every((c) => c.lastTask?.id === st.id && c.lastTask.state !== 'running')) await sleep(10);
    const pollWallMs = performance.now() - t0;
    await sleep(400); // coalesced refresh/master events still in flight
    const stats = await host.stats();
    if (process.env.BENCH_SNAPSHOT) await host.snapshot(process.env.BENCH_SNAPSHOT);
    const done = await waitTask(host.url, st.id, 10_000);

    const perClient: Record<string, { min: number; max: number }> = {};
    const types = new Set(clients.flatMap((c) => [...c.counts.keys()]));
    for (const t of types) {
      const deltas = clients.map((c, i) => (c.counts.get(t) ?? 0) - (before[i]?.get(t) ?? 0));
      perClient[t] = { min: Math.min(...deltas), max: Math.max(...deltas) };
    }
    for (const c of clients) c.close();
    return {
      nodes: o.nodes,
      found,
      clients: o.clients,
      timeScale: o.timeScale,
      pollWallMs,
      pollResult: done.result,
      stats,
      perClient,
      everyClientGotEveryEvent: Object.values(perClient).every((v) => v.min === v.max),
    };
  } finally {
    await host.stop();
    sim?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
