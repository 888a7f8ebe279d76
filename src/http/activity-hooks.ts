/**
 * Feeds the activity log with what came in over HTTP: every change request (not the
 * reads, which the UI issues all the time) at debug, refused logins and cross-origin
 * or unauthenticated requests at warn under `security`.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from '../logger.ts';

export function installActivityHooks(app: FastifyInstance, log: Logger): void {
  app.addHook('onResponse', async (req, reply) => {
    const status = reply.statusCode;
    const url = req.url.split('?')[0] ?? '';
    if (status === 401 || status === 403) {
      log.warn({ cat: 'security', method: req.method, url, status, ip: req.ip }, 'request refused');
      return;
    }
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return;
    log.debug(
      { cat: 'http', method: req.method, url, status, ms: Math.round(reply.elapsedTime) },
      `${req.method} ${url} → ${status}`,
    );
  });
}
