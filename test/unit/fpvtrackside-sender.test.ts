/**
 * The test stand-in for FPVTrackside's notifier behaves as the interface says (timers.md §2),
 * checked against a bare HTTP server: Hello over its own call until a 2xx, each attempt a new
 * seq; one request in flight, in order; no retries (a timeout or a non-2xx drops the event);
 * a full queue drops the newest event.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../until.ts';
import { FpvTracksideSender } from '../fpvtrackside/sender.ts';

interface Got {
  method: string;
  type: string;
  seq: number;
  contentType: string | undefined;
}

let server: Server | null = null;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  server = null;
});

async function serve(answer: (g: Got, req: IncomingMessage) => Promise<number> | number): Promise<{
  url: string;
  got: Got[];
  maxInFlight: () => number;
}> {
  const got: Got[] = [];
  let inFlight = 0;
  let max = 0;
  server = createServer((req, res) => {
    inFlight++;
    max = Math.max(max, inFlight);
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => {
      const b = JSON.parse(text) as { type: string; seq: number };
      const g = {
        method: req.method ?? '',
        type: b.type,
        seq: b.seq,
        contentType: req.headers['content-type'],
      };
      got.push(g);
      void Promise.resolve(answer(g, req)).then((status) => {
        inFlight--;
        if (!res.destroyed) res.writeHead(status).end();
      });
    });
  });
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/`, got, maxInFlight: () => max };
}

describe('the FPVTrackside stand-in sender', () => {
  it('sends-hello-until-a-2xx-each-attempt-with-a-new-seq-then-never-again', async () => {
    let refusals = 2;
    const s = await serve((g) => (g.type === 'Hello' && refusals-- > 0 ? 503 : 200));
    const sender = new FpvTracksideSender(s.url, { helloEveryMs: 30 });
    sender.start();
    await until('hello accepted', () => sender.helloAccepted());
    const hellos = s.got.filter((g) => g.type === 'Hello');
    expect(hellos.map((h) => h.seq)).toEqual([1, 2, 3]);
    expect(
      hellos.every((h) => h.method === 'PUT' && h.contentType === 'application/json; charset=utf-8'),
    ).toBe(true);
    expect(sender.send('RaceStart')).toBe(4);
    await sender.idle();
    expect(s.got.filter((g) => g.type === 'Hello')).toHaveLength(3);
    sender.stopHello();
  });

  it('one-request-in-flight-in-order-no-retries-and-a-full-queue-drops-the-newest', async () => {
    const s = await serve((g) =>
      g.type === 'Slow' ? new Promise((r) => setTimeout(() => r(200), 400)) : g.type === 'Bad' ? 500 : 200,
    );
    const sender = new FpvTracksideSender(s.url, { timeoutMs: 150, queueLimit: 3 });
    sender.send('Slow'); // in flight: leaves the queue at once
    sender.send('Bad');
    sender.send('A');
    sender.send('B');
    sender.send('C'); // the queue (Bad, A, B) is full: C is dropped, not an older one
    await sender.idle();
    expect(sender.log.map((x) => [x.type, x.outcome])).toEqual([
      ['C', 'queue_full'],
      ['Slow', 'timeout'],
      ['Bad', 'status_500'],
      ['A', 'ok'],
      ['B', 'ok'],
    ]);
    expect(s.got.map((g) => g.type)).toEqual(['Slow', 'Bad', 'A', 'B']); // each once: no retry
    expect(s.got.map((g) => g.seq)).toEqual([1, 2, 3, 4]);
  });

  it('a-refused-connection-drops-the-event', async () => {
    const s = await serve(() => 200);
    server?.close();
    server?.closeAllConnections();
    const sender = new FpvTracksideSender(s.url);
    sender.send('RaceStart');
    await sender.idle();
    expect(sender.outcomes()).toEqual({ refused: 1 });
  });
});
