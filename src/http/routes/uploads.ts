/** Firmware/cfg uploads and LED preset files: upload, list, select (thin: parse, call one service). */
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import { PRESETS_MAX_BYTES } from '../../services/led-presets/files.ts';
import { parseKind, UPLOAD_LIMITS } from '../../services/ota/firmware-store.ts';
import type { AppServices } from '../../services/index.ts';
import { readMultipart } from '../multipart.ts';
import { bodyObject, parseBody } from '../validation.ts';

const selectSchema = z.object({ name: z.string({ error: 'must be a string' }).min(1, 'must not be empty') });

export const uploadRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  await api.register(multipart, { throwFileSizeLimit: false });

  api.post('/fw/upload', async (req) => {
    svc.tasks.assertIdle();
    const up = await readMultipart(req, {
      hardMaxBytes: UPLOAD_LIMITS.firmware.max,
      maxBytes: (f) =>
        f.kind?.trim().toLowerCase() === 'cfg' ? UPLOAD_LIMITS.cfg.max : UPLOAD_LIMITS.firmware.max,
      allowedFields: ['kind'],
    });
    const kind = parseKind(up.fields.kind);
    // A task may have started while the body streamed in.
    svc.tasks.assertIdle();
    const file = await svc.firmware.add({
      kind,
      bytes: up.file?.bytes ?? Buffer.alloc(0),
      clientName: up.file?.filename,
      mime: up.file?.mimetype,
    });
    return { ok: true, file };
  });

  api.get('/fw/uploads', async () => ({ ok: true, files: svc.firmware.list() }));

  api.post('/presets/upload', async (req) => {
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
};
