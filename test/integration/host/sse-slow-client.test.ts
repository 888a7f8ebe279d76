import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { withHost } from '../harness.ts';

describe('live events under pressure', () => {
  it('a-client-that-stops-reading-is-dropped-not-buffered-forever', async () => {
    await withHost({ nodes: 0 }, async (h) => {
      const url = new URL(h.url + '/sse');
      const sock = connect(Number(url.port), url.hostname);
      await new Promise<void>((r) => sock.once('connect', () => r()));
      sock.write(`GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\n\r\n`);
      // Read the response head, then stop reading for good.
      await new Promise<void>((r) => sock.once('data', () => r()));
      sock.pause();
      const until = async (pred: () => boolean): Promise<void> => {
        for (let i = 0; i < 500 && !pred(); i++) await new Promise((r) => setTimeout(r, 10));
      };
      await until(() => h.host.sse.clientCount === 1);
      expect(h.host.sse.clientCount).toBe(1);
      const big = 'x'.repeat(64 * 1024);
      for (let i = 0; i < 400 && h.host.sse.clientCount > 0; i++) {
        h.host.services.bus.emit('scene_progress', {
          key: 'k',
          index: i,
          total: 400,
          phase: 'start',
          action_kind: big,
        });
        await new Promise((r) => setImmediate(r));
      }
      await until(() => h.host.sse.clientCount === 0);
      expect(h.host.sse.clientCount).toBe(0);
      sock.destroy();
      // The server is fine: a new client connects and gets its seeds.
      const sse = await h.sse();
      await sse.waitFor('master');
    });
  });
});
