/**
 * Timing-application integration. `GET /integration` is the operator's view (mode, current
 * heat and its start-block slots, the armed race start) behind the normal guard. Everything
 * under `/integration/` is for the plugin only: loopback callers presenting the per-start
 * shared secret in `X-Lightnet-Integration` (404 when the host runs standalone).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as z from 'zod';
import { heatBodySchema, type RotorHazardSource } from '../../services/integration/index.ts';
import { PHASES } from '../../services/integration/laps/index.ts';
import type { AppServices } from '../../services/index.ts';
import { bodyObject, parseBody } from '../validation.ts';
import { ValidationError } from '../../errors.ts';
import { FLAG_ACTIONS, type FlagAction } from '../../services/flags/index.ts';

export const INTEGRATION_HEADER = 'x-lightnet-integration';
const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

const armSchema = z.object({
  scene: z.string().min(1).max(64).nullable().default(null),
  start_epoch_ms: z.number().int().positive(),
  lead_ms: z.number().int().min(0).max(5000).optional(),
});
const scheduleSchema = z.object({ at_epoch_ms: z.number().int().positive() });
const cancelSchema = z.object({ reason: z.string().max(64).default('cancelled') });
const hexColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour like #ff0000');
const epochMs = z.number().positive().nullable().default(null);
const lapSchema = z.object({
  seat: z.number().int().min(0).max(63),
  lap_number: z.number().int().min(0).max(100_000),
  color: hexColor.nullable().default(null),
  late: z.boolean().default(false),
  event_epoch_ms: epochMs,
  force: z.boolean().default(false),
});
const phaseSchema = z.object({
  phase: z.enum([...PHASES, 'stage']),
  staging_epoch_ms: epochMs,
  start_epoch_ms: epochMs,
  seat: z.number().int().min(0).max(63).nullable().default(null),
  color: hexColor.nullable().default(null),
  force: z.boolean().default(false),
  staging_monotonic_s: z.number().nonnegative().nullable().default(null),
  start_monotonic_s: z.number().nonnegative().nullable().default(null),
  staging_tones: z.number().int().min(0).max(1000).nullable().default(null),
});
const toneSchema = z
  .object({
    tone_index: z.number().int().min(0).max(1000),
    tones_remaining: z.number().int().min(0).max(1000),
    at_monotonic_s: z.number().nonnegative().nullable().default(null),
    at_epoch_ms: z.number().positive().nullable().default(null),
  })
  .refine((b) => b.at_monotonic_s !== null || b.at_epoch_ms !== null, {
    message: 'at_monotonic_s or at_epoch_ms is required',
    path: ['at_monotonic_s'],
  });

/**
 * The body parsed, or the refusal counted on the source (the operator's Race lights page
 * shows it) and rethrown as the 400. A phase value the host does not know is `unknown`
 * (a newer plugin), anything else `malformed`.
 */
function parseCounted<S extends z.ZodType>(src: RotorHazardSource, schema: S, body: unknown): z.infer<S> {
  try {
    return parseBody(schema, body);
  } catch (err) {
    const msg = (err as Error).message;
    src.bad(msg.startsWith('phase: ') ? 'unknown' : 'malformed', msg);
    throw err;
  }
}

interface KeyParams {
  key: string;
}

