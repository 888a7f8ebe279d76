/**
 * Race flags: GET the flag that is up and the looks, POST /flags/<green|yellow|red|clear>
 * to raise one (or clear), PUT /flags/looks to change what each shows (validated whole, on
 * disk before the answer).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import * as z from 'zod';
import { UnavailableError, ValidationError } from '../../errors.ts';
import { FLAG_ACTIONS, flagLooksSchema, type FlagAction } from '../../services/flags/index.ts';
import type { AppServices } from '../../services/index.ts';
import { parseBody } from '../validation.ts';

export const SOURCE_HEADER = 'x-lightnet-source';
const SOURCE = /^[a-z][a-z0-9_-]{0,31}$/;
/** Who pressed, when the request does not say: the operator (the UI, a script on the API). */
export const DEFAULT_SOURCE = 'operator';

const emptyBody = z.strictObject({});

/** The caller's name from `X-Lightnet-Source` (rotorhazard, a show script…), else the operator. */
export function sourceOf(req: FastifyRequest): string {
  const raw = req.headers[SOURCE_HEADER];
  if (raw === undefined) return DEFAULT_SOURCE;
  const v = Array.isArray(raw) ? raw[0] : raw;
  if (typeof v !== 'string' || !SOURCE.test(v))
    throw new ValidationError(
      `${SOURCE_HEADER}: must be a lowercase name like rotorhazard (letters, digits, - _)`,
    );
  return v;
}

export const flagRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  const flags = svc.flags;
  api.get('/flags', async () => ({
    ok: true,
    ...flags.state(),
    looks: flags.looks(),
    actions: FLAG_ACTIONS,
  }));

  api.put('/flags/looks', async (req) => {
    const looks = await flags.setLooks(parseBody(flagLooksSchema, req.body));
    return { ok: true, looks };
  });

  api.post<{ Params: { flag: string } }>('/flags/:flag', async (req) => {
    const action = req.params.flag;
    if (!(FLAG_ACTIONS as readonly string[]).includes(action))
      throw new ValidationError(`flag: must be one of ${FLAG_ACTIONS.join(', ')} (got "${action}")`);
    parseBody(emptyBody, req.body);
    const source = sourceOf(req);
    const report = await flags.raise(action as FlagAction, source);
    // The flag is up (a red one holds the race looks back) even when the radio failed, but
    // the operator must see that the field did not change.
    if (report.sent === 0)
      throw new UnavailableError(
        `flag ${action} not sent: ${report.errors[0] ?? 'gateway unavailable'} (the flag state is ${report.flag ?? 'clear'})`,
        { ...report, state: flags.state() },
      );
    return { ok: true, ...report, state: flags.state() };
  });
};
