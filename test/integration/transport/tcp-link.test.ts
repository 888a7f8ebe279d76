import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LinkClosedError, LinkOpenError } from '../../../src/transport/errors.ts';
import { TcpLink } from '../../../src/transport/tcp-link.ts';
import { collect, nextClose } from '../../unit/transport/helpers.ts';

interface TestServer {
  port: number;
  /** Resolves with the next accepted connection. */
  nextSocket: () => Promise<net.Socket>;
  close: () => Promise<void>;
}

async function startServer(): Promise<TestServer> {
  const queue: net.Socket[] = [];
  const waiting: ((s: net.Socket) => void)[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    const w = waiting.shift();
    if (w) w(s);
    else queue.push(s);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  if (!addr || typeof addr === 'string') throw new Error('no server address');
  return {
    port: addr.port,
    nextSocket: () => {
      const s = queue.shift();
      return s ? Promise.resolve(s) : new Promise((resolve) => waiting.push(resolve));
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function received(socket: net.Socket, n: number): Promise<number[]> {
  const got: number[] = [];
  return new Promise((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      got.push(...chunk);
      if (got.length >= n) resolve(got);
    });
  });
}

describe('TcpLink', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function connected(): Promise<{ server: TestServer; link: TcpLink; peer: net.Socket }> {
    const server = await startServer();
    cleanups.push(server.close);
    const link = new TcpLink('127.0.0.1', server.port);
    cleanups.push(() => link.close());
    const peerP = server.nextSocket();
    await link.open();
    return { server, link, peer: await peerP };
  }

  it('connects, names itself host:port and carries bytes both ways', async () => {
    const { server, link, peer } = await connected();
    expect(link.kind).toBe('tcp');
    expect(link.path).toBe(`127.0.0.1:${server.port}`);
    expect(link.isOpen).toBe(true);

    const atServer = received(peer, 6);
    await link.write(Uint8Array.of(0x00, 0x01, 0x01));
    await link.write(Uint8Array.of(0x00, 0x01, 0x7f));
    expect(await atServer).toEqual([0x00, 0x01, 0x01, 0x00, 0x01, 0x7f]);

    const atLink = collect(link);
    peer.write(Buffer.from([0x00, 0x02, 0xf1, 0x00]));
    peer.write(Buffer.from('RaceLink_Gateway_v4', 'latin1'));
    const got = await atLink.waitFor(23);
    expect(Buffer.from(got.slice(4)).toString('latin1')).toBe('RaceLink_Gateway_v4');
  });

  it('reports the server closing the connection as an error on onClose', async () => {
    const { link, peer } = await connected();
    const closed = nextClose(link);
    peer.end();
    const err = await closed;
    expect(err).toBeInstanceOf(LinkClosedError);
    expect(err?.message).toMatch(/closed by peer/);
    expect(link.isOpen).toBe(false);
    await expect(link.write(Uint8Array.of(1))).rejects.toBeInstanceOf(LinkClosedError);
  });

  it('reports a reset connection as an error on onClose', async () => {
    const { link, peer } = await connected();
    const closed = nextClose(link);
    peer.resetAndDestroy();
    expect((await closed)?.message).toMatch(/connection lost|closed by peer/);
  });

  it('closing from our side fires onClose without an error and the server sees the end', async () => {
    const { link, peer } = await connected();
    const closed = nextClose(link);
    const peerEnded = new Promise<void>((resolve) => peer.on('end', resolve));
    peer.resume(); // 'end' only fires once the readable side is consumed
    await link.write(Uint8Array.of(9, 9));
    await link.close();
    expect(await closed).toBeUndefined();
    await peerEnded;
    await expect(link.write(Uint8Array.of(1))).rejects.toBeInstanceOf(LinkClosedError);
  });

  it('can be reopened after a close (a new connection)', async () => {
    const { server, link } = await connected();
    await link.close();
    const second = server.nextSocket();
    await link.open();
    const peer = await second;
    const atServer = received(peer, 1);
    await link.write(Uint8Array.of(42));
    expect(await atServer).toEqual([42]);
  });

  it('rejects open() with a clear message when the connection is refused', async () => {
    // Take a free port, then free it again: nobody listens there now.
    const server = await startServer();
    const port = server.port;
    await server.close();
    const link = new TcpLink('127.0.0.1', port);
    const err = await link.open().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LinkOpenError);
    expect((err as LinkOpenError).message).toBe(
      `cannot connect to tcp 127.0.0.1:${port}: connection refused`,
    );
    expect((err as LinkOpenError).code).toBe('ECONNREFUSED');
    expect(link.isOpen).toBe(false);
  });

  it('close() during open abandons the connection attempt', async () => {
    const server = await startServer();
    cleanups.push(server.close);
    const link = new TcpLink('127.0.0.1', server.port);
    const opening = link.open();
    await link.close();
    await expect(opening).rejects.toThrow(/closed while connecting/);
    expect(link.isOpen).toBe(false);
  });

  it('brackets IPv6 hosts in its path', () => {
    expect(new TcpLink('::1', 7000).path).toBe('[::1]:7000');
  });
});
