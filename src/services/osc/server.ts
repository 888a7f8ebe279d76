/**
 * The OSC receiver (UDP, `--osc-port`): decodes with node-osc, maps each message through
 * the address space (addresses.ts) and hands the command to the host's actions. What it
 * guards:
 * - a packet that does not decode, an unknown address or wrong arguments is counted,
 *   logged (a few lines per sender per window, the rest at debug) and answered with
 *   `/lightnet/error <detail>` to the sender — it never throws and never reaches the radio;
 * - each sender (address:port) has a token bucket; a message over it is counted and
 *   dropped. Blackout and the red flag are exempt: a flood must not stop the way out;
 * - feedback goes to every sender heard in the last minutes (its source address), to the
 *   ports senders subscribed with `/lightnet/subscribe <port>`, and to the configured
 *   feedback targets: on a change only what changed, on subscribe/refresh everything.
 */
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { decode, encode, Message } from 'node-osc';
import type { Logger } from '../../logger.ts';
import { parseOsc, type OscArg, type OscCommand } from './addresses.ts';

export type OscMessage = [address: string, ...args: (number | string)[]];

/** The commands that act on the fleet (the others are the receiver's own). */
export type OscAction = Exclude<OscCommand, { kind: 'subscribe' | 'unsubscribe' | 'refresh' }>;

export interface OscActions {
  /** Carries the command out; `error` says why not (it is sent back to the sender). */
  run(cmd: OscAction, sender: string): Promise<{ ok: true } | { ok: false; error: string }>;
}

export interface OscFeedbackSource {
  /** Every feedback value now. */
  all(): OscMessage[];
  /** Called with the values that changed. */
  onChange(fn: (changed: OscMessage[]) => void): () => void;
}

export interface OscTarget {
  host: string;
  port: number;
}

export interface OscServerOptions {
  host: string;
  port: number;
  /** Messages per second per sender (the bucket refills at this rate; holds twice as many). */
  ratePerSec: number;
  /** Always sent feedback (`--osc-feedback`). */
  feedbackTargets: readonly OscTarget[];
  actions: OscActions;
  feedback: OscFeedbackSource;
  log: Logger;
  now?: () => number;
}

export interface OscStats {
  port: number | null;
  packets: number;
  messages: number;
  accepted: number;
  released: number;
  refused: number;
  malformed: number;
  unknown_address: number;
  bad_args: number;
  rate_limited: number;
  feedback_sent: number;
  feedback_targets: number;
}

/** A sender heard within this long gets feedback. */
const SENDER_TTL_MS = 10 * 60_000;
const MAX_SENDERS = 32;
/** Messages in one packet (bundles nest): more are counted as malformed. */
const MAX_PER_PACKET = 64;
const LOG_WINDOW_MS = 10_000;
const LOG_PER_WINDOW = 3;
/** Exempt from the bucket: the way out must work during a flood. */
const SAFETY = new Set(['blackout', 'flag:red']);

interface Bucket {
  tokens: number;
  at: number;
}

interface Decoded {
  oscType: string;
  address?: string;
  args?: { value: unknown }[];
  elements?: Decoded[];
}

export class OscServer {
  private socket: Socket | null = null;
  private readonly buckets = new Map<string, Bucket>();
  /** Feedback targets: senders (key → where and until when), subscribed ports too. */
  private readonly senders = new Map<string, { target: OscTarget; until: number }>();
  private readonly logWindows = new Map<string, { start: number; n: number }>();
  private readonly counts: Omit<OscStats, 'port' | 'feedback_targets'> = {
    packets: 0,
    messages: 0,
    accepted: 0,
    released: 0,
    refused: 0,
    malformed: 0,
    unknown_address: 0,
    bad_args: 0,
    rate_limited: 0,
    feedback_sent: 0,
  };
  private unsubscribe: (() => void) | null = null;
  private readonly now: () => number;

  constructor(private readonly o: OscServerOptions) {
    this.now = o.now ?? Date.now;
  }

