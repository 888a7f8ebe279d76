/**
 * Race lights settings (RotorHazard laps and race phases on the gates): GET for the
 * operator's view (settings plus live counters), PUT to replace them (validated whole, on
 * disk before the answer).
 */
import type { FastifyInstance } from 'fastify';
import { ledEffects } from '../../domain/led-effects.ts';
import { raceLightsSchema } from '../../services/integration/laps/index.ts';
import type { AppServices } from '../../services/index.ts';
import { parseBody } from '../validation.ts';

export const raceLightsRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  const rl = svc.raceLights;
  // The flash effect choices travel along (the plugin's settings panel offers them); built
  // on the first request, so a start does not check the effect catalogue.
  let effects: { value: number; label: string }[] | null = null;
  api.get('/race-lights', async () => ({
    ok: true,
    settings: rl.settings.get(),
    effects: (effects ??= ledEffects().map((e) => ({ value: e.id, label: e.name }))),
    ...rl.service.view(),
  }));
  api.put('/race-lights', async (req) => {
    const settings = await rl.settings.put(parseBody(raceLightsSchema, req.body));
    return { ok: true, settings };
  });
};
