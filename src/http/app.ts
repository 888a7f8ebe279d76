/**
 * Builds the Fastify app: JSON body parsing (json-body.ts),
 * security (optional password, cross-origin refusal), JSON 404/405, the error
 * mapper, the SSE stream and one plugin per resource, all under the mount prefix.
 */
import { createServer } from 'node:http';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { AppServices } from '../services/index.ts';
import { ConnectionDrain } from './connection-drain.ts';
import { installDurableAck } from './durable-ack.ts';
import { methodNotAllowedText } from './method-hint.ts';
import { installJsonBodies } from './json-body.ts';
import { errorHandler } from './errors.ts';
import { ListCache } from './list-cache.ts';
import { StaticAnswers } from './static-answers.ts';
import { installCompression } from './compression.ts';
import { installConditionalGet } from './conditional-get.ts';
import { lazySchemaCompilers } from './schema-compilers.ts';
import { installSecurity, type SecurityOptions } from './security.ts';
import {
  clientErrorHandler,
  DEFAULT_HTTP_LIMITS,
  installConnectionGuard,
  type HttpLimits,
} from './connection-guard.ts';
import { SseHub } from './sse.ts';
import { deviceRoutes, groupRoutes } from './routes/devices.ts';
import { ledPresetRoutes } from './routes/led-presets.ts';
import { nativePresetRoutes, sceneRoutes, sceneRunRoutes } from './routes/scenes.ts';
import { specialsRoutes } from './routes/specials.ts';
import { listRoutes } from './routes/lists.ts';
import { stateRoutes } from './routes/state.ts';
import { systemRoutes } from './routes/system.ts';
import { defaultUiDir, loadIndexHtml, registerUi } from './ui-static.ts';
import { otaRoutes } from './routes/ota.ts';
import { integrationRoutes } from './routes/integration.ts';
import { raceLightsRoutes } from './routes/race-lights.ts';
import { flagRoutes } from './routes/flags.ts';
import { oscRoutes } from './routes/osc.ts';
import { mqttRoutes } from './routes/mqtt.ts';
import { dmxRoutes } from './routes/dmx.ts';
import { timerRoutes } from './routes/timers.ts';
import { raceRoutes } from './routes/race.ts';
import { commandPathRoutes } from './routes/command-path.ts';
import { consoleRoutes } from './routes/console.ts';
import { networksRoutes } from './routes/networks.ts';
import { rfMovesRoutes } from './routes/rf-moves.ts';
import { wifiRoutes } from './routes/wifi.ts';
import { activityRoutes } from './routes/activity.ts';
import { linkRoutes } from './routes/links.ts';
import { installActivityHooks } from './activity-hooks.ts';
import { FastReads } from './fast-reads.ts';
import { recoveryRoutes } from './routes/recovery.ts';
import { importRoutes } from './routes/import.ts';

export interface AppOptions {
  prefix: string;
  security: SecurityOptions;
  bodyLimit?: number;
  /** Built web UI folder (default: dist/ui of the project). */
  uiDir?: string;
  /** Timeouts and per-client connection cap (tests shrink them). */
  limits?: Partial<HttpLimits>;
  /** Shared secret of the plugin-only integration routes; null when standalone. */
  integrationSecret?: string | null;
}

/** Router-level refusals (a malformed or overlong path segment) in the API's error shape. */
function frameworkError(err: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void reply
      .code(414)
      .send({ ok: false, error: `url: a path segment is longer than ${MAX_PARAM_LENGTH} characters` });
  } else {
    void reply.code(400).send({ ok: false, error: 'url: malformed path (bad percent-encoding)' });
  }
}

export const JSON_BODY_LIMIT = 1024 * 1024;
/** Fastify's own default for the servers it creates (Node's is 5 s). */
const KEEP_ALIVE_MS = 72_000;
/** Keys are at most ~70 characters: longer ones reach the route and answer 404 there. */
const MAX_PARAM_LENGTH = 2048;

