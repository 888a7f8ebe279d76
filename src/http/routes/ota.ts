/** Over-the-air tasks: firmware/presets/cfg update and preset download (thin: parse, call the service). */
import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../services/index.ts';
import { fwStartSchema, presetsDownloadSchema } from '../../services/ota/request.ts';
import { bodyObject, parseBody } from '../validation.ts';

export const otaRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
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
