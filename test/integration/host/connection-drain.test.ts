/**
 * Draining at shutdown closes what waits on nobody but never cuts an answer being made:
 * a request still in its handler (a change waiting for its fsync) is answered in full,
 * then its socket goes; a socket that never sent a request goes at once.
 */
import { createServer, request } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ConnectionDrain } from '../../../src/http/connection-drain.ts';

describe('ConnectionDrain', () => {
  it('closes a spare socket at once and a busy one only after its answer', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let received!: () => void;
    const inHandler = new Promise<void>((r) => (received = r));
    const server = createServer((_req, res) => {
      received();
      void released.then(() => res.end('{"ok":true}'));
    });
    const drain = new ConnectionDrain();
    drain.attach(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    try {
      // A connection that never sends a request (what an aborted fetch stream leaves behind).
      const spare = connect(port, '127.0.0.1');
      await new Promise((r) => spare.once('connect', r));
      const spareClosed = new Promise((r) => spare.once('close', r));

      const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/change' }, (res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end('{}');
      });
      await inHandler;

      const serverClosed = new Promise<void>((r) => server.close(() => r()));
      drain.drain();
      await spareClosed;
      // The busy request is still being made: its answer arrives whole once the handler ends.
      release();
      expect(await answer).toEqual({ status: 200, body: '{"ok":true}' });
      // And then nothing is left: the server closes without a client doing anything.
      await serverClosed;
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
