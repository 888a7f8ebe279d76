/**
 * Art-Net in: ArtDmx frames for the configured port-addresses, and ArtPoll answered with an
 * ArtPollReply per universe (so a console's node list shows "Lightnet"). Our own small codec:
 * the installed `dmxnet` binds every interface on a fixed port, throws from its socket
 * callbacks (an uncaught exception would end the host) and keeps a timer it never clears, so
 * it is used as the real sender in the tests, not as the receiver here.
 *
 * The reply goes to the poller's address and port (a console polls from 6454, so that is
 * where it lands; a test's controller on another port gets it too). Replies are limited to a
 * few per second: a poll flood must not turn the host into an amplifier.
 */
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { networkInterfaces } from 'node:os';
import type { Logger } from '../../logger.ts';
import { MAX_PACKET, type DmxReceiver, type DmxSink } from './receiver.ts';
import { artnetKey } from '../../domain/dmx-universes.ts';

export const ARTNET_PORT = 6454;
const ID = Buffer.from('Art-Net\0', 'latin1');
const OP_POLL = 0x2000;
const OP_POLL_REPLY = 0x2100;
const OP_DMX = 0x5000;
const REPLY_LEN = 239;
const REPLIES_PER_S = 5;

export interface ArtDmx {
  portAddress: number;
  sequence: number;
  values: Uint8Array;
}

export type ArtPacket = { op: 'dmx'; dmx: ArtDmx } | { op: 'poll' } | { op: 'other'; opcode: number };

/** Decodes an Art-Net packet; a string says why it is not one (or is a bad one). */
export function decodeArtNet(buf: Buffer): ArtPacket | { error: string; oversized?: true } {
  if (buf.length < 12 || !buf.subarray(0, 8).equals(ID)) return { error: 'not an Art-Net packet' };
  const opcode = buf.readUInt16LE(8);
  const version = buf.readUInt16BE(10);
  if (version < 14) return { error: `Art-Net protocol version ${version} (at least 14)` };
  if (opcode === OP_POLL) return buf.length >= 12 ? { op: 'poll' } : { error: 'short ArtPoll' };
  if (opcode !== OP_DMX) return { op: 'other', opcode };
  if (buf.length < 18) return { error: `ArtDmx of ${buf.length} bytes` };
  const length = buf.readUInt16BE(16);
  if (length > 512 || buf.length - 18 > 512)
    return {
      error: `ArtDmx with ${Math.max(length, buf.length - 18)} channels (at most 512)`,
      oversized: true,
    };
  if (length < 2 || buf.length < 18 + length)
    return { error: `ArtDmx length ${length} in ${buf.length} bytes` };
  const portAddress = (((buf[15] ?? 0) & 0x7f) << 8) | (buf[14] ?? 0);
  return {
    op: 'dmx',
    dmx: { portAddress, sequence: buf[12] ?? 0, values: new Uint8Array(buf.subarray(18, 18 + length)) },
  };
}

export interface ReplyInfo {
  ip: string;
  portAddress: number;
  bindIndex: number;
  shortName: string;
  longName: string;
  report: string;
  mac?: readonly number[];
  live: boolean;
}

/** One ArtPollReply describing one output port (one universe of ours). */
export function encodePollReply(r: ReplyInfo): Buffer {
  const b = Buffer.alloc(REPLY_LEN);
  ID.copy(b, 0);
  b.writeUInt16LE(OP_POLL_REPLY, 8);
  r.ip.split('.').forEach((o, i) => (b[10 + i] = Number(o) & 0xff));
  b.writeUInt16LE(ARTNET_PORT, 14);
  b.writeUInt16BE(0x0001, 16); // firmware version
  b[18] = (r.portAddress >> 8) & 0x7f; // NetSwitch
  b[19] = (r.portAddress >> 4) & 0x0f; // SubSwitch
  b.writeUInt16BE(0x00ff, 20); // OEM: unknown
  b[23] = 0xd0; // indicators normal, port-address set locally
  b.write(r.shortName.slice(0, 17), 26, 'latin1');
  b.write(r.longName.slice(0, 63), 44, 'latin1');
  b.write(r.report.slice(0, 63), 108, 'latin1');
  b.writeUInt16BE(1, 172); // one port
  b[174] = 0x80; // it outputs DMX512 taken from Art-Net
  b[182] = r.live ? 0x80 : 0x00; // GoodOutput: data is being output
  b[190] = r.portAddress & 0x0f; // SwOut
  b[200] = 0x00; // StNode
  (r.mac ?? []).slice(0, 6).forEach((m, i) => (b[201 + i] = m));
  r.ip.split('.').forEach((o, i) => (b[207 + i] = Number(o) & 0xff)); // BindIp
  b[211] = r.bindIndex;
  b[212] = 0x08; // 15-bit port-addresses
  return b;
}

