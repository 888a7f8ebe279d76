/**
 * LED preset files: upload, list, select, and the active file's presets as dropdown
 * options (thin: parse, call one service).
 */
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import type { AppServices } from '../../services/index.ts';
import { PRESETS_MAX_BYTES } from '../../services/led-presets/index.ts';
import { readMultipart } from '../multipart.ts';
import { bodyObject, parseBody } from '../validation.ts';

const selectSchema = z.object({ name: z.string({ error: 'must be a string' }).min(1, 'must not be empty') });

export const ledPresetRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  await api.register(multipart, { throwFileSizeLimit: false });

  api.post('/presets/upload', { config: { body: 'multipart' } }, async (req) => {
    svc.tasks.assertIdle();
    const up = await readMultipart(req, { hardMaxBytes: PRESETS_MAX_BYTES, allowedFields: ['kind', 'name'] });
    svc.tasks.assertIdle();
    const r = await svc.ledPresets.upload(up.file?.bytes ?? Buffer.alloc(0));
    return { ok: true, ...r };
  });

  api.get('/presets/list', async () => ({ ok: true, ...(await svc.ledPresets.list()) }));

  api.post('/presets/select', async (req) => {
    svc.tasks.assertIdle();
    const b = parseBody(selectSchema, bodyObject(req.body));
    return { ok: true, current: await svc.ledPresets.select(b.name) };
  });

  // Dropdown options from the active LED preset file ([] when none is active).
  api.get('/options', async () => ({ ok: true, presets: svc.ledPresets.options() }));
};
