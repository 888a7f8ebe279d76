/** Host WiFi: the interfaces NetworkManager reports (empty under `--wifi none`). */
import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../services/index.ts';

export const wifiRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  api.get('/wifi/interfaces', async () => {
    const ifaces = await svc.wifi.interfaces();
    // Extra fields: which backend, whether the host can join node APs, and what is missing.
    return { ok: true, ifaces, ...(await svc.wifi.status(ifaces)) };
  });
};
