/**
 * GET /api/devices and /api/groups, and the large schema answers (scene editor, native
 * presets, specials), served from serialised caches (ETag, 304, compression).
 */
import type { FastifyInstance } from 'fastify';
import type { ListCache } from '../list-cache.ts';
import type { StaticAnswers } from '../static-answers.ts';

export const listRoutes = (lists: ListCache, answers: StaticAnswers) => async (api: FastifyInstance) => {
  // The cache carries its own pre-compressed variants (the compression hook lets them pass).
  api.get('/devices', async (req, reply) => lists.devices.send(req, reply));
  api.get('/groups', async (req, reply) => lists.groups.send(req, reply));
  api.get('/scenes/editor-schema', async (req, reply) => answers.editorSchema.send(req, reply));
  api.get('/native-presets/schema', async (req, reply) => answers.nativePresetSchema.send(req, reply));
  api.get('/specials', async (req, reply) => answers.specials.send(req, reply));
};