  async start(): Promise<number> {
    const type = this.o.host.includes(':') ? 'udp6' : 'udp4';
    const socket = createSocket({ type, reuseAddr: false });
    this.socket = socket;
    socket.on('message', (buf, rinfo) => this.onPacket(buf, rinfo));
    await new Promise<void>((resolve, reject) => {
      socket.once('error', (err: NodeJS.ErrnoException) => {
        socket.close();
        this.socket = null;
        reject(
          err.code === 'EADDRINUSE'
            ? new Error(`--osc-port ${this.o.port}: UDP port already in use on ${this.o.host}`)
            : new Error(`--osc-port ${this.o.port}: ${err.message}`),
        );
      });
      socket.bind(this.o.port, this.o.host, () => {
        socket.removeAllListeners('error');
        // A send that fails (a target gone) is not the receiver's end.
        socket.on('error', (err) => this.o.log.warn({ err: err.message }, 'osc socket error'));
        resolve();
      });
    });
    this.unsubscribe = this.o.feedback.onChange((changed) => this.broadcast(changed));
    const port = socket.address().port;
    this.o.log.info({ host: this.o.host, port, feedback: this.o.feedbackTargets }, 'OSC listening');
    // The configured targets learn the state at once.
    for (const t of this.o.feedbackTargets) this.sendAll(t, this.o.feedback.all());
    return port;
  }

  stats(): OscStats {
    const address = this.socket?.address();
    return {
      port: address ? address.port : null,
      ...this.counts,
      feedback_targets: this.targets().length,
    };
  }

  async close(): Promise<void> {
    this.unsubscribe?.();
    const s = this.socket;
    this.socket = null;
    if (s) await new Promise<void>((r) => s.close(() => r()));
  }

  private onPacket(buf: Buffer, rinfo: RemoteInfo): void {
    this.counts.packets++;
    const sender = `${rinfo.address}:${rinfo.port}`;
    let decoded: Decoded;
    try {
      decoded = decode(buf) as Decoded;
    } catch (err) {
      this.malformed(sender, rinfo, buf.length, `does not decode (${(err as Error).message})`);
      return;
    }
    const messages: Decoded[] = [];
    const flatten = (d: Decoded, depth: number): boolean => {
      if (depth > 4) return false;
      if (d.oscType === 'bundle') return (d.elements ?? []).every((e) => flatten(e, depth + 1));
      if (messages.length >= MAX_PER_PACKET) return false;
      messages.push(d);
      return true;
    };
    if (!flatten(decoded, 0)) {
      this.malformed(sender, rinfo, buf.length, 'bundle too deep or too large');
      return;
    }
    for (const m of messages) this.onMessage(m, sender, rinfo);
  }

  private onMessage(m: Decoded, sender: string, rinfo: RemoteInfo): void {
    this.counts.messages++;
    const address = typeof m.address === 'string' ? m.address : '';
    const args = (m.args ?? []).map((a) => a.value as OscArg);
    const parsed = parseOsc(address, args);
    const key = parsed.ok && parsed.command ? safetyKey(parsed.command) : null;
    if (!(key && SAFETY.has(key)) && !this.take(sender)) {
      this.counts.rate_limited++;
      this.note(sender, { sender, address }, 'OSC sender over its rate limit: message dropped');
      return;
    }
    this.seen(sender, { host: rinfo.address, port: rinfo.port });
    if (!parsed.ok) {
      this.counts[parsed.reason]++;
      this.note(
        sender,
        { sender, address, reason: parsed.reason, detail: parsed.detail },
        'OSC message refused',
      );
      this.reply(rinfo, ['/lightnet/error', parsed.detail]);
      return;
    }
    const cmd = parsed.command;
    if (!cmd) {
      this.counts.released++;
      return;
    }
    if (cmd.kind === 'subscribe') {
      const target = { host: rinfo.address, port: cmd.port ?? rinfo.port };
      this.senders.set(`${target.host}:${target.port}`, { target, until: this.now() + SENDER_TTL_MS });
      this.counts.accepted++;
      this.sendAll(target, this.o.feedback.all());
      return;
    }
    if (cmd.kind === 'unsubscribe') {
      for (const [k, s] of this.senders) if (s.target.host === rinfo.address) this.senders.delete(k);
      this.counts.accepted++;
      return;
    }
    if (cmd.kind === 'refresh') {
      this.counts.accepted++;
      this.sendAll({ host: rinfo.address, port: rinfo.port }, this.o.feedback.all());
      return;
    }
    this.o.actions.run(cmd, sender).then(
      (r) => {
        if (r.ok) {
          this.counts.accepted++;
          this.o.log.debug({ sender, address }, 'OSC command');
        } else {
          this.counts.refused++;
          this.o.log.info({ sender, address, error: r.error }, 'OSC command refused');
          this.reply(rinfo, ['/lightnet/error', `${address}: ${r.error}`]);
        }
      },
      (err: unknown) => {
        this.counts.refused++;
        this.o.log.warn({ sender, address, err: (err as Error).message }, 'OSC command failed');
        this.reply(rinfo, ['/lightnet/error', `${address}: ${(err as Error).message}`]);
      },
    );
  }

