/**
 * Scene estimate, run and cancel. A run holds the response open until the scene ends
 * (worst case about 20 minutes); the answer is HTTP 200 with the run's own `ok`.
 */
import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../services/index.ts';
import { bodyObject } from '../validation.ts';

interface KeyParams {
  key: string;
}

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
    const result = await dispatch.run(req.params.key, bodyObject(req.body));
    return { ok: result.ok, result };
  });
  api.post('/scenes/cancel', async () => ({ ok: true, ...dispatch.cancel() }));
};
