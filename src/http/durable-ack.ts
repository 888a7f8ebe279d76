/**
 * "A 200 means kept": every request runs in an ack context (state/ack-context.ts) that
 * records the operator changes it made, and its answer is held until they are on disk.
 * A change that could not be written is refused: the answer becomes 507 (disk full) or
 * 500 `{ok:false, error:"PersistenceError: …"}` whatever the route returned. Doing it here
 * covers every route, present and future, without each handler having to remember.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PersistenceError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { ackScope, type AckContext } from '../state/ack-context.ts';

export interface DurableSource {
  whenDurable(n: number): Promise<void>;
}

export function installDurableAck(app: FastifyInstance, store: DurableSource, log: Logger): void {
  const contexts = new WeakMap<FastifyRequest, AckContext>();
  app.addHook('onRequest', (req, _reply, done) => {
    const ctx: AckContext = { seq: 0 };
    contexts.set(req, ctx);
    ackScope.run(ctx, done);
  });
  app.addHook('onSend', async (req, reply, payload) => {
    const ctx = contexts.get(req);
    if (!ctx || ctx.seq === 0) return payload;
    try {
      await store.whenDurable(ctx.seq);
      return payload;
    } catch (err) {
      if (!(err instanceof PersistenceError)) throw err;
      if (reply.statusCode >= 400) return payload; // already an error answer
      log.error({ url: req.url, error: err.message }, 'change refused: not written to disk');
      void reply.code(err.status).header('content-type', 'application/json; charset=utf-8');
      return JSON.stringify({ ok: false, error: `PersistenceError: ${err.message}` });
    }
  });
}
