/**
 * The real RotorHazard with the Lightnet plugin, for tests and the race-start benchmark:
 * a simulated fleet served over TCP in this process (so tests read the nodes' state), a
 * relay in front of it that timestamps every byte the host writes to the gateway, and
 * RotorHazard started by the launcher named in LIGHTNET_ROTORHAZARD (the shared
 * tools/rotorhazard.sh). The plugin starts the built host, which reaches the fleet through
 * LIGHTNET_GATEWAY=tcp:… inherited from RotorHazard's environment.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScaledClock } from '../../../src/clock.ts';
import { createFleet, type SimFleet } from '../../../src/sim/fleet.ts';
import type { SimNode } from '../../../src/sim/node/node.ts';
import { startSimTcpServer, type SimTcpServer } from '../../../src/sim/sim-host.ts';

export const RH_LAUNCHER = process.env.LIGHTNET_ROTORHAZARD ?? '';
export const rotorhazardAvailable = (): boolean => RH_LAUNCHER !== '' && existsSync(RH_LAUNCHER);
export const PLUGIN_DIR = join(process.cwd(), 'integrations', 'rotorhazard', 'lightnet');
export const ADMIN = { user: 'admin', password: 'rotorhazard' };
export const AUTH = 'Basic ' + Buffer.from(`${ADMIN.user}:${ADMIN.password}`).toString('base64');

export interface Rig {
  fleet: SimFleet;
  rhUrl: string;
  /** Wall-clock ms of each write the host made to the gateway, in order. */
  writes: number[];
  /** The bytes of each write (same index as `writes`). */
  writeBytes: Buffer[];
  rh: ChildProcess;
  /** RotorHazard's console output so far. */
  output(): string;
  waitOutput(re: RegExp, timeoutMs?: number): Promise<string>;
  /** GET/POST through RotorHazard's /lightnet proxy with the admin login. */
  api<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: T }>;
  stopRotorHazard(): Promise<number | null>;
  close(): Promise<void>;
}

function relay(targetPort: number, writes: number[], writeBytes: Buffer[]): Promise<Server> {
  const server = createServer((inbound: Socket) => {
    const out = connect(targetPort, '127.0.0.1');
    // Small frames both ways: Nagle would hold them behind delayed ACKs (40 ms).
    inbound.setNoDelay(true);
    out.setNoDelay(true);
    inbound.on('data', (b) => {
      writes.push(Date.now());
      writeBytes.push(b);
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

export async function startRig(o: {
  port: number;
  nodes?: number;
  seed?: number;
  /** The vendored RotorHazard to run (rotorhazard.sh --version); default 4.4.0. */
  version?: '4.4.0' | '4.4.1-dev';
  /** Runs with RotorHazard's data folder before RotorHazard starts (e.g. to pre-lock the plugin's). */
  beforeStart?: (rhData: string) => Promise<void>;
}): Promise<Rig> {
  // The plugin runs dist/server/main.js: build it when a source changed (fast when not).
  const b = spawnSync(process.execPath, ['scripts/build-server.mjs', '--if-stale'], { encoding: 'utf8' });
  if (b.status !== 0) throw new Error(`server build failed: ${b.stderr}`);
  const fleet = createFleet({
    nodes: o.nodes ?? 6,
    seed: o.seed ?? 3,
    clock: new ScaledClock(1),
    startblockShare: 0.34,
  });
  fleet.start();
  await fleet.gateway.whenBooted();
  const sim: SimTcpServer = await startSimTcpServer({ host: '127.0.0.1', port: 0, fleet });
  const writes: number[] = [];
  const writeBytes: Buffer[] = [];
  const rl = await relay(sim.port, writes, writeBytes);
  const relayPort = (rl.address() as { port: number }).port;

  const data = await mkdtemp(join(tmpdir(), 'lightnet-rh-'));
  await mkdir(data, { recursive: true });
  await writeFile(
    join(data, 'config.json'),
    JSON.stringify({
      GENERAL: { HTTP_PORT: o.port },
      PLUGINS: { UPDATE_BEHAVIOR: 'never' },
      SECRETS: { ADMIN_USERNAME: ADMIN.user, ADMIN_PASSWORD: ADMIN.password },
    }),
  );
  await o.beforeStart?.(data);
  const args = [RH_LAUNCHER, '--data', data, '--port', String(o.port), '--plugin', PLUGIN_DIR];
  if (o.version) args.push('--version', o.version);
  const rh = spawn('bash', args, {
    env: { ...process.env, LIGHTNET_GATEWAY: `tcp:127.0.0.1:${relayPort}`, LIGHTNET_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const waiters = new Set<() => void>();
  const onData = (b: Buffer): void => {
    out += b.toString('utf8');
    for (const w of waiters) w();
  };
  rh.stdout?.on('data', onData);
  rh.stderr?.on('data', onData);
  const rhUrl = `http://127.0.0.1:${o.port}`;

  const waitOutput = (re: RegExp, timeoutMs = 90_000): Promise<string> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const m = re.exec(out);
        if (m) {
          waiters.delete(check);
          clearTimeout(timer);
          resolve(m[0]);
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`RotorHazard output never matched ${re}:\n${out.slice(-3000)}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });

  const api: Rig['api'] = async (method, path, body) => {
    const headers: Record<string, string> = { authorization: AUTH };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers.origin = rhUrl; // as a browser on RotorHazard's page would send it
    }
    const r = await fetch(`${rhUrl}/lightnet${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: r.status, body: parsed as never };
  };

  const exited = new Promise<number | null>((resolve) => rh.on('exit', (code) => resolve(code)));
  const stopRotorHazard = async (): Promise<number | null> => {
    if (rh.exitCode === null && rh.signalCode === null) rh.kill('SIGTERM');
    return exited;
  };
  return {
    fleet,
    rhUrl,
    writes,
    writeBytes,
    rh,
    output: () => out,
    waitOutput,
    api,
    stopRotorHazard,
    close: async () => {
      await stopRotorHazard();
      await sim.close();
      await new Promise((r) => rl.close(r));
      fleet.stop();
      await rm(data, { recursive: true, force: true });
    },
  };
}

/**
 * The simulated LED nodes (no start block) the host has discovered, in fleet order: a
 * discovery over the lossy simulated radio may miss one, and the host refuses a gate it does
 * not know.
 */
export async function knownLeds(rig: Rig): Promise<SimNode[]> {
  const r = await rig.api<{ devices: { addr: string }[] }>('GET', '/api/devices');
  const known = new Set(r.body.devices.map((d) => d.addr));
  return rig.fleet.nodes.filter((n) => n.snapshot().startblock === null && known.has(n.addr));
}
