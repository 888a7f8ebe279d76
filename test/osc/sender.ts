/**
 * A test OSC surface: a UDP socket that sends with node-osc's encoder (not the host's
 * code) and collects what comes back (decoded by node-osc), so tests can wait for feedback.
 */
import { createSocket, type Socket } from 'node:dgram';
import { decode, encode, Message } from 'node-osc';
import { until } from '../until.ts';

export interface Received {
  address: string;
  args: unknown[];
}

export class OscSurface {
  readonly received: Received[] = [];
  private constructor(
    private readonly socket: Socket,
    private readonly host: string,
    private readonly port: number,
  ) {}

  static async open(host: string, port: number): Promise<OscSurface> {
    const socket = createSocket('udp4');
    const s = new OscSurface(socket, host, port);
    socket.on('message', (buf) => {
      const d = decode(buf) as { oscType: string; address: string; args: { value: unknown }[] };
      if (d.oscType === 'message') s.received.push({ address: d.address, args: d.args.map((a) => a.value) });
    });
    await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
    return s;
  }

  /** The local port (where replies arrive). */
  get localPort(): number {
    return this.socket.address().port;
  }

  send(address: string, ...args: (number | string | boolean)[]): Promise<void> {
    return this.raw(encode(new Message(address, ...args)));
  }

  raw(buf: Uint8Array): Promise<void> {
    return new Promise((resolve, reject) =>
      this.socket.send(buf, this.port, this.host, (err) => (err ? reject(err) : resolve())),
    );
  }

  /** The newest value received at this address, once one matches. */
  async waitFor(
    address: string,
    match: (args: unknown[]) => boolean = () => true,
    ms = 20_000,
  ): Promise<unknown[]> {
    const found = await until(
      `OSC ${address}`,
      () => [...this.received].reverse().find((m) => m.address === address && match(m.args)) ?? null,
      ms,
    );
    return found.args;
  }

  close(): Promise<void> {
    return new Promise((r) => this.socket.close(() => r()));
  }
}
