/** GET /osc: whether the OSC receiver runs, its port and its counters (malformed, rate-limited…). */
import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../services/index.ts';

export const oscRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  api.get('/osc', async () => {
    const stats = svc.oscStats();
    return { ok: true, enabled: stats !== null, ...(stats ?? {}) };
  });
};
