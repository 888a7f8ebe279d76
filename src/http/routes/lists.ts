/** GET /api/devices and /api/groups, answered from the serialised list cache (ETag, 304, compression). */
import type { FastifyInstance } from 'fastify';
import type { ListCache } from '../list-cache.ts';

export const listRoutes = (lists: ListCache) => async (api: FastifyInstance) => {
  // The cache carries its own pre-compressed variants (the compression hook lets them pass).
  api.get('/devices', async (req, reply) => lists.devices.send(req, reply));
  api.get('/groups', async (req, reply) => lists.groups.send(req, reply));
};
