/**
 * Console settings shared by every browser: GET /console and PATCH /console (a partial
 * update; unknown fields are refused with 400 naming them). Not in the contract.
 */
import type { FastifyInstance } from 'fastify';
import { consolePatchSchema } from '../../domain/console-settings.ts';
import type { AppServices } from '../../services/index.ts';
import { bodyObject, parseBody } from '../validation.ts';

export const consoleRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  api.get('/console', async () => ({ ok: true, console: svc.consoleSettings.get() }));
  api.patch('/console', async (req) => {
    const patch = parseBody(consolePatchSchema, bodyObject(req.body));
    const r = await svc.consoleSettings.update(patch, req.ip);
    return { ok: true, console: r.console, changed: r.changed };
  });
};
