/** Field recovery: its progress and the operator's "Restore groups" task. */
import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import type { AppServices } from '../../services/index.ts';
import { bodyObject, parseAddrList, parseBody, zInt, zMacList } from '../validation.ts';

const restoreSchema = z.object({
  selection: zMacList.nullish(),
  macs: zMacList.nullish(),
  groupId: z
    .union([z.literal('all').transform(() => 255), zInt(0, 255)], { error: 'must be 1..254, 255 or "all"' })
    .nullish(),
});

export const recoveryRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  api.get('/recovery', async () => ({ ok: true, recovery: svc.recovery.progress() }));

  api.post('/devices/restore-groups', async (req) => {
    const b = parseBody(restoreSchema, bodyObject(req.body));
    const list = b.selection?.length ? b.selection : b.macs?.length ? b.macs : undefined;
    const field = b.selection?.length ? 'selection' : 'macs';
    const selection = list !== undefined ? parseAddrList(list, field) : undefined;
    const groupId = b.groupId ?? undefined;
    return { ok: true, task: svc.restoreGroups.start({ selection, groupId }) };
  });
};
