/**
 * Scenes library: list, editor schema, create, read, update, delete, duplicate.
 * (Estimate, run and cancel live with the scene runner's routes.)
 */
import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../services/index.ts';
import { bodyObject } from '../validation.ts';

interface KeyParams {
  key: string;
}

export const sceneRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  const scenes = svc.scenes;
  api.get('/scenes', async () => ({ ok: true, scenes: scenes.list() }));
  api.get('/scenes/editor-schema', async () => ({ ok: true, ...svc.sceneEditorSchema() }));
  api.post('/scenes', async (req) => ({ ok: true, scene: scenes.create(bodyObject(req.body)) }));
  api.get<{ Params: KeyParams }>('/scenes/:key', async (req) => ({
    ok: true,
    scene: scenes.get(req.params.key),
  }));
  api.put<{ Params: KeyParams }>('/scenes/:key', async (req) => ({
    ok: true,
    scene: scenes.update(req.params.key, bodyObject(req.body)),
  }));
  api.delete<{ Params: KeyParams }>('/scenes/:key', async (req) => {
    scenes.remove(req.params.key);
    return { ok: true };
  });
  api.post<{ Params: KeyParams }>('/scenes/:key/duplicate', async (req) => ({
    ok: true,
    scene: scenes.duplicate(req.params.key, bodyObject(req.body)),
  }));
};
