/** GET /mqtt: whether the MQTT bridge runs, its broker (no password), connection and counters. */
import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../services/index.ts';

export const mqttRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  api.get('/mqtt', async () => {
    const stats = svc.mqttStats();
    return { ok: true, enabled: stats !== null, ...(stats ?? {}) };
  });
};
