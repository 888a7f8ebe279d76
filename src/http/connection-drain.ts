/**
 * Shutdown without waiting on clients. Node's `server.close()` waits for every socket to
 * close, and `closeIdleConnections()` (what Fastify calls) skips a socket that never sent
 * a request (Node counts it as active so the headers timeout applies) — a `fetch` client
 * that aborted an event stream leaves exactly such a spare socket behind, and the host then
 * waits for the client's own keep-alive timeout (4 s, or the 72 s we advertise) before
 * exiting. So once closing starts: every socket without a request in progress is destroyed
 * at once, and every other one as soon as its answer is written — an in-flight change is
 * still answered (after it is on disk), never cut mid-way.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export class ConnectionDrain {
  /** Open sockets and how many answers each still owes. */
  private readonly sockets = new Map<Socket, number>();
  private draining = false;

  attach(server: Server): void {
    server.on('connection', (socket: Socket) => {
      if (this.draining) {
        socket.destroy();
        return;
      }
      this.sockets.set(socket, 0);
      socket.once('close', () => this.sockets.delete(socket));
    });
    // Runs beside the request handler (listeners are called in order, this one last).
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const socket = req.socket;
      const owed = this.sockets.get(socket);
      if (owed === undefined) return;
      this.sockets.set(socket, owed + 1);
      // 'close' follows 'finish' (the answer was handed to the kernel) or a dropped socket.
      res.once('close', () => this.answered(socket));
    });
  }

  /** Starts draining: idle, fresh and half-closed sockets go now, busy ones after their answer. */
  drain(): void {
    this.draining = true;
    for (const [socket, owed] of this.sockets) if (owed === 0) socket.destroy();
  }

  private answered(socket: Socket): void {
    const owed = this.sockets.get(socket);
    if (owed === undefined) return;
    this.sockets.set(socket, owed - 1);
    if (this.draining && owed - 1 === 0) socket.destroy();
  }
}
