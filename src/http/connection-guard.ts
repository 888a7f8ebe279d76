/**
 * Hostile-client limits below the routes: header and body timeouts (a client that
 * trickles its body holds a socket and a parser forever otherwise), a cap on concurrent
 * connections per client address, and JSON answers for what Node's HTTP parser refuses
 * before any route runs (oversized headers 431, a request line too long 414, malformed
 * requests 400, request timeouts 408), so every error a client sees is `{ok:false, error}`.
 */
import { STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';

export interface HttpLimits {
  /** All request headers must arrive within this (Node checks it about every 30 s). */
  headersTimeoutMs: number;
  /** A JSON (non-upload) body must arrive completely within this after the headers. */
  bodyTimeoutMs: number;
  /** A multipart upload (firmware up to 8 MiB over event WiFi) must arrive within this. */
  uploadTimeoutMs: number;
  /** Concurrent sockets one client address may hold (a browser uses about 7). */
  maxConnectionsPerClient: number;
  /** Loopback clients (the timing application's local proxy carries many browsers) are exempt. */
  exemptLoopback: boolean;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  headersTimeoutMs: 15_000,
  bodyTimeoutMs: 20_000,
  uploadTimeoutMs: 10 * 60_000,
  maxConnectionsPerClient: 64,
  exemptLoopback: true,
};

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;
/** Longer request lines are answered 414 rather than 431. */
const MAX_REQUEST_LINE = 8 * 1024;
/** How long a refused client may keep sending before its socket is dropped (lingering close). */
const LINGER_MS = 2000;

interface ParserError extends Error {
  code?: string;
  rawPacket?: unknown;
}

const answered = new WeakSet<Duplex>();

/** Writes a JSON error straight to the socket, then drains what the client still sends. */
function answerRaw(socket: Duplex, status: number, error: string): void {
  if (answered.has(socket)) return;
  answered.add(socket);
  const body = JSON.stringify({ ok: false, error });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  // Closing with unread input makes the kernel reset the connection, and the client
  // loses the answer: keep reading (and discarding) for a moment first.
  socket.resume();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

function classify(err: ParserError): [number, string] {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'request: not received in time'];
    case 'HPE_HEADER_OVERFLOW': {
      const raw = Buffer.isBuffer(err.rawPacket) ? err.rawPacket : null;
      const lineEnd = raw ? raw.indexOf('\r\n') : -1;
      const startsRequest = raw ? /^[A-Z]+ /.test(raw.subarray(0, 16).toString('latin1')) : false;
      if (startsRequest && (lineEnd < 0 || lineEnd > MAX_REQUEST_LINE)) return [414, 'url: too long'];
      return [431, 'headers: too large (limit 16 KiB)'];
    }
    default:
      return [400, 'request: malformed HTTP'];
  }
}

/** Fastify's `clientErrorHandler`: JSON answers for parser-level refusals. */
export function clientErrorHandler(err: ParserError, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const [status, error] = classify(err);
  answerRaw(socket, status, error);
}

export function installConnectionGuard(app: FastifyInstance, limits: HttpLimits): void {
  const server: Server = app.server;
  server.headersTimeout = limits.headersTimeoutMs;
  // Node's own backstop for the whole request; the hook below is the precise per-kind timer.
  server.requestTimeout = limits.uploadTimeoutMs + 60_000;

  const perClient = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const addr = socket.remoteAddress ?? '';
    if (limits.exemptLoopback && LOOPBACK.test(addr)) return;
    const n = (perClient.get(addr) ?? 0) + 1;
    perClient.set(addr, n);
    socket.once('close', () => {
      const left = (perClient.get(addr) ?? 1) - 1;
      if (left > 0) perClient.set(addr, left);
      else perClient.delete(addr);
    });
    if (n > limits.maxConnectionsPerClient) {
      answerRaw(socket, 429, `connections: at most ${limits.maxConnectionsPerClient} at once per client`);
    }
  });

  app.addHook('onRequest', async (req, reply) => {
    const len = req.headers['content-length'];
    const hasBody = (len !== undefined && len !== '0') || req.headers['transfer-encoding'] !== undefined;
    if (!hasBody || req.raw.complete) return;
    const upload = /^multipart\//i.test(req.headers['content-type'] ?? '');
    const ms = upload ? limits.uploadTimeoutMs : limits.bodyTimeoutMs;
    const timer = setTimeout(() => {
      if (req.raw.complete) return;
      const res = reply.raw;
      if (res.headersSent) {
        req.raw.socket.destroy();
        return;
      }
      const body = JSON.stringify({
        ok: false,
        error: `body: not received within ${Math.ceil(ms / 1000)} s`,
      });
      res.writeHead(408, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
        connection: 'close',
      });
      res.end(body, () => req.raw.socket.destroy());
    }, ms);
    reply.raw.once('close', () => clearTimeout(timer));
    req.raw.once('end', () => clearTimeout(timer));
  });
}
