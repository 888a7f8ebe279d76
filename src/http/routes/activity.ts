/** The activity log (`GET /api/log`): the host's recent structured log entries, filtered. */
import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import type { AppServices } from '../../services/index.ts';
import { LOG_CATEGORIES, LOG_LEVELS } from '../../services/logs/index.ts';
import { parseBody, zInt } from '../validation.ts';

const LogQuery = z.object({
  level: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).optional(),
  device: z
    .string()
    .regex(/^[0-9a-fA-F]{6}$/, 'must be 6 hex characters')
    .optional(),
  category: z.enum(LOG_CATEGORIES, { error: `must be one of ${LOG_CATEGORIES.join(', ')}` }).optional(),
  q: z.string().max(200, 'must be at most 200 characters').optional(),
  since: zInt(0, Number.MAX_SAFE_INTEGER).optional(),
  limit: zInt(1, 5000).optional(),
});

export const activityRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  api.get('/log', async (req) => {
    const q = parseBody(LogQuery, req.query);
    const entries = svc.logs.query({ ...q, q: q.q || undefined });
    return { ok: true, entries, last_seq: svc.logs.lastSeq, capacity: svc.logs.capacity };
  });
};
