/**
 * Scenes capability: the scenes library (list, editor schema, CRUD, duplicate), native
 * presets (list, schema, CRUD, duplicate), and scene estimate, run and cancel. A run
 * holds the response open until the scene ends (worst case about 20 minutes); the
 * answer is HTTP 200 with the run's own `ok`.
 */
import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../services/index.ts';
import { bodyObject } from '../validation.ts';
import { commandSource } from '../command-source.ts';
import { sceneTargets } from '../../services/command-path/index.ts';

interface KeyParams {
  key: string;
}

export const sceneRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  const scenes = svc.scenes;
  api.get('/scenes', async () => ({ ok: true, scenes: scenes.list() }));
  // GET /scenes/editor-schema: routes/lists.ts (served from a serialised cache).
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

export const nativePresetRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  const presets = svc.nativePresets;
  api.get('/native-presets', async () => ({ ok: true, presets: presets.list() }));
  // GET /native-presets/schema: routes/lists.ts (served from a serialised cache).
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

export const sceneRunRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  const dispatch = svc.sceneDispatch;
  api.post('/scenes/estimate', async (req) => ({
    ok: true,
    ...dispatch.estimateDraft(bodyObject(req.body)),
  }));
  api.get<{ Params: KeyParams }>('/scenes/:key/estimate', async (req) => ({
    ok: true,
    ...dispatch.estimateStored(req.params.key),
  }));
  api.post<{ Params: KeyParams }>('/scenes/:key/run', async (req) => {
    const body = bodyObject(req.body);
    const source = commandSource(req, svc.commandPath);
    const targets = sceneTargets(dispatch.actionsOf(req.params.key, body));
    const result = await svc.commandPath.run({ source, targets, action: `scene ${req.params.key}` }, () =>
      dispatch.run(req.params.key, body),
    );
    return { ok: result.ok, result };
  });
  api.post('/scenes/cancel', async () => ({ ok: true, ...dispatch.cancel() }));
};
