/**
 * A JSON answer serialised once and served many times: the bytes, a weak ETag (so
 * `If-None-Match` answers 304), and gzip / brotli variants compressed lazily on the
 * first request that asks for them. Rebuilt only after `invalidate()`.
 *
 * The compression runs on libuv's thread pool, not on the event loop: the device list
 * (~220 KB at 300 devices) is recompressed after every change, up to four times a second
 * per open browser during a status poll, and each brotli pass held the loop for 1–5 ms
 * (four times as long on a Pi-class core) — in front of a Blackout click.
 * Requests that ask for the same variant while it is being made share one job.
 *
 * Two ways out: `send` through Fastify's reply, and `sendRaw` straight onto Node's
 * response for the fast read path (fast-reads.ts), with the same status, headers and bytes.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

export type Encoding = 'br' | 'gzip';

/** Smaller bodies are sent as they are: compressing them saves less than it costs. */
export const COMPRESS_THRESHOLD = 1024;

interface Built {
  body: Buffer;
  etag: string;
  /** Each variant once made, or while it is being made. */
  encoded: Partial<Record<Encoding, Buffer | Promise<Buffer>>>;
}

/** What one request gets: 304, or the bytes with their encoding (null = identity). */
type Answer = { status: 304 } | { status: 200; bytes: Buffer; encoding: Encoding | null };

const JSON_TYPE = 'application/json; charset=utf-8';

export class SerializedBody {
  private built: Built | null = null;

  /** `serialize` gives the JSON text, or its UTF-8 bytes (a large body need not exist as a string). */
  constructor(private readonly serialize: () => string | Buffer) {}

  invalidate(): void {
    this.built = null;
  }

  /** The current bytes (built now if invalidated). */
  current(): Built {
    if (!this.built) {
      const text = this.serialize();
      const body = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
      const hash = createHash('sha1').update(body).digest('base64url').slice(0, 22);
      this.built = { body, etag: `W/"${hash}"`, encoded: {} };
    }
    return this.built;
  }

  /** Answers the request from the cache: 304 when the client has it, else the (compressed) bytes. */
  async send(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const b = this.current();
    const a = await this.answer(b, req.headers);
    void reply.header('etag', b.etag).header('cache-control', 'no-cache').header('vary', 'accept-encoding');
    if (a.status === 304) return reply.code(304).send();
    void reply.type(JSON_TYPE);
    if (a.encoding) void reply.header('content-encoding', a.encoding);
    return reply.send(a.bytes);
  }

  /** The same answer as `send`, written directly to Node's response (one writeHead, one end). */
  sendRaw(req: IncomingMessage, res: ServerResponse): void {
    const b = this.current();
    const a = this.answer(b, req.headers);
    if (a instanceof Promise)
      a.then(
        (x) => this.writeRaw(b, x, res),
        () => res.destroy(),
      );
    else this.writeRaw(b, a, res);
  }

  private writeRaw(b: Built, a: Answer, res: ServerResponse): void {
    if (a.status === 304) {
      res.writeHead(304, { etag: b.etag, 'cache-control': 'no-cache', vary: 'accept-encoding' });
      res.end();
      return;
    }
    const headers: Record<string, string | number> = {
      'content-type': JSON_TYPE,
      'content-length': a.bytes.length,
      etag: b.etag,
      'cache-control': 'no-cache',
      vary: 'accept-encoding',
    };
    if (a.encoding) headers['content-encoding'] = a.encoding;
    res.writeHead(200, headers);
    res.end(a.bytes);
  }

  /** The answer now, or once its compressed variant is made (the first request for it). */
  private answer(b: Built, headers: IncomingMessage['headers']): Answer | Promise<Answer> {
    if (etagMatches(headers['if-none-match'], b.etag)) return { status: 304 };
    const enc = b.body.length >= COMPRESS_THRESHOLD ? pickEncoding(headers['accept-encoding']) : null;
    if (!enc) return { status: 200, bytes: b.body, encoding: null };
    let bytes = b.encoded[enc];
    if (!bytes) {
      const job = compress(b.body, enc);
      b.encoded[enc] = job;
      bytes = job;
      // Kept as bytes once made, so later requests answer at once.
      job.then(
        (done) => {
          if (b.encoded[enc] === job) b.encoded[enc] = done;
        },
        () => {
          if (b.encoded[enc] === job) delete b.encoded[enc];
        },
      );
    }
    if (bytes instanceof Promise) return bytes.then((x) => ({ status: 200, bytes: x, encoding: enc }));
    return { status: 200, bytes, encoding: enc };
  }
}

/** Moderate levels: the body is recompressed after every change, not once per release. */
function compress(body: Buffer, enc: Encoding): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, out: Buffer): void => (err ? reject(err) : resolve(out));
    if (enc === 'br')
      brotliCompress(
        body,
        {
          params: {
            [zlibConstants.BROTLI_PARAM_QUALITY]: 5,
            [zlibConstants.BROTLI_PARAM_SIZE_HINT]: body.length,
          },
        },
        done,
      );
    else gzip(body, { level: 6 }, done);
  });
}

/** RFC 9110 weak comparison against a comma-separated If-None-Match list (or `*`). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const opaque = etag.replace(/^W\//, '');
  for (const raw of header.split(',')) {
    const t = raw.trim();
    if (t === '*' || t.replace(/^W\//, '') === opaque) return true;
  }
  return false;
}

/**
 * Parsed Accept-Encoding values: a handful of browsers send the same few strings on every
 * request, so each is parsed once. Bounded: a client sending ever new strings only empties it.
 */
const picked = new Map<string, Encoding | null>();
const PICKED_MAX = 64;
/** Real browsers send under 50 characters; longer values are parsed every time, not kept. */
const PICKED_KEY_MAX = 200;

/** br or gzip when the client accepts it (q > 0), br first; null for identity. */
export function pickEncoding(header: string | string[] | undefined): Encoding | null {
  if (!header) return null;
  const text = Array.isArray(header) ? header.join(',') : header;
  const known = picked.get(text);
  if (known !== undefined) return known;
  const enc = parseAcceptEncoding(text);
  if (text.length > PICKED_KEY_MAX) return enc;
  if (picked.size >= PICKED_MAX) picked.clear();
  picked.set(text, enc);
  return enc;
}

function parseAcceptEncoding(text: string): Encoding | null {
  const q = new Map<string, number>();
  for (const part of text.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const qp = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qp ? Number(qp.slice(2)) : 1;
    q.set(name.trim(), Number.isFinite(value) ? value : 0);
  }
  const accepts = (e: Encoding): boolean => (q.get(e) ?? q.get('*') ?? 0) > 0;
  if (accepts('br')) return 'br';
  if (accepts('gzip')) return 'gzip';
  return null;
}
