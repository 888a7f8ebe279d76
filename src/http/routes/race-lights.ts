/**
 * Race lights settings (RotorHazard laps and race phases on the gates): GET for the
 * operator's view (settings plus live counters), PUT to replace them (validated whole, on
 * disk before the answer).
 */
import type { FastifyInstance } from 'fastify';
import { ledEffects } from '../../domain/led-effects.ts';
import {
  SEATS,
  raceLightsSchema,
  testFlashSchema,
  testTarget,
} from '../../services/integration/laps/index.ts';
import type { AppServices } from '../../services/index.ts';
import { parseBody } from '../validation.ts';

export const raceLightsRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  const rl = svc.raceLights;
  // The flash effect choices travel along (the plugin's settings panel offers them); built
  // on the first request, so a start does not check the effect catalogue.
  let effects: { value: number; label: string }[] | null = null;
  api.get('/race-lights', async () => {
    const settings = rl.settings.get();
    const heat = svc.integration.heat();
    return {
      ok: true,
      settings,
      effects: (effects ??= ledEffects().map((e) => ({ value: e.id, label: e.name }))),
      // What each seat flashes in when its lap brings no colour: the setting, else the heat's.
      seat_colors: Array.from({ length: SEATS }, (_, seat) => {
        const own = settings.seats.find((x) => x.seat === seat)?.color ?? null;
        const fromHeat = heat?.seats.find((x) => x.seat === seat)?.color ?? null;
        return { seat, color: own ?? fromHeat, from: own ? 'setting' : fromHeat ? 'heat' : null };
      }),
      ...rl.service.view(),
    };
  });
  api.put('/race-lights', async (req) => {
    const settings = await rl.settings.put(parseBody(raceLightsSchema, req.body));
    return { ok: true, settings };
  });
  // The operator's Test: one flash through the lap-flash path (202: handed to the radio's
  // queue; a drop is a 409 saying why). `recent_flashes` then shows whether it went out.
  api.post('/race-lights/test', async (req, reply) => {
    const t = testTarget(
      parseBody(testFlashSchema, req.body),
      rl.settings.get(),
      svc.integration.heat(),
      rl.catalog,
    );
    const { result } = rl.service.test(t.gate, t.color);
    if (result !== 'flash' && result !== 'merged' && result !== 'waiting')
      return reply.code(409).send({ ok: false, error: `${t.label}: flash not sent (${result})`, result });
    return reply.code(202).send({ ok: true, result, gate: t.label });
  });
};
