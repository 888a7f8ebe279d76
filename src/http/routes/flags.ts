/**
 * Race flags: GET the flag that is up and the looks, POST /flags/<green|yellow|red|clear>
 * to raise one (or clear), PUT /flags/looks to change what each shows (validated whole, on
 * disk before the answer).
 */
import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import { UnavailableError, ValidationError } from '../../errors.ts';
import { FLAG_ACTIONS, flagLooksSchema, type FlagAction } from '../../services/flags/index.ts';
import type { AppServices } from '../../services/index.ts';
import { parseBody } from '../validation.ts';
import { commandSource } from '../command-source.ts';

const emptyBody = z.strictObject({});

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
    // Whoever presses (the UI, an API client naming itself): the flag itself is `flag`, safety.
    const source = commandSource(req, svc.commandPath);
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