export const integrationRoutes =
  (svc: AppServices, secret: string | null) => async (api: FastifyInstance) => {
    const integ = svc.integration;
    const lights = svc.raceLights.service;
    const source = integ.rotorhazard;
    api.get('/integration', async () => ({ ok: true, ...integ.view(), race_lights: lights.view() }));

    const guard = async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
      if (!secret) {
        return reply
          .code(404)
          .send({ ok: false, error: 'integration disabled: start the host with --integration' });
      }
      if (!LOOPBACK.has(req.socket.remoteAddress ?? '')) {
        return reply.code(403).send({ ok: false, error: 'integration API: loopback callers only' });
      }
      const given = req.headers[INTEGRATION_HEADER];
      if (typeof given !== 'string' || !timingSafeEqual(digest(given), digest(secret))) {
        source.bad('unauthorized', `${INTEGRATION_HEADER}: wrong or missing secret`);
        return reply.code(401).send({ ok: false, error: `${INTEGRATION_HEADER}: wrong or missing secret` });
      }
      integ.touch();
    };

    await api.register(async (priv) => {
      priv.addHook('onRequest', guard);
      priv.get('/integration/heat', async () => ({
        ok: true,
        heat: integ.heat(),
        startblock_slots: integ.slots(),
      }));
      priv.put('/integration/heat', async (req) => {
        const heat = integ.setHeat(parseCounted(source, heatBodySchema, req.body));
        source.heard('heat');
        return { ok: true, heat, startblock_slots: integ.slots() };
      });
      priv.post<{ Params: KeyParams }>('/integration/scenes/:key/run', async (req, reply) => {
        // A body with `actions` runs that draft under this key (presets to a group, start blocks).
        await integ.startScene(req.params.key, bodyObject(req.body));
        return reply.code(202).send({ ok: true, started: req.params.key });
      });
      priv.post<{ Params: KeyParams }>('/integration/scenes/:key/schedule', async (req) => {
        const b = parseBody(scheduleSchema, req.body);
        return { ok: true, ...integ.schedule(req.params.key, b.at_epoch_ms) };
      });
      priv.post('/integration/race/arm', async (req) => {
        const b = parseBody(armSchema, req.body);
        const pending = await integ.armStart({
          scene: b.scene,
          startEpochMs: b.start_epoch_ms,
          leadMs: b.lead_ms,
        });
        return { ok: true, pending };
      });
      priv.post('/integration/race/cancel', async (req) => {
        const b = parseBody(cancelSchema, req.body);
        const countdown = lights.cancelRace(b.reason);
        source.heard('race cancel', b.reason);
        return { ok: true, cancelled: integ.cancelStart(b.reason) || countdown };
      });
      // A recorded lap: answered at once (202: accepted, not yet on the air); the flash
      // goes out on the radio's terms, `result` says what became of it so far.
      priv.post('/integration/laps', async (req, reply) => {
        const b = parseCounted(source, lapSchema, req.body);
        source.lap(b.seat, b.lap_number);
        const r = lights.lap(b);
        // Shown to operators: seats as RotorHazard's panel numbers them (1–8).
        source.heard('lap', `seat ${b.seat + 1} lap ${b.lap_number}`);
        return reply.code(202).send({ ok: true, ...r });
      });
      // A staging tone announced ahead of its moment: the countdown steps on it (202).
      priv.post('/integration/race/tone', async (req, reply) => {
        const b = parseCounted(source, toneSchema, req.body);
        const r = lights.tone(b);
        source.heard('tone', `${b.tones_remaining} to go`);
        return reply.code(202).send({ ok: true, ...r });
      });
      // A phase look starts (or is scheduled) without waiting for the radio: 202 too.
      // A race flag from RotorHazard (its Event Action and Run-page buttons): `rotorhazard` pressed it.
      priv.post<{ Params: { flag: string } }>('/integration/flags/:flag', async (req) => {
        const action = req.params.flag;
        if (!(FLAG_ACTIONS as readonly string[]).includes(action))
          throw new ValidationError(`flag: must be one of ${FLAG_ACTIONS.join(', ')} (got "${action}")`);
        const report = await svc.flags.raise(action as FlagAction, 'rotorhazard');
        return { ok: report.sent > 0, ...report, state: svc.flags.state() };
      });
      priv.post('/integration/race/phase', async (req, reply) => {
        const b = parseCounted(source, phaseSchema, req.body);
        const r = lights.phase(b);
        source.heard(`phase ${b.phase}`);
        return reply.code(202).send({ ok: true, ...r });
      });
    });
  };
