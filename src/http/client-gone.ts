/**
 * A signal that aborts when the client drops the connection before its answer was
 * written: long radio work done for that request (a list of unicasts) can stop instead
 * of keeping the air busy for nobody.
 */
import type { FastifyReply } from 'fastify';

export function abortOnDisconnect(reply: FastifyReply): AbortSignal {
  const ac = new AbortController();
  const res = reply.raw;
  res.once('close', () => {
    if (!res.writableFinished) ac.abort();
  });
  return ac.signal;
}