export async function buildApp(
  svc: AppServices,
  opts: AppOptions,
): Promise<{ app: FastifyInstance; sse: SseHub; fastReads: FastReads }> {
  const fast = new FastReads();
  const drain = new ConnectionDrain();
  const app = Fastify({
    // Our own server, so the fast read path sees each request before Fastify does.
    serverFactory: (handler) => {
      const server = createServer((req, res) => {
        if (!fast.handle(req, res, svc.phase() === 'ready')) handler(req, res);
      });
      server.keepAliveTimeout = KEEP_ALIVE_MS;
      drain.attach(server);
      return server;
    },
    logger: false,
    bodyLimit: opts.bodyLimit ?? JSON_BODY_LIMIT,
    return503OnClosing: true,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkError,
    clientErrorHandler,
    schemaController: { compilersFactory: lazySchemaCompilers() },
  });
  const prefix = opts.prefix === '/' ? '' : opts.prefix.replace(/\/+$/, '');

  // Bodies are JSON (an absent or blank body is {}); malformed JSON is a 400, another type a 415.
  installJsonBodies(app);

  // Which methods exist per path, so an unknown method answers 405 rather than 404.
  const methodsByPath = new Map<string, Set<string>>();
  app.addHook('onRoute', (r) => {
    const methods = Array.isArray(r.method) ? r.method : [r.method];
    const set = methodsByPath.get(r.url) ?? new Set<string>();
    for (const m of methods) set.add(m);
    methodsByPath.set(r.url, set);
  });

  app.setErrorHandler(errorHandler(svc.log));
  // First: the ack context must wrap every later hook and the handler.
  installDurableAck(app, svc.store, svc.log);
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0] ?? '';
    const allowed = methodsByPath.get(path);
    if (allowed && !allowed.has(req.method)) {
      void reply
        .code(405)
        .header('Allow', [...allowed].sort().join(', '))
        .send({ ok: false, error: methodNotAllowedText(req.method, path, allowed, methodsByPath) });
      return;
    }
    void reply.code(404).send({ ok: false, error: `not found: ${req.method} ${path}` });
  });

  const uiDir = opts.uiDir ?? defaultUiDir();
  const indexHtml = loadIndexHtml(uiDir, prefix);
  installConnectionGuard(app, { ...DEFAULT_HTTP_LIMITS, ...opts.limits });
  const admitsRead = installSecurity(app, prefix, {
    ...opts.security,
    loginHtml: opts.security.loginHtml ?? indexHtml,
    // The plugin-only integration routes check their own shared secret, a timer's push its
    // URL token (FPVTrackside can be given a URL, not a password).
    ownAuthPrefixes: [`${prefix}/api/integration/`, `${prefix}/api/timers/fpvtrackside`],
  });
  installActivityHooks(app, svc.log);

  // JSON reads answer 304 when the client holds them (before compression: it hashes the body).
  installConditionalGet(app, `${prefix}/api/`);
  // Answers above the threshold are compressed when the client asks (the lists carry their own).
  installCompression(app);
  const lists = new ListCache(svc);
  const answers = new StaticAnswers(svc);
  app.addHook('onClose', async () => {
    lists.close();
    answers.close();
  });
  fast.add(`${prefix}/api/devices`, lists.devices);
  fast.add(`${prefix}/api/groups`, lists.groups);
  fast.add(`${prefix}/api/scenes/editor-schema`, answers.editorSchema);
  fast.add(`${prefix}/api/native-presets/schema`, answers.nativePresetSchema);
  fast.add(`${prefix}/api/specials`, answers.specials);
  fast.start(admitsRead);
  app.addHook('preClose', (done) => {
    fast.stop();
    // The event streams were ended before closing began (host/lifecycle.ts).
    drain.drain();
    done();
  });

  // Until the state file is loaded, answers would be empty and changes would be lost.
  app.addHook('onRequest', async (req, reply) => {
    if (svc.phase() === 'ready' || req.url.split('?')[0] === `${prefix}/api/health`) return;
    return reply.code(503).send({ ok: false, error: 'booting: state is still loading, retry shortly' });
  });

  const sse = new SseHub(
    svc.bus,
    () => ({
      master: svc.master.snapshot(),
      task: svc.tasks.current(),
      recovery: svc.recovery.progress(),
      flag: svc.flags.state(),
    }),
    svc.log,
    svc.logs,
  );
  const sseHandler = async (req: import('fastify').FastifyRequest, reply: import('fastify').FastifyReply) => {
    reply.hijack();
    await sse.connect(req.raw, reply.raw);
  };
  // No automatic HEAD twin: a hijacked stream would never answer it.
  app.get(`${prefix}/sse`, { exposeHeadRoute: false }, sseHandler);
  app.get(`${prefix}/api/events`, { exposeHeadRoute: false }, sseHandler);

  await app.register(
    async (api) => {
      await api.register(systemRoutes(svc, { auth: Boolean(opts.security.password) }));
      await api.register(listRoutes(lists, answers));
      await api.register(deviceRoutes(svc));
      await api.register(groupRoutes(svc));
      await api.register(stateRoutes(svc));
      await api.register(ledPresetRoutes(svc));
      await api.register(nativePresetRoutes(svc));
      await api.register(sceneRoutes(svc));
      await api.register(sceneRunRoutes(svc));
      await api.register(specialsRoutes(svc));
      await api.register(otaRoutes(svc));
      await api.register(integrationRoutes(svc, opts.integrationSecret ?? null));
      await api.register(raceRoutes(svc));
      await api.register(flagRoutes(svc));
      await api.register(oscRoutes(svc));
      await api.register(mqttRoutes(svc));
      await api.register(dmxRoutes(svc));
      await api.register(commandPathRoutes(svc));
      await api.register(raceLightsRoutes(svc));
      await api.register(timerRoutes(svc));
      await api.register(consoleRoutes(svc));
      await api.register(networksRoutes(svc));
      await api.register(rfMovesRoutes(svc));
      await api.register(wifiRoutes(svc));
      await api.register(activityRoutes(svc));
      await api.register(linkRoutes(svc));
      await api.register(recoveryRoutes(svc));
      await api.register(importRoutes(svc));
    },
    { prefix: `${prefix}/api` },
  );

  if (prefix) {
    app.get('/', (_req, reply) => reply.redirect(`${prefix}/`));
    // The bare prefix (what people type, and what the host used to print) is the UI too:
    // the UI's relative links need the trailing slash, so redirect rather than serve.
    app.get(prefix, (req, reply) => {
      const q = req.url.indexOf('?');
      return reply.redirect(`${prefix}/${q >= 0 ? req.url.slice(q) : ''}`);
    });
  }
  registerUi(app, prefix, uiDir, indexHtml);
  return { app, sse, fastReads: fast };
}
