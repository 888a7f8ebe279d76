/**
 * The broker connection behind an interface (the bridge never sees mqtt.js), with Lightnet's
 * policy: a last will on the bridge state, a clean session (a command sent while Lightnet was
 * away is not acted on minutes later), reconnects with a doubling backoff (1 s … 30 s), and
 * nothing queued while disconnected (the bridge re-publishes its retained state in full on
 * every connect instead).
 */
import { randomBytes } from 'node:crypto';
// Only host/mqtt.ts (a dynamic import, made only with --mqtt) reaches this file: an install
// without --mqtt never loads the client (startup time, issue 40). A static import, so the
// bundle's require stays lazy (an external dynamic import cannot run in its vm.Script).
import { connect } from 'mqtt';

export interface LinkMessage {
  topic: string;
  payload: Buffer;
  retain: boolean;
}

export interface LinkEvents {
  connected(): void;
  disconnected(): void;
  message(m: LinkMessage): void;
  error(err: Error): void;
}

export interface MqttLink {
  readonly connected: boolean;
  publish(topic: string, payload: string, opts: { retain: boolean; qos: 0 | 1 }): Promise<void>;
  subscribe(topics: readonly string[]): Promise<void>;
  /** Publishes `last` (the bridge's offline state) if connected, then disconnects for good. */
  close(last?: { topic: string; payload: string }): Promise<void>;
}

export interface LinkOptions {
  url: string;
  username?: string;
  password?: string;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  will: { topic: string; payload: string };
  /** First reconnect delay; doubles up to `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
}

/** The broker URL as shown and logged: never a password. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString().replace(/\/$/, '');
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//***@');
  }
}

export async function connectLink(o: LinkOptions, on: LinkEvents): Promise<MqttLink> {
  const first = o.backoffMs ?? 1000;
  const max = o.maxBackoffMs ?? 30_000;
  const client = connect(o.url, {
    clientId: `lightnet_${randomBytes(4).toString('hex')}`,
    clean: true,
    protocolVersion: 4,
    keepalive: 30,
    connectTimeout: 10_000,
    reconnectPeriod: first,
    queueQoSZero: false,
    ...(o.username !== undefined ? { username: o.username } : {}),
    ...(o.password !== undefined ? { password: o.password } : {}),
    ...(o.ca ? { ca: o.ca } : {}),
    ...(o.cert ? { cert: o.cert } : {}),
    ...(o.key ? { key: o.key } : {}),
    will: { topic: o.will.topic, payload: Buffer.from(o.will.payload), qos: 1, retain: true },
  });
  let up = false;
  client.on('connect', () => {
    up = true;
    client.options.reconnectPeriod = first;
    on.connected();
  });
  client.on('close', () => {
    if (!up) return;
    up = false;
    on.disconnected();
  });
  // Each attempt doubles the wait before the next (read by mqtt.js when it schedules it).
  client.on('reconnect', () => {
    client.options.reconnectPeriod = Math.min(max, (client.options.reconnectPeriod ?? first) * 2);
  });
  client.on('error', (err) => on.error(err));
  client.on('message', (topic, payload, packet) => on.message({ topic, payload, retain: packet.retain }));
  return {
    get connected() {
      return up && client.connected;
    },
    async publish(topic, payload, opts) {
      await client.publishAsync(topic, payload, { qos: opts.qos, retain: opts.retain });
    },
    async subscribe(topics) {
      await client.subscribeAsync([...topics], { qos: 1 });
    },
    async close(last) {
      if (last && client.connected) {
        // Bounded: a broker that stopped answering must not hold the host's shutdown.
        await Promise.race([
          client.publishAsync(last.topic, last.payload, { qos: 1, retain: true }).catch(() => undefined),
          new Promise((r) => setTimeout(r, 1000).unref()),
        ]);
      }
      await client.endAsync(true);
    },
  };
}
