/**
 * A real broker for the MQTT tests and bench:mqtt: Debian's mosquitto on a free loopback
 * port with a temp config (anonymous, or a password file), started and stopped by its pid.
 * A restart keeps the port (the host's reconnect finds it again).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt, { type MqttClient } from 'mqtt';

const MOSQUITTO = process.env.LIGHTNET_MOSQUITTO ?? '/usr/sbin/mosquitto';
let ensured = false;

/** Installs mosquitto when missing (scripts/ensure-mosquitto.sh), once per process. */
export function ensureMosquitto(): void {
  if (ensured) return;
  execFileSync('sh', [join(import.meta.dirname, '../../scripts/ensure-mosquitto.sh')], { stdio: 'inherit' });
  ensured = true;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** Resolves once something accepts TCP connections on the port. */
async function listening(port: number, child: ChildProcess, log: () => string): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`mosquitto exited: ${log()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const c = connect(port, '127.0.0.1');
      c.once('connect', () => {
        c.destroy();
        resolve(true);
      });
      c.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface Broker {
  port: number;
  url: string;
  /** Kills it (SIGKILL: the clients see the connection drop) and starts it again on the same port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
  kill(): Promise<void>;
}

export async function startBroker(o: { users?: Record<string, string> } = {}): Promise<Broker> {
  ensureMosquitto();
  const dir = await mkdtemp(join(tmpdir(), 'lightnet-mosq-'));
  const port = await freePort();
  const lines = [`listener ${port} 127.0.0.1`, 'persistence false'];
  if (o.users) {
    const pw = join(dir, 'passwd');
    // Plain `user:password` lines, hashed in place. Readable by all: run as root, mosquitto
    // drops to its own user before it reads the file.
    await writeFile(
      pw,
      Object.entries(o.users)
        .map(([u, p]) => `${u}:${p}`)
        .join('\n') + '\n',
      { mode: 0o644 },
    );
    execFileSync('mosquitto_passwd', ['-U', pw]);
    await chmod(dir, 0o755);
    await chmod(pw, 0o644);
    lines.push('allow_anonymous false', `password_file ${pw}`);
  } else lines.push('allow_anonymous true');
  const conf = join(dir, 'mosquitto.conf');
  await writeFile(conf, lines.join('\n') + '\n');
  let child: ChildProcess;
  let out = '';
  const start = async (): Promise<void> => {
    out = '';
    child = spawn(MOSQUITTO, ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr?.on('data', (b: Buffer) => (out += b.toString()));
    await listening(port, child, () => out);
  };
  const kill = async (signal: NodeJS.Signals): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await gone;
  };
  await start();
  return {
    port,
    url: `mqtt://127.0.0.1:${port}`,
    restart: async () => {
      await kill('SIGKILL');
      await start();
    },
    kill: () => kill('SIGKILL'),
    stop: async () => {
      await kill('SIGTERM');
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A test's own MQTT client that records every message it receives. */
export class Watcher {
  readonly messages: { topic: string; payload: string; retain: boolean; at: number }[] = [];
  /** The last payload per topic (a bench's predicates ask for hundreds of topics per message). */
  private readonly latest = new Map<string, string>();
  private waiters: { pred: () => boolean; resolve: () => void }[] = [];
  private constructor(readonly client: MqttClient) {
    client.on('message', (topic, payload, packet) => {
      const text = payload.toString();
      this.messages.push({ topic, payload: text, retain: packet.retain, at: performance.now() });
      this.latest.set(topic, text);
      this.waiters = this.waiters.filter((w) => {
        if (!w.pred()) return true;
        w.resolve();
        return false;
      });
    });
  }

  static async connect(url: string, topics: string[], opts: mqtt.IClientOptions = {}): Promise<Watcher> {
    const client = await mqtt.connectAsync(url, { reconnectPeriod: 200, ...opts });
    const w = new Watcher(client);
    if (topics.length) await client.subscribeAsync(topics, { qos: 1 });
    return w;
  }

  /** The last payload seen on a topic, or undefined. */
  last(topic: string): string | undefined {
    return this.latest.get(topic);
  }

  json<T = Record<string, unknown>>(topic: string): T | undefined {
    const l = this.last(topic);
    return l === undefined || l === '' ? undefined : (JSON.parse(l) as T);
  }

  /** Resolves when `pred` holds (checked now and on every message). */
  until(pred: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
    if (pred()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
      this.waiters.push({
        pred,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  async publish(topic: string, payload: string, opts: { retain?: boolean } = {}): Promise<void> {
    await this.client.publishAsync(topic, payload, { qos: 1, retain: opts.retain ?? false });
  }

  async close(): Promise<void> {
    await this.client.endAsync(true);
  }
}
