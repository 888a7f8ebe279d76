/**
 * DMX in: GET /dmx (each universe's stream state, counters, last source and its 512 values;
 * the patch with each fixture's channel names, the fixture kinds), PUT /dmx/patch (the whole patch, checked —
 * overlap, address, group, universe — and on disk before the answer).
 */
import type { FastifyInstance } from 'fastify';
import { ConflictError } from '../../errors.ts';
import type { AppServices } from '../../services/index.ts';
import { parseBody } from '../validation.ts';

export const dmxRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  api.get('/dmx', async () => {
    const dmx = svc.dmx();
    if (!dmx) return { ok: true, enabled: false };
    return { ok: true, enabled: true, ...dmx.view() };
  });

  api.put('/dmx/patch', async (req) => {
    const dmx = svc.dmx();
    if (!dmx)
      throw new ConflictError(
        'DMX in is off: start the host with --dmx sacn:<universe> or artnet:<net>.<subnet>.<universe>',
      );
    // Loaded on use: a host without --dmx never loads the DMX modules.
    const { patchSchema } = await import('../../services/dmx/index.ts');
    const body = parseBody(patchSchema, req.body);
    const fixtures = await dmx.setPatch(body.fixtures);
    return { ok: true, fixtures };
  });
};
