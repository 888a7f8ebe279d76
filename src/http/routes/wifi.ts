/** Host WiFi: the interfaces NetworkManager reports (empty under `--wifi none`). */
import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../services/index.ts';

export const wifiRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  api.get('/wifi/interfaces', async () => ({ ok: true, ifaces: await svc.wifi.interfaces() }));
};
