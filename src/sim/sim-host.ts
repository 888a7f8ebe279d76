/**
 * Serving a simulated fleet to a host: in-process through a reconnectable memory endpoint
 * (each open is a new USB connection, refused while the gateway's USB device is absent),
 * or to other processes over raw TCP (one client at a time, raw bytes both ways).
 */
import net from 'node:net';
import type { Link, LinkFactory } from '../transport/link.ts';
import { BaseLink } from '../transport/base-link.ts';
import { LinkClosedError } from '../transport/errors.ts';
import { MemoryEndpoint, type MemoryLinkOptions } from '../transport/memory-link.ts';
import { createFleet, type FleetOptions, type SimFleet } from './fleet.ts';

export interface SimOnMemoryOptions extends FleetOptions {
  /** One-way latency of the memory link in virtual ms (default 0). */
  latencyMs?: number;
  /** Shown as the link path (default `sim`). */
  path?: string;
  /** Start the fleet right away (default true). */
  autoStart?: boolean;
}

export interface SimOnMemory {
  linkFactory: LinkFactory;
  endpoint: MemoryEndpoint;
  fleet: SimFleet;
  stop(): void;
}

export function startSimOnMemory(opts: SimOnMemoryOptions): SimOnMemory {
  return serveFleetOnMemory(createFleet(opts), opts);
}

/** Serves an already created fleet (one of several sharing the air, see fleets.ts). */
export function serveFleetOnMemory(
  fleet: SimFleet,
  opts: Pick<SimOnMemoryOptions, 'clock' | 'latencyMs' | 'path' | 'autoStart'>,
): SimOnMemory {
  const linkOpts: MemoryLinkOptions = { path: opts.path ?? 'sim', clock: opts.clock };
  if (opts.latencyMs) linkOpts.latencyMs = opts.latencyMs;
  const endpoint = new MemoryEndpoint((device) => fleet.gateway.attach(device), linkOpts);
  const off = fleet.gateway.usb.events.on('presence', ({ present, err }) => {
    if (present) endpoint.plug();
    else endpoint.unplug(err);
  });
  if (opts.autoStart ?? true) fleet.start();
  return {
    linkFactory: endpoint.factory,
    endpoint,
    fleet,
    stop() {
      off();
      endpoint.drop(new Error('simulator stopped'));
      fleet.stop();
    },
  };
}

/** A connected TCP socket seen from the gateway side, as a Link. */
class SocketLink extends BaseLink {
  readonly kind = 'tcp' as const;
  readonly path: string;

  constructor(private readonly socket: net.Socket) {
    super();
    this.path = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? 0}`;
    socket.setNoDelay(true);
    this.markOpen();
    socket.on('data', (b: Buffer) => this.deliver(new Uint8Array(b.buffer, b.byteOffset, b.length).slice()));
    socket.on('error', () => {});
    socket.on('close', (hadError) => this.markClosed(hadError ? new Error('connection reset') : undefined));
  }

  open(): Promise<void> {
    return this.isOpen ? Promise.resolve() : Promise.reject(new LinkClosedError(this.path));
  }

  write(bytes: Uint8Array): Promise<void> {
    if (!this.isOpen) return Promise.reject(new LinkClosedError(this.path));
    return new Promise((resolve, reject) => {
      this.socket.write(bytes, (err) => (err ? reject(err) : resolve()));
    });
  }

  close(): Promise<void> {
    this.socket.destroy();
    return Promise.resolve();
  }
}

export interface SimTcpServer {
  host: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Raw TCP: each accepted connection is one USB connection to the simulated gateway. A
 * second client while one is connected, or any client while the gateway's USB device is
 * absent (link-drop fault, reboot), is disconnected immediately.
 */
export function startSimTcpServer(opts: {
  host: string;
  port: number;
  fleet: SimFleet;
}): Promise<SimTcpServer> {
  const { fleet } = opts;
  const sockets = new Set<net.Socket>();
  let current: Link | null = null;
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    const gw = fleet.gateway;
    if (!gw.usb.present || gw.usb.attached) {
      socket.destroy();
      return;
    }
    const link = new SocketLink(socket);
    try {
      gw.attach(link);
      current = link;
    } catch {
      socket.destroy();
    }
  });
  const offPresence = fleet.gateway.usb.events.on('presence', ({ present }) => {
    if (!present && current?.isOpen) void current.close();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      const addr = server.address();
      const port = typeof addr === 'object' && addr ? addr.port : opts.port;
      resolve({
        host: opts.host,
        port,
        close: () =>
          new Promise<void>((res) => {
            offPresence();
            for (const s of sockets) s.destroy();
            server.close(() => res());
          }),
      });
    });
  });
}
