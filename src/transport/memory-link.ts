import type { Clock, TimerHandle } from '../clock.ts';
import { BaseLink } from './base-link.ts';
import { LinkClosedError, LinkOpenError, PortBusyError } from './errors.ts';
import type { Link, LinkFactory, TransportLog } from './link.ts';

export interface MemoryLinkOptions {
  /**
   * One-way delay in virtual ms before written bytes arrive at the other end. 0 (default)
   * delivers on a microtask. A positive latency needs `clock`.
   */
  latencyMs?: number;
  clock?: Clock;
  /** Shown as `Link.path` (default `memory`). */
  path?: string;
  /** Diagnostics, e.g. a data listener that threw. */
  log?: TransportLog;
}

/** The message of the error the surviving end sees when its peer closes normally. */
export const PEER_CLOSED_MESSAGE = 'link closed by peer';

/**
 * One end of an in-process byte pipe. Ends are created open and cannot be reopened:
 * a closed pair is dead, a reconnect needs a new pair (see {@link MemoryEndpoint}).
 */
export class MemoryLinkEnd extends BaseLink {
  readonly kind = 'memory' as const;
  readonly path: string;
  private peer: MemoryLinkEnd | null = null;
  /** Chunks written by this end and not yet delivered to the peer, in write order. */
  private inflight: Uint8Array[] = [];
  private readonly timers = new Set<TimerHandle>();
  private readonly latencyMs: number;
  private readonly clock: Clock | undefined;

  constructor(opts: MemoryLinkOptions = {}) {
    super(opts.log);
    this.path = opts.path ?? 'memory';
    this.latencyMs = Math.max(0, opts.latencyMs ?? 0);
    this.clock = opts.clock;
    if (this.latencyMs > 0 && !this.clock) {
      throw new RangeError('memory link: latencyMs > 0 needs a clock');
    }
    this.markOpen();
  }

  /** @internal Wires two fresh ends together. */
  static connect(a: MemoryLinkEnd, b: MemoryLinkEnd): void {
    a.peer = b;
    b.peer = a;
  }

  open(): Promise<void> {
    if (this.isOpen) return Promise.resolve();
    return Promise.reject(
      new LinkClosedError(this.path, 'memory link pair is closed; create a new pair to reconnect'),
    );
  }

  write(bytes: Uint8Array): Promise<void> {
    if (!this.isOpen) return Promise.reject(new LinkClosedError(this.path));
    // Copy: callers may reuse their buffer as soon as the write resolves.
    this.inflight.push(Uint8Array.from(bytes));
    if (this.latencyMs > 0 && this.clock) {
      // Every chunk has the same latency, so whichever timer fires delivers the oldest
      // chunk: order holds even if a clock fires equal-deadline timers out of order.
      const handle = this.clock.setTimeout(() => {
        this.timers.delete(handle);
        this.deliverOldest();
      }, this.latencyMs);
      this.timers.add(handle);
    } else {
      queueMicrotask(() => this.deliverOldest());
    }
    return Promise.resolve();
  }

  /** Normal close: bytes already written still reach the peer, then both ends close. */
  close(): Promise<void> {
    if (!this.isOpen) return Promise.resolve();
    while (this.inflight.length > 0) this.deliverOldest();
    this.shutdown(undefined, new Error(PEER_CLOSED_MESSAGE));
    return Promise.resolve();
  }

  /**
   * Simulates a yanked cable: bytes in flight are lost and both ends close with `err`
   * (each end gets the same error object).
   */
  drop(err: Error = new Error('link dropped')): void {
    if (!this.isOpen) return;
    this.shutdown(err, err);
  }

  private deliverOldest(): void {
    const chunk = this.inflight.shift();
    if (!chunk || !this.isOpen || !this.peer?.isOpen) return;
    this.peer.deliver(chunk);
  }

  private shutdown(ownErr: Error | undefined, peerErr: Error | undefined): void {
    this.abandonInflight();
    const peer = this.peer;
    peer?.abandonInflight();
    // Both ends are marked closed before any listener runs, so a listener that looks
    // at the other end sees a consistent picture.
    this.state = 'closing';
    if (peer?.isOpen) peer.state = 'closing';
    this.markClosed(ownErr);
    if (peer?.state === 'closing') peer.markClosed(peerErr);
  }

  private abandonInflight(): void {
    for (const t of this.timers) t.cancel();
    this.timers.clear();
    this.inflight = [];
  }
}

/**
 * Creates a connected in-process pair: `[hostEnd, deviceEnd]`. Both ends are open
 * already (`open()` resolves immediately); bytes written on one end arrive as data on the
 * other, asynchronously and in order.
 */
