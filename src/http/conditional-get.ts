/**
 * Conditional GETs for the API's JSON answers that do not carry their own ETag (scenes,
 * native presets, console settings, master …; the big lists and schemas have theirs, see
 * serialized-body.ts): a weak ETag from a hash of the body, `Cache-Control: no-cache`, and a
 * 304 without a body when the client already holds it. The web UI loads its lists at page
 * start and again when the live stream connects (so nothing changed in between is missed):
 * with this, the second load costs a round trip and no bodies.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { etagMatches } from './serialized-body.ts';

export function installConditionalGet(app: FastifyInstance, apiPrefix: string): void {
  // Registered before the compression hook: it hashes the body as built, and a 304 skips compression.
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.method !== 'GET' || reply.statusCode !== 200 || reply.hasHeader('etag')) return payload;
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    if (!req.url.startsWith(apiPrefix)) return payload;
    if (!String(reply.getHeader('content-type') ?? '').startsWith('application/json')) return payload;
    const etag = `W/"${createHash('sha1').update(payload).digest('base64url')}"`;
    void reply.header('etag', etag).header('cache-control', 'no-cache');
    if (!etagMatches(req.headers['if-none-match'], etag)) return payload;
    void reply.code(304).removeHeader('content-type');
    return '';
  });
}
