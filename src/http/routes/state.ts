/** Persistence: durable save and reload from disk; operator backup and restore. */
import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../services/index.ts';

/** A backup with a 2.4 MB state and preset files is well above the 1 MiB JSON limit. */
const RESTORE_BODY_LIMIT = 64 * 1024 * 1024;

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

  // One JSON file; `?firmware=1` adds the uploaded firmware/cfg bytes.
  api.get<{ Querystring: { firmware?: string } }>('/backup', async (req, reply) => {
    const bundle = await svc.backup.create(req.query.firmware === '1' || req.query.firmware === 'true');
    void reply.header('content-disposition', `attachment; filename="${svc.backup.fileName()}"`);
    return bundle;
  });

  api.post('/restore', { bodyLimit: RESTORE_BODY_LIMIT }, async (req) => ({
    ok: true,
    ...(await svc.backup.restore(req.body)),
  }));
};