export function createMemoryLinkPair(opts: MemoryLinkOptions = {}): [MemoryLinkEnd, MemoryLinkEnd] {
  const host = new MemoryLinkEnd(opts);
  const device = new MemoryLinkEnd(opts);
  MemoryLinkEnd.connect(host, device);
  return [host, device];
}

/**
 * Simulates a yanked cable on a memory link (either end of a pair, or a link made by a
 * {@link MemoryEndpoint}): both ends close with `err`, bytes in flight are lost.
 */
export function dropLink(link: Link, err: Error = new Error('link dropped')): void {
  if (link instanceof MemoryLinkEnd) link.drop(err);
  else if (link instanceof MemoryClientLink) link.drop(err);
  else throw new TypeError(`dropLink: ${link.kind} link ${link.path} is not a memory link`);
}

export interface MemoryConnectInfo {
  /** 1 for the first connection of this endpoint, then 2, 3, … */
  index: number;
}

/**
 * A "device that can be plugged in", for reconnect tests and the simulator: every time
 * the host opens a link made by {@link MemoryEndpoint.factory}, a fresh pair is created
 * and its device end is handed to `onConnect` (where a simulated gateway attaches).
 *
 * - `unplug(err)` breaks the current connection (host sees `onClose(err)`) and makes
 *   further `open()` calls reject with {@link LinkOpenError} until `plug()`.
 * - `drop(err)` breaks the current connection but leaves the device plugged in.
 * - Like an exclusively locked serial port, a second open while a connection is live
 *   rejects with {@link PortBusyError}.
 */
export class MemoryEndpoint {
  readonly path: string;
  /** Pass this to the driver: each call makes an unopened link to this endpoint. */
  readonly factory: LinkFactory = () => this.createLink();
  private plugged = true;
  private current: [MemoryLinkEnd, MemoryLinkEnd] | null = null;
  private connections = 0;

  constructor(
    private readonly onConnect: (device: Link, info: MemoryConnectInfo) => void,
    private readonly opts: MemoryLinkOptions = {},
  ) {
    this.path = opts.path ?? 'memory';
  }

  createLink(): Link {
    return new MemoryClientLink(this, this.opts.log);
  }

  get isPlugged(): boolean {
    return this.plugged;
  }

  /** True while a host link is connected. */
  get connected(): boolean {
    return this.current?.[0].isOpen ?? false;
  }

  /** How many connections were accepted so far. */
  get connectionCount(): number {
    return this.connections;
  }

  unplug(err: Error = new Error('device unplugged')): void {
    this.plugged = false;
    this.drop(err);
  }

  plug(): void {
    this.plugged = true;
  }

  drop(err: Error = new Error('link dropped')): void {
    const pair = this.current;
    this.current = null;
    pair?.[0].drop(err);
  }

  /** @internal Called by the host-side link's `open()`. */
  accept(): MemoryLinkEnd {
    if (!this.plugged) {
      throw new LinkOpenError(`${this.path}: no device attached (unplugged)`, { code: 'ENOENT' });
    }
    if (this.connected) throw new PortBusyError(this.path);
    const pair = createMemoryLinkPair(this.opts);
    this.connections += 1;
    this.current = pair;
    try {
      this.onConnect(pair[1], { index: this.connections });
    } catch (err) {
      this.current = null;
      pair[0].drop(err instanceof Error ? err : new Error(String(err)));
      throw new LinkOpenError(`${this.path}: device refused the connection`, { cause: err });
    }
    return pair[0];
  }
}

/** Host-side link of a {@link MemoryEndpoint}; reopenable, each open is a new connection. */
class MemoryClientLink extends BaseLink {
  readonly kind = 'memory' as const;
  readonly path: string;
  private end: MemoryLinkEnd | null = null;

  constructor(
    private readonly endpoint: MemoryEndpoint,
    log?: TransportLog,
  ) {
    super(log);
    this.path = endpoint.path;
  }

  open(): Promise<void> {
    if (this.isOpen) return Promise.resolve();
    let end: MemoryLinkEnd;
    try {
      end = this.endpoint.accept();
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    this.end = end;
    this.markOpen();
    end.onData((chunk) => this.deliver(chunk));
    end.onClose((err) => {
      if (this.end !== end) return;
      this.end = null;
      this.markClosed(err);
    });
    return Promise.resolve();
  }

  write(bytes: Uint8Array): Promise<void> {
    if (!this.isOpen || !this.end) return Promise.reject(new LinkClosedError(this.path));
    return this.end.write(bytes);
  }

  close(): Promise<void> {
    return this.end?.close() ?? Promise.resolve();
  }

  override async flushInput(): Promise<void> {
    await this.end?.flushInput();
    await super.flushInput();
  }

  drop(err: Error): void {
    this.end?.drop(err);
  }
}
