import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SteppedClock } from '../../../src/clock.ts';
import { LedHttp, LedHttpError } from '../../../src/services/ota/led-http.ts';

/** A loopback server whose handler decides how each request ends. */
async function serve(handler: http.RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const a = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${a.port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

const body = Buffer.alloc(200_000, 7);
const post = (h: LedHttp): Promise<unknown> =>
  h.postMultipart('/update', [{ name: 'file', filename: 'fw.bin', data: body, contentType: 'x' }], 60_000);

async function failure(p: Promise<unknown>): Promise<LedHttpError> {
  const err: unknown = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LedHttpError);
  return err as LedHttpError;
}

describe('which firmware POST failures may hide a flash in progress', () => {
  it('refused-connection-never-sent-the-body', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const err = await failure(post(new LedHttp(`http://127.0.0.1:${port}`)));
    expect(err.unansweredAfterBody).toBe(false);
    expect(err.message).toMatch(/^\/update: connect ECONNREFUSED/);
  });

  it('whole-body-received-then-dropped-without-reply-is-flagged', async () => {
    const s = await serve((req) => {
      let n = 0;
      req.on('data', (c: Buffer) => (n += c.length));
      req.on('end', () => req.socket.destroy());
    });
    closers.push(s.close);
    const err = await failure(post(new LedHttp(s.url)));
    expect(err.unansweredAfterBody).toBe(true);
    expect(err.message).toMatch(/\(whole body sent, no reply\)$/);
  });

  it('timeout-after-the-body-runs-on-the-clock-and-is-flagged', async () => {
    let received!: () => void;
    const allReceived = new Promise<void>((r) => (received = r));
    const s = await serve((req) => {
      req.resume(); // read everything, never answer
      req.on('end', received);
    });
    closers.push(s.close);
    const clock = new SteppedClock(); // not started: time moves only when the test says
    const p = failure(post(new LedHttp(s.url, clock)));
    await allReceived;
    for (let i = 0; i < 3; i++) await new Promise<void>((r) => setImmediate(r));
    clock.advance(59_999);
    for (let i = 0; i < 3; i++) await new Promise<void>((r) => setImmediate(r));
    let settled = false;
    void p.finally(() => (settled = true));
    await new Promise<void>((r) => setImmediate(r));
    expect(settled).toBe(false);
    clock.advance(1);
    const err = await p;
    expect(err.message).toBe('timeout after 60 s on /update (whole body sent, no reply)');
    expect(err.unansweredAfterBody).toBe(true);
  });

  it('an-error-reply-is-not-a-lost-confirmation', async () => {
    const s = await serve((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(503).end());
    });
    closers.push(s.close);
    const r = (await post(new LedHttp(s.url))) as { status: number };
    expect(r.status).toBe(503);
  });
});
