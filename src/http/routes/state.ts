/** Persistence: durable save and reload from disk. */
import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../services/index.ts';

export const stateRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  api.post('/save', async () => {
    await svc.store.save();
    return { ok: true };
  });

  api.post('/reload', async () => {
    svc.tasks.assertIdle();
    await svc.store.reload();
    return { ok: true };
  });
};
