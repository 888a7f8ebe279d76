/** Device options ("specials"): schema, acknowledged write (task), live read, import, actions. */
import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import { ValidationError } from '../../errors.ts';
import type { AppServices } from '../../services/index.ts';
import { bodyObject, parseBody } from '../validation.ts';
import { commandSource } from '../command-source.ts';

const zMac = z.string({ error: 'must be a string of 6 or 12 hex characters' }).trim().min(1, 'is required');
const zKey = z.string({ error: 'must be a string' }).trim().min(1, 'is required');

const keyed = z.object({ mac: zMac, key: zKey });
const withValue = keyed.extend({ value: z.unknown().optional() });

/** `function` (alias `fn`) and an optional `params` object. */
function parseAction(body: Record<string, unknown>): {
  mac: string;
  fn: string;
  params: Record<string, unknown>;
} {
  const b = parseBody(z.object({ mac: zMac }), body);
  const raw = body.function ?? body.fn;
  const fn = parseBody(z.object({ function: zKey }), { function: raw }).function;
  const params = body.params ?? {};
  if (typeof params !== 'object' || params === null || Array.isArray(params))
    throw new ValidationError('params: must be an object');
  return { mac: b.mac, fn, params: params as Record<string, unknown> };
}

export const specialsRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  // GET /specials: routes/lists.ts (served from a serialised cache).

  api.post('/specials/config', async (req) => {
    const b = parseBody(withValue, bodyObject(req.body));
    return { ok: true, task: svc.specials.startConfig(b.mac, b.key, b.value) };
  });

  api.post('/specials/get', async (req) => {
    const b = parseBody(keyed, bodyObject(req.body));
    return svc.specials.read(b.mac, b.key);
  });

  api.post('/specials/config/import', async (req) => {
    const b = parseBody(withValue, bodyObject(req.body));
    return svc.specials.importValue(b.mac, b.key, b.value);
  });

  api.post('/specials/action', async (req) => {
    const a = parseAction(bodyObject(req.body));
    // A device function is a light command: decided by the command path (its 400/404 first).
    const { addr } = svc.specials.target(a.mac);
    const source = commandSource(req, svc.commandPath);
    return svc.commandPath.run(
      { source, targets: [{ kind: 'device', addr }], action: `function ${a.fn}` },
      () => svc.specialsActions.run(a.mac, a.fn, a.params),
    );
  });
};
