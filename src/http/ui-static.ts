/**
 * Serves the built web UI (dist/ui) under the mount prefix: hashed assets with a
 * year-long immutable cache, index.html never cached, and every other GET that is
 * not an API or SSE path answered with index.html so client-side routes
 * (`<prefix>/scenes`, `<prefix>/login`) survive a reload. The prefix is injected as
 * `<base href>` so one build works under any mount prefix.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** The project root: the nearest folder above this module holding package.json. */
function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) return process.cwd();
    dir = up;
  }
}

export function defaultUiDir(): string {
  return join(projectRoot(), 'dist', 'ui');
}

/** index.html with `<base href="<prefix>/">`, or null when the UI is not built. */
export function loadIndexHtml(uiDir: string, prefix: string): string | null {
  const file = join(uiDir, 'index.html');
  if (!existsSync(file)) return null;
  const html = readFileSync(file, 'utf8');
  const base = `<base href="${escapeAttr(prefix)}/">`;
  return html.includes('<head>') ? html.replace('<head>', `<head>${base}`) : base + html;
}

const escapeAttr = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

function placeholder(prefix: string): string {
  return (
    `<!doctype html><meta charset="utf-8"><title>Lightnet</title><h1>Lightnet</h1>` +
    `<p>The web UI is not built (run <code>npm run build:ui</code>). The API lives under <code>${prefix}/api/</code> ` +
    `(try <a href="${prefix}/api/devices">${prefix}/api/devices</a>), live events at <code>${prefix}/sse</code>.</p>`
  );
}

/**
 * Registers the UI routes. `prefix` has no trailing slash ('' at the root).
 * `indexHtml` is the result of loadIndexHtml (null: serve a placeholder page).
 */
export async function registerUi(
  app: FastifyInstance,
  prefix: string,
  uiDir: string,
  indexHtml: string | null,
): Promise<void> {
  const sendIndex = (reply: import('fastify').FastifyReply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(indexHtml ?? placeholder(prefix));

  if (indexHtml !== null) {
    await app.register(fastifyStatic, {
      root: uiDir,
      prefix: `${prefix}/`,
      // One route per file found at start-up; the SPA fallback below owns the rest.
      wildcard: false,
      index: false,
      cacheControl: false,
      setHeaders: (res, path) => {
        const hashed = path.includes(`${sep}assets${sep}`);
        res.setHeader('cache-control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  }
  app.get(`${prefix}/`, (_req, reply) => sendIndex(reply));
  app.get(`${prefix}/*`, (req, reply) => {
    const path = req.url.split('?')[0] ?? '';
    // API and stream paths keep their JSON 404/405 answers.
    if (path.startsWith(`${prefix}/api/`) || path === `${prefix}/api` || path.startsWith(`${prefix}/sse`)) {
      return reply.callNotFound();
    }
    // A missing asset is a real 404, not the app shell (a stale tab after an upgrade).
    if (path.startsWith(`${prefix}/assets/`)) return reply.callNotFound();
    return sendIndex(reply);
  });
}
