/**
 * Compresses answers above COMPRESS_THRESHOLD when the client asks (br preferred, then gzip),
 * for JSON, text, HTML, JavaScript and SVG bodies that are already in memory. Answers that
 * carry their own encoding (the cached lists, the prebuilt UI assets) pass untouched, and so
 * do streams (SSE is hijacked and never reaches this hook).
 *
 * Why not @fastify/compress: it drags mime-db, readable-stream and minipass (~290 KiB of
 * bundled code parsed at every start) to do what a dozen lines over node:zlib do here.
 */
import { promisify } from 'node:util';
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { COMPRESS_THRESHOLD, pickEncoding, type Encoding } from './serialized-body.ts';

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

const COMPRESSIBLE = /^(application\/(json|javascript)|text\/|image\/svg\+xml)/i;

/** One-off compression at moderate levels: fast enough per request on a Raspberry Pi. */
export function compressBody(body: Buffer | string, enc: Encoding): Promise<Buffer> {
  return enc === 'br'
    ? brotliAsync(body, {
        params: {
          [zlibConstants.BROTLI_PARAM_QUALITY]: 5,
          [zlibConstants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(body),
        },
      })
    : gzipAsync(body, { level: 6 });
}

export function installCompression(app: FastifyInstance): void {
  app.addHook('onSend', async (req, reply, payload) => {
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    if (reply.hasHeader('content-encoding') || reply.statusCode === 304) return payload;
    if (Buffer.byteLength(payload) < COMPRESS_THRESHOLD) return payload;
    if (!COMPRESSIBLE.test(String(reply.getHeader('content-type') ?? ''))) return payload;
    void reply.header('vary', 'accept-encoding');
    const enc = pickEncoding(req.headers['accept-encoding']);
    if (!enc) return payload;
    const out = await compressBody(payload, enc);
    void reply.header('content-encoding', enc).removeHeader('content-length');
    return out;
  });
}
