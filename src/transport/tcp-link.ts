import net from 'node:net';
import { realClock, type Clock } from '../clock.ts';
import { BaseLink } from './base-link.ts';
import { LinkClosedError, LinkOpenError } from './errors.ts';
import type { TransportLog } from './link.ts';
import { errText } from '../util/err-text.ts';

export interface TcpLinkOptions {
  /** Give up connecting after this many virtual ms (default 5000). */
  connectTimeoutMs?: number;
  clock?: Clock;
  /** Diagnostics, e.g. a data listener that threw. */
  log?: TransportLog;
}

/**
 * A raw TCP byte link, ser2net style: the remote end forwards the gateway's serial bytes
 * unchanged (or is the simulator's `--listen` server). Reopenable: each `open()` makes a
 * new connection.
 */
export class TcpLink extends BaseLink {
  readonly kind = 'tcp' as const;
  readonly path: string;
  private socket: net.Socket | null = null;
  /** Set while connecting: lets close() abandon the attempt. */
  private abortConnect: (() => void) | null = null;
  private readonly connectTimeoutMs: number;
  private readonly clock: Clock;

  constructor(
    readonly host: string,
    readonly port: number,
    opts: TcpLinkOptions = {},
  ) {
    super(opts.log);
    this.path = `${host.includes(':') ? `[${host}]` : host}:${port}`;
    this.connectTimeoutMs = opts.connectTimeoutMs ?? 5000;
    this.clock = opts.clock ?? realClock();
  }

  open(): Promise<void> {
    if (this.isOpen) return Promise.resolve();
    if (this.state === 'opening' || this.state === 'closing') {
      return Promise.reject(new LinkOpenError(`tcp ${this.path}: open while ${this.state}`));
    }
    this.state = 'opening';
    return new Promise<void>((resolve, reject) => {
      const socket = new net.Socket();
      let settled = false;
      const fail = (err: Error & { code?: string }): void => {
        if (settled) return;
        settled = true;
        this.abortConnect = null;
        timer.cancel();
        socket.destroy();
        this.state = 'idle';
        const reason = err.code === 'ECONNREFUSED' ? 'connection refused' : err.message;
        reject(
          new LinkOpenError(`cannot connect to tcp ${this.path}: ${reason}`, {
            cause: err,
            ...(err.code ? { code: err.code } : {}),
          }),
        );
      };
      const timer = this.clock.setTimeout(() => {
        fail(Object.assign(new Error(`timed out after ${this.connectTimeoutMs} ms`), { code: 'ETIMEDOUT' }));
      }, this.connectTimeoutMs);
      socket.once('error', fail);
      this.abortConnect = () => fail(new Error('closed while connecting'));
      socket.connect({ host: this.host, port: this.port }, () => {
        if (settled) return;
        settled = true;
        this.abortConnect = null;
        timer.cancel();
        socket.off('error', fail);
        socket.setNoDelay(true);
        this.attach(socket);
        resolve();
      });
    });
  }

  write(bytes: Uint8Array): Promise<void> {
    const socket = this.socket;
    if (!this.isOpen || !socket) return Promise.reject(new LinkClosedError(this.path));
    return new Promise<void>((resolve, reject) => {
      socket.write(bytes, (err) => {
        if (err) reject(new LinkClosedError(this.path, `write failed: ${errText(err)}`));
        else resolve();
      });
    });
  }

  close(): Promise<void> {
    if (this.state === 'opening') {
      this.abortConnect?.();
      return Promise.resolve();
    }
    const socket = this.socket;
    if (!socket || this.state === 'closed' || this.state === 'idle') return Promise.resolve();
    return new Promise<void>((resolve) => {
      socket.once('close', () => resolve());
      if (this.state === 'closing') return;
      this.state = 'closing';
      // Let queued bytes reach the kernel, then tear down without waiting for the peer.
      socket.end(() => socket.destroy());
    });
  }

  private attach(socket: net.Socket): void {
    this.socket = socket;
    this.markOpen();
    let failure: Error | undefined;
    socket.on('data', (chunk: Buffer) => this.deliver(chunk));
    socket.on('error', (err) => {
      failure = err;
    });
    socket.on('close', () => {
      if (this.socket === socket) this.socket = null;
      const closedByUs = this.state === 'closing';
      if (closedByUs) {
        this.markClosed(undefined);
        return;
      }
      this.markClosed(
        new LinkClosedError(
          this.path,
          failure ? `connection lost: ${failure.message}` : 'connection closed by peer',
        ),
      );
    });
  }
}

export interface TcpTarget {
  host: string;
  port: number;
}

/**
 * Parses `tcp:<host>:<port>` (the `tcp:` prefix is optional). IPv6 hosts go in brackets:
 * `tcp:[::1]:7000`. Throws with a message that says what is wrong.
 */
export function parseTcpTarget(input: string): TcpTarget {
  const s = input.trim();
  const rest = s.toLowerCase().startsWith('tcp:') ? s.slice(4) : s;
  const shape = 'expected tcp:<host>:<port>, e.g. tcp:192.168.1.20:7000 or tcp:[::1]:7000';
  let host: string;
  let portText: string;
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']');
    if (close < 0) throw new Error(`invalid TCP target "${input}": missing "]" after IPv6 host; ${shape}`);
    host = rest.slice(1, close);
    if (rest[close + 1] !== ':') throw new Error(`invalid TCP target "${input}": missing port; ${shape}`);
    portText = rest.slice(close + 2);
    if (!net.isIPv6(host)) {
      throw new Error(`invalid TCP target "${input}": "${host}" is not an IPv6 address`);
    }
  } else {
    const colon = rest.lastIndexOf(':');
    if (colon < 0) throw new Error(`invalid TCP target "${input}": missing port; ${shape}`);
    host = rest.slice(0, colon);
    portText = rest.slice(colon + 1);
    if (host.includes(':')) {
      throw new Error(`invalid TCP target "${input}": IPv6 hosts must be in brackets; ${shape}`);
    }
  }
  if (host.length === 0) throw new Error(`invalid TCP target "${input}": missing host; ${shape}`);
  if (/\s|\//.test(host)) throw new Error(`invalid TCP target "${input}": bad host "${host}"`);
  if (!/^\d{1,5}$/.test(portText)) {
    throw new Error(`invalid TCP target "${input}": port "${portText}" is not a number; ${shape}`);
  }
  const port = Number(portText);
  if (port < 1 || port > 65535) {
    throw new Error(`invalid TCP target "${input}": port ${port} is out of range 1-65535`);
  }
  return { host, port };
}