  /** The sender's bucket: true when a message may pass. */
  private take(sender: string): boolean {
    const now = this.now();
    const cap = this.o.ratePerSec * 2;
    const b = this.buckets.get(sender) ?? { tokens: cap, at: now };
    b.tokens = Math.min(cap, b.tokens + ((now - b.at) / 1000) * this.o.ratePerSec);
    b.at = now;
    this.buckets.set(sender, b);
    if (this.buckets.size > 4 * MAX_SENDERS) this.prune(now);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  private seen(key: string, target: OscTarget): void {
    const now = this.now();
    const prev = this.senders.get(key);
    this.senders.set(key, { target, until: now + SENDER_TTL_MS });
    if (!prev && this.senders.size > MAX_SENDERS) this.prune(now);
  }

  private prune(now: number): void {
    for (const [k, s] of this.senders) if (s.until < now) this.senders.delete(k);
    // Still too many: the least recently heard go.
    const byAge = [...this.senders].sort((a, b) => a[1].until - b[1].until);
    while (byAge.length > MAX_SENDERS) this.senders.delete((byAge.shift() as [string, unknown])[0]);
    for (const [k, b] of this.buckets) if (now - b.at > 60_000) this.buckets.delete(k);
  }

  private targets(): OscTarget[] {
    const now = this.now();
    const out = new Map<string, OscTarget>();
    for (const t of this.o.feedbackTargets) out.set(`${t.host}:${t.port}`, t);
    for (const [k, s] of this.senders) if (s.until >= now) out.set(k, s.target);
    return [...out.values()];
  }

  private broadcast(changed: OscMessage[]): void {
    if (changed.length === 0) return;
    for (const t of this.targets()) this.sendAll(t, changed);
  }

  private sendAll(t: OscTarget, msgs: readonly OscMessage[]): void {
    for (const m of msgs) this.reply({ address: t.host, port: t.port }, m);
  }

  private reply(to: { address: string; port: number }, [address, ...args]: OscMessage): void {
    const s = this.socket;
    if (!s) return;
    try {
      const buf = encode(new Message(address, ...args));
      s.send(buf, to.port, to.address);
      this.counts.feedback_sent++;
    } catch (err) {
      this.o.log.debug({ to, address, err: (err as Error).message }, 'OSC feedback not sent');
    }
  }

  /**
   * A packet that is not OSC: counted, logged and answered with `/lightnet/error packet: …` so
   * the sender learns of it — both rate-limited alike (a flood gets neither a log nor a reply
   * flood back).
   */
  private malformed(sender: string, rinfo: RemoteInfo, bytes: number, error: string): void {
    this.counts.malformed++;
    if (this.note(sender, { sender, bytes, error }, 'OSC packet malformed'))
      this.reply(rinfo, ['/lightnet/error', `packet: ${error}`]);
  }

  /**
   * A warning, a few per sender per window; the rest at debug (a flood must not flood the log).
   * True when it was a warning.
   */
  private note(sender: string, fields: Record<string, unknown>, msg: string): boolean {
    const now = this.now();
    const w = this.logWindows.get(sender);
    if (!w || now - w.start > LOG_WINDOW_MS) {
      if (this.logWindows.size > 4 * MAX_SENDERS) this.logWindows.clear();
      this.logWindows.set(sender, { start: now, n: 1 });
      this.o.log.warn(fields, msg);
      return true;
    }
    w.n++;
    const loud = w.n <= LOG_PER_WINDOW;
    if (loud) this.o.log.warn(fields, msg);
    else this.o.log.debug(fields, msg);
    return loud;
  }
}

function safetyKey(c: OscCommand): string {
  return c.kind === 'flag' ? `flag:${c.action}` : c.kind;
}
