/**
 * A JSON answer serialised once and served many times: the bytes, a weak ETag (so
 * `If-None-Match` answers 304), and gzip / brotli variants compressed lazily on the
 * first request that asks for them. Rebuilt only after `invalidate()`.
 *
 * Two ways out: `send` through Fastify's reply, and `sendRaw` straight onto Node's
 * response for the fast read path (fast-reads.ts), with the same status, headers and bytes.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

export type Encoding = 'br' | 'gzip';

/** Smaller bodies are sent as they are: compressing them saves less than it costs. */
export const COMPRESS_THRESHOLD = 1024;

interface Built {
  body: Buffer;
  etag: string;
  encoded: Partial<Record<Encoding, Buffer>>;
}

/** What one request gets: 304, or the bytes with their encoding (null = identity). */
type Answer = { status: 304 } | { status: 200; bytes: Buffer; encoding: Encoding | null };

const JSON_TYPE = 'application/json; charset=utf-8';

export class SerializedBody {
  private built: Built | null = null;

  constructor(private readonly serialize: () => string) {}

  invalidate(): void {
    this.built = null;
  }

  /** The current bytes (built now if invalidated). */
  current(): Built {
    if (!this.built) {
      const body = Buffer.from(this.serialize(), 'utf8');
      const hash = createHash('sha1').update(body).digest('base64url').slice(0, 22);
      this.built = { body, etag: `W/"${hash}"`, encoded: {} };
    }
    return this.built;
  }

  /** Answers the request from the cache: 304 when the client has it, else the (compressed) bytes. */
  send(req: FastifyRequest, reply: FastifyReply): FastifyReply {
    const b = this.current();
    const a = this.answer(b, req.headers);
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

  private answer(b: Built, headers: IncomingMessage['headers']): Answer {
    if (etagMatches(headers['if-none-match'], b.etag)) return { status: 304 };
    const enc = b.body.length >= COMPRESS_THRESHOLD ? pickEncoding(headers['accept-encoding']) : null;
    if (!enc) return { status: 200, bytes: b.body, encoding: null };
    let bytes = b.encoded[enc];
    if (!bytes) {
      // Moderate levels: the body is recompressed after every change, not once per release.
      bytes =
        enc === 'br'
          ? brotliCompressSync(b.body, {
              params: {
                [zlibConstants.BROTLI_PARAM_QUALITY]: 5,
                [zlibConstants.BROTLI_PARAM_SIZE_HINT]: b.body.length,
              },
            })
          : gzipSync(b.body, { level: 6 });
      b.encoded[enc] = bytes;
    }
    return { status: 200, bytes, encoding: enc };
  }
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
