/**
 * Second timers. `GET /timers` (the operator's, behind the normal guard) shows each source's
 * state and what to give FPVTrackside: the URL with its token, made on first use.
 * `PUT /timers/fpvtrackside?token=…` is FPVTrackside's Extension push: it authenticates with
 * the token alone (FPVTrackside can be given a URL, not a password or a header), takes any
 * body as text, and answers 200 with an empty body before the body is even parsed — the
 * sender sends one event at a time and waits for each answer (timers.md §2: "respond first").
 * Bad bodies are the receiver's to count; the answer is 200 all the same.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppServices } from '../../services/index.ts';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();
/** A DetectionExt with a big field's position snapshot is a few kB; this leaves room. */
const PUSH_BODY_LIMIT = 256 * 1024;
/** FPVTrackside recycles idle pooled connections after 5 min: ours must outlive that. */
const PUSH_KEEP_ALIVE_MS = 6 * 60_000;

export const timerRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  const timers = svc.timers;

  /** Where FPVTrackside sends its events, as seen from the address this request came to. */
  const pushUrl = (req: FastifyRequest, token: string) => {
    const base = (req.url.split('?')[0] ?? '').replace(/\/$/, '').replace(/\/token$/, '');
    const path = `${base}/fpvtrackside`;
    const host = req.headers.host ?? 'HOST';
    return { path, token, url: `${req.protocol}://${host}${path}?token=${encodeURIComponent(token)}` };
  };

  api.get('/timers', async (req) => {
    const token = await timers.token();
    return {
      ok: true,
      // RotorHazard's plugin: `mode` says whether it started this host (integration mode).
      rotorhazard: { mode: svc.integration.mode, ...svc.integration.rotorhazard.view() },
      fpvtrackside: { ...pushUrl(req, token), ...timers.fpvtrackside.view() },
    };
  });

  // A new FPVTrackside token (a URL that leaked, a new season): on disk before the answer.
  // Not under /timers/fpvtrackside: that prefix skips the password (app.ts ownAuthPrefixes).
  api.post('/timers/token', async (req) => {
    const token = await timers.newToken();
    return { ok: true, fpvtrackside: pushUrl(req, token) };
  });

  await api.register(async (push) => {
    // Whatever FPVTrackside sends is the receiver's to judge: no JSON parser, no 400/415 here.
    push.removeAllContentTypeParsers();
    push.addContentTypeParser('*', { parseAs: 'string', bodyLimit: PUSH_BODY_LIMIT }, (_req, body, done) =>
      done(null, body),
    );
    const handler = async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
      const given = (req.query as Record<string, unknown>).token;
      const token = timers.currentToken();
      if (typeof given !== 'string' || token === null || !timingSafeEqual(digest(given), digest(token))) {
        timers.fpvtrackside.unauthorized();
        return reply.code(401).send({
          ok: false,
          error: 'token: wrong or missing (the URL with its token is in GET /api/timers)',
        });
      }
      const text = typeof req.body === 'string' ? req.body : '';
      // The connection outlives FPVTrackside's pool recycling (Node sets its server-wide
      // keep-alive timeout as the answer finishes; this connection then gets a longer one).
      reply.raw.once('finish', () => {
        const socket = req.raw.socket;
        setImmediate(() => {
          if (!socket.destroyed) socket.setTimeout(PUSH_KEEP_ALIVE_MS);
        });
      });
      // Only queued: the body is parsed and applied on a later tick, after this answer.
      timers.fpvtrackside.enqueue(text);
      return reply
        .code(200)
        .header('keep-alive', `timeout=${PUSH_KEEP_ALIVE_MS / 1000}`)
        .send();
    };
    push.put('/timers/fpvtrackside', handler);
    // The interface's reference receivers take POST too.
    push.post('/timers/fpvtrackside', handler);
  });
};