export class ArtNetReceiver implements DmxReceiver {
  readonly protocol = 'artnet';
  private socket: Socket | null = null;
  private replies = { at: 0, n: 0 };
  polls = 0;
  pollsIgnored = 0;

  constructor(
    private readonly o: {
      host: string;
      port: number;
      portAddresses: readonly number[];
      sink: DmxSink;
      log: Logger;
      /** What the replies say: the patched fixtures, which universes are live. */
      describe(): { report: string; live(key: string): boolean };
      now?: () => number;
    },
  ) {}

  start(): Promise<number> {
    const socket = createSocket({ type: 'udp4', reuseAddr: true });
    this.socket = socket;
    socket.on('message', (buf, rinfo) => this.onPacket(buf, rinfo));
    return new Promise((resolve, reject) => {
      const failed = (err: Error): void => reject(err);
      socket.once('error', failed);
      socket.bind(this.o.port, this.o.host, () => {
        socket.off('error', failed);
        socket.on('error', (err) => this.o.log.warn({ err: err.message }, 'Art-Net socket error'));
        if (this.o.host === '0.0.0.0') socket.setBroadcast(true);
        resolve(socket.address().port);
      });
    });
  }

  close(): Promise<void> {
    const s = this.socket;
    this.socket = null;
    return new Promise((r) => (s ? s.close(() => r()) : r()));
  }

  private onPacket(buf: Buffer, from: RemoteInfo): void {
    const { sink } = this.o;
    if (buf.length > MAX_PACKET) return sink.bad(null, 'oversized', `Art-Net packet of ${buf.length} bytes`);
    const p = decodeArtNet(buf);
    if ('error' in p) return sink.bad(null, p.oversized ? 'oversized' : 'malformed', p.error);
    if (p.op === 'poll') return this.answerPoll(from);
    if (p.op === 'other') return; // ArtPollReply of other nodes, ArtSync, …: not for us
    const key = artnetKey(p.dmx.portAddress);
    if (!this.o.portAddresses.includes(p.dmx.portAddress)) return sink.bad(null, 'unknown_universe', key);
    sink.frame(key, {
      id: `${from.address}:${from.port}`,
      name: `Art-Net ${from.address}`,
      priority: 100,
      values: p.dmx.values,
      at: 0,
    });
  }

  private answerPoll(from: RemoteInfo): void {
    this.polls++;
    const now = (this.o.now ?? Date.now)();
    if (now - this.replies.at >= 1000) this.replies = { at: now, n: 0 };
    if (++this.replies.n > REPLIES_PER_S) {
      this.pollsIgnored++;
      return;
    }
    const { ip, mac } = this.address();
    const d = this.o.describe();
    this.o.portAddresses.forEach((pa, i) => {
      const key = artnetKey(pa);
      const reply = encodePollReply({
        ip,
        mac,
        portAddress: pa,
        bindIndex: i + 1,
        shortName: 'Lightnet',
        longName: `Lightnet LoRa LED fleet (DMX in ${key})`,
        report: d.report,
        live: d.live(key),
      });
      this.socket?.send(reply, from.port, from.address, (err) => {
        if (err) this.o.log.info({ err: err.message, to: from.address }, 'ArtPollReply not sent');
      });
    });
  }

  /** The address the replies name: the bound one, or the first LAN address when bound to all. */
  private address(): { ip: string; mac?: number[] } {
    const all = Object.values(networkInterfaces()).flat();
    const want =
      this.o.host === '0.0.0.0'
        ? all.find((i) => i && i.family === 'IPv4' && !i.internal)
        : all.find((i) => i?.address === this.o.host);
    const ip = this.o.host === '0.0.0.0' ? (want?.address ?? '0.0.0.0') : this.o.host;
    const mac = want?.mac.split(':').map((h) => parseInt(h, 16));
    return mac ? { ip, mac } : { ip };
  }
}
