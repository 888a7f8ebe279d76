/**
 * OTA capability: firmware/cfg uploads and their list, the firmware/presets/cfg update
 * task and the node preset download task (thin: parse, call the service).
 */
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../services/index.ts';
import { fwStartSchema, parseKind, presetsDownloadSchema, UPLOAD_LIMITS } from '../../services/ota/index.ts';
import { readMultipart } from '../multipart.ts';
import { bodyObject, parseBody } from '../validation.ts';

export const otaRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  await api.register(multipart, { throwFileSizeLimit: false });

  api.post('/fw/upload', { config: { body: 'multipart' } }, async (req) => {
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

  api.post('/fw/start', async (req) => {
    svc.tasks.assertIdle();
    const b = parseBody(fwStartSchema, bodyObject(req.body));
    return { ok: true, task: await svc.ota.startFirmware(b) };
  });

  api.post('/presets/download', async (req) => {
    svc.tasks.assertIdle();
    const b = parseBody(presetsDownloadSchema, bodyObject(req.body));
    return { ok: true, task: svc.ota.startPresetsDownload(b) };
  });
};
