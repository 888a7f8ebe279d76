/**
 * E1.31 (sACN) in. The packet is decoded and checked by the `sacn` library's Packet (the
 * root, framing and DMP layers; a wrong vector or start code is an assertion it raises); the
 * socket is ours, because the library's Receiver cannot bind an address (`--host` decides
 * who may reach the host) nor say which port it got. Multicast groups are joined when the
 * host listens on every interface (0.0.0.0); consoles can unicast to a host bound to one
 * address. Nothing from the wire throws past this file: every problem is counted.
 */
import { createSocket, type Socket } from 'node:dgram';
import { Packet } from 'sacn';
import type { Logger } from '../../logger.ts';
import { MAX_PACKET, type DmxReceiver, type DmxSink } from './receiver.ts';

const OPT_PREVIEW = 0x80;
const OPT_TERMINATED = 0x40;
const HEADER = 126;

export const SACN_PORT = 5568;

export const multicastGroup = (universe: number): string =>
  `239.255.${(universe >> 8) & 0xff}.${universe & 0xff}`;

export class SacnReceiver implements DmxReceiver {
  readonly protocol = 'sacn';
  private socket: Socket | null = null;

  constructor(
    private readonly o: {
      host: string;
      port: number;
      universes: readonly number[];
      sink: DmxSink;
      log: Logger;
    },
  ) {}

  start(): Promise<number> {
    const socket = createSocket({ type: 'udp4', reuseAddr: true });
    this.socket = socket;
    socket.on('message', (buf) => this.onPacket(buf));
    return new Promise((resolve, reject) => {
      const failed = (err: Error): void => reject(err);
      socket.once('error', failed);
      socket.bind(this.o.port, this.o.host, () => {
        socket.off('error', failed);
        socket.on('error', (err) => this.o.log.warn({ err: err.message }, 'sACN socket error'));
        if (this.o.host === '0.0.0.0')
          for (const u of this.o.universes) {
            try {
              socket.addMembership(multicastGroup(u));
            } catch (err) {
              this.o.log.warn(
                { universe: u, err: (err as Error).message },
                'sACN: could not join the multicast group (unicast still works)',
              );
            }
          }
        resolve(socket.address().port);
      });
    });
  }

  close(): Promise<void> {
    const s = this.socket;
    this.socket = null;
    return new Promise((r) => (s ? s.close(() => r()) : r()));
  }

  private onPacket(buf: Buffer): void {
    const { sink } = this.o;
    if (buf.length > MAX_PACKET) return sink.bad(null, 'oversized', `sACN packet of ${buf.length} bytes`);
    let p: Packet;
    try {
      if (buf.length < HEADER) throw new Error(`${buf.length} bytes, shorter than an E1.31 header`);
      p = new Packet(buf);
    } catch (err) {
      return sink.bad(null, 'malformed', `sACN: ${(err as Error).message.split('\n')[0]}`);
    }
    const key = `sacn:${p.universe}`;
    if (!this.o.universes.includes(p.universe)) return sink.bad(null, 'unknown_universe', key);
    const count = p.propertyValueCount - 1;
    if (count > 512 || buf.length - HEADER > 512)
      return sink.bad(key, 'oversized', `sACN: ${Math.max(count, buf.length - HEADER)} slots (at most 512)`);
    if (p.priority > 200) return sink.bad(key, 'malformed', `sACN: priority ${p.priority} (at most 200)`);
    if (p.options & OPT_PREVIEW) return sink.bad(key, 'preview', 'preview data');
    sink.frame(key, {
      id: p.cid.toString('hex'),
      name: p.sourceName || '(unnamed)',
      priority: p.priority,
      values: new Uint8Array(buf.subarray(HEADER, HEADER + Math.max(0, count))),
      at: 0,
      terminated: (p.options & OPT_TERMINATED) !== 0,
    });
  }
}
