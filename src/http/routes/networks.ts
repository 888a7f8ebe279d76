/**
 * GET /networks: every network (one per gateway) with its gateway, readiness, device counts
 * and radio settings, plus the gateways that belong to no network. Not in the contract.
 */
import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../services/index.ts';

export const networksRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  api.get('/networks', async () => ({ ok: true, ...svc.networks.list() }));
};
