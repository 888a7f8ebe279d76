/**
 * The command path's owners view and the operator's controls: who holds what
 * (`GET /control/owners`), take over and hand back a target, and the sources' settings
 * (switch, priority override, class priorities, live timeout, rate limit; on disk before 200).
 */
import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import { DeviceRegistry } from '../../services/devices/index.ts';
import { commandPathSettingsSchema, type TargetJson } from '../../services/command-path/index.ts';
import type { AppServices } from '../../services/index.ts';
import { bodyObject, parseBody, zInt } from '../validation.ts';

const targetSchema = z.object({
  target: z.discriminatedUnion(
    'kind',
    [
      z.strictObject({ kind: z.literal('all') }),
      z.strictObject({ kind: z.literal('group'), id: zInt(0, 254) }),
      z.strictObject({ kind: z.literal('device'), addr: z.string({ error: 'must be a string' }) }),
    ],
    { error: 'must be {kind:"all"}, {kind:"group", id} or {kind:"device", addr}' },
  ),
});

export const commandPathRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  const path = svc.commandPath;
  const target = (body: unknown): TargetJson => {
    const t = parseBody(targetSchema, bodyObject(body)).target;
    if (t.kind === 'device') return { kind: 'device', addr: DeviceRegistry.parseAddr(t.addr, 'target.addr') };
    return t;
  };

  api.get('/control/owners', async () => ({ ok: true, ...path.owners() }));
  api.post('/control/take-over', async (req) => ({ ok: true, holder: path.takeOver(target(req.body)) }));
  api.post('/control/hand-back', async (req) => ({ ok: true, released: path.handBack(target(req.body)) }));
  api.get('/control/settings', async () => ({ ok: true, settings: path.settings() }));
  api.patch('/control/settings', async (req) => ({
    ok: true,
    settings: await path.updateSettings(parseBody(commandPathSettingsSchema, bodyObject(req.body))),
  }));
};
