/** Groups: list, create, rename, delete (with renumbering), force re-sync task. */
import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import type { AppServices } from '../../services/index.ts';
import { bodyObject, parseBody, zBool, zInt } from '../validation.ts';

const createSchema = z.object({
  name: z.string({ error: 'must be a string' }),
  dev_type: zInt(0, 255).optional(),
  device_type: zInt(0, 255).optional(),
});
const idSchema = z.object({ id: zInt(0, 1_000_000) });
const renameSchema = z.object({ id: zInt(0, 1_000_000), name: z.string({ error: 'must be a string' }) });
const forceSchema = z.object({ skipOffline: zBool.optional() });

export const groupRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  // GET /groups: routes/lists.ts (served from the serialised list cache).

  api.post('/groups/create', async (req) => {
    const b = parseBody(createSchema, bodyObject(req.body));
    const id = svc.groups.create(b.name, b.dev_type ?? b.device_type ?? 0);
    return { ok: true, id };
  });

  api.post('/groups/rename', async (req) => {
    const b = parseBody(renameSchema, bodyObject(req.body));
    svc.groups.rename(b.id, b.name);
    return { ok: true };
  });

  api.post('/groups/delete', async (req) => {
    const b = parseBody(idSchema, bodyObject(req.body));
    svc.tasks.assertIdle();
    const { changed, ...counts } = svc.groups.delete(b.id);
    svc.log.info({ id: b.id, ...counts }, 'group deleted');
    // The nodes still carry their old ids: push the renumbered groups right away.
    const task = svc.deviceMeta.startRenumberPush(changed);
    return { ok: true, ...counts, task };
  });

  api.post('/groups/force', async (req) => {
    const b = parseBody(forceSchema, bodyObject(req.body));
    return { ok: true, task: svc.deviceMeta.startForce(b.skipOffline ?? false) };
  });
};
