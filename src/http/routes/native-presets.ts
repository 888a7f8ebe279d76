/** Native presets: list, editor schema, create, read, update, delete, duplicate. */
import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../services/index.ts';
import { bodyObject } from '../validation.ts';

interface KeyParams {
  key: string;
}

export const nativePresetRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  const presets = svc.nativePresets;
  api.get('/native-presets', async () => ({ ok: true, presets: presets.list() }));
  api.get('/native-presets/schema', async () => ({ ok: true, schema: presets.schema() }));
  api.post('/native-presets', async (req) => ({ ok: true, preset: presets.create(bodyObject(req.body)) }));
  api.get<{ Params: KeyParams }>('/native-presets/:key', async (req) => ({
    ok: true,
    preset: presets.get(req.params.key),
  }));
  api.put<{ Params: KeyParams }>('/native-presets/:key', async (req) => ({
    ok: true,
    preset: presets.update(req.params.key, bodyObject(req.body)),
  }));
  api.delete<{ Params: KeyParams }>('/native-presets/:key', async (req) => ({
    ok: true,
    ...presets.remove(req.params.key),
  }));
  api.post<{ Params: KeyParams }>('/native-presets/:key/duplicate', async (req) => ({
    ok: true,
    preset: presets.duplicate(req.params.key, bodyObject(req.body)),
  }));
};
