/**
 * Serves the built web UI (dist/ui) under the mount prefix: hashed assets with a
 * year-long immutable cache, index.html never cached, and every other GET that is
 * not an API or SSE path answered with index.html so client-side routes
 * (`<prefix>/scenes`, `<prefix>/login`) survive a reload. The prefix is injected as
 * `<base href>` so one build works under any mount prefix.
 *
 * The build is a handful of files (~200 KiB): they are read into memory once at start and
 * served from there with an ETag, compressed once per encoding on first demand. The build
 * also writes each hashed asset brotli- and gzip-compressed beside it (`.br`, `.gz`, at the
 * highest levels: see ui/vite.config.ts): those are read on first demand instead, so the
 * host never compresses its own script (a first open on a Pi-class host would wait for it).
 * Only the files found at start are served, looked up by path in memory (no path from a
 * request ever reaches the file system).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { compressBody } from './compression.ts';
import { COMPRESS_THRESHOLD, etagMatches, pickEncoding, type Encoding } from './serialized-body.ts';

/**
 * The project root: the nearest folder above this module whose package.json names a package
 * (dist/server/package.json only marks its folder CommonJS: see scripts/build-server.mjs).
 */
function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (namesPackage(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) return process.cwd();
    dir = up;
  }
}

function namesPackage(file: string): boolean {
  try {
    return typeof (JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown }).name === 'string';
  } catch {
    return false;
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

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};
const COMPRESSIBLE = new Set([
  '.js',
  '.mjs',
  '.css',
  '.html',
  '.json',
  '.webmanifest',
  '.map',
  '.svg',
  '.txt',
]);

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
  cacheControl: string;
  compressible: boolean;
  encoded: Partial<Record<Encoding, Promise<Buffer>>>;
  /** The build's own compressed copies (files found at start), by encoding. */
  prebuilt: Partial<Record<Encoding, string>>;
}

const PREBUILT: Record<Encoding, string> = { br: '.br', gzip: '.gz' };

/** Every file under `dir` but index.html (served with the base href injected), by URL path. */
function readAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const file = join(d, e.name);
      if (e.isDirectory()) {
        walk(file);
        continue;
      }
      const rel = relative(dir, file).split(sep).join('/');
      if (!e.isFile() || rel === 'index.html') continue;
      if (isPrebuiltCopy(file)) continue;
      const body = readFileSync(file);
      const ext = extname(e.name).toLowerCase();
      const hashed = rel.startsWith('assets/');
      const prebuilt: Asset['prebuilt'] = {};
      // Only beside a content-hashed name: a copy there cannot be older than its file.
      for (const [enc, suffix] of Object.entries(PREBUILT) as [Encoding, string][])
        if (hashed && existsSync(file + suffix)) prebuilt[enc] = file + suffix;
      assets.set(rel, {
        body,
        type: TYPES[ext] ?? 'application/octet-stream',
        etag: `W/"${createHash('sha1').update(body).digest('base64url').slice(0, 22)}"`,
        // Vite puts content-hashed names under assets/: they never change under the same URL.
        cacheControl: hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
        compressible: COMPRESSIBLE.has(ext) && body.length >= COMPRESS_THRESHOLD,
        encoded: {},
        prebuilt,
      });
    }
  };
  walk(dir);
  return assets;
}

/** `x.js.br` / `x.js.gz` beside `x.js`: served as x.js's encodings, not as files of their own. */
function isPrebuiltCopy(file: string): boolean {
  return Object.values(PREBUILT).some(
    (suffix) => file.endsWith(suffix) && existsSync(file.slice(0, -suffix.length)),
  );
}

/** The asset in `enc`: the build's copy when there is one (a missing one is made here). */
function encodedBody(a: Asset, enc: Encoding): Promise<Buffer> {
  const file = a.prebuilt[enc];
  return file ? readFile(file).catch(() => compressBody(a.body, enc)) : compressBody(a.body, enc);
}

async function sendAsset(a: Asset, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  void reply.header('etag', a.etag).header('cache-control', a.cacheControl);
  if (a.compressible) void reply.header('vary', 'accept-encoding');
  if (etagMatches(req.headers['if-none-match'], a.etag)) return reply.code(304).send();
  void reply.type(a.type);
  const enc = a.compressible ? pickEncoding(req.headers['accept-encoding']) : null;
  if (!enc) return reply.send(a.body);
  const pending = (a.encoded[enc] ??= encodedBody(a, enc));
  return reply.header('content-encoding', enc).send(await pending);
}

/**
 * Registers the UI routes. `prefix` has no trailing slash ('' at the root).
 * `indexHtml` is the result of loadIndexHtml (null: serve a placeholder page).
 */
export function registerUi(
  app: FastifyInstance,
  prefix: string,
  uiDir: string,
  indexHtml: string | null,
): void {
  const sendIndex = (reply: FastifyReply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(indexHtml ?? placeholder(prefix));

  // The files are looked up by the catch-all route, not given a route each: ~20 files
  // (and their HEAD twins) were a fifth of the routes the start registered before listen.
  const assets = indexHtml !== null ? readAssets(uiDir) : new Map<string, Asset>();
  app.get(`${prefix}/`, (_req, reply) => sendIndex(reply));
  app.get(`${prefix}/*`, (req, reply) => {
    const path = req.url.split('?')[0] ?? '';
    const asset = assets.get(path.slice(prefix.length + 1));
    if (asset) return sendAsset(asset, req, reply);
    // API and stream paths keep their JSON 404/405 answers.
    if (path.startsWith(`${prefix}/api/`) || path === `${prefix}/api` || path.startsWith(`${prefix}/sse`)) {
      return reply.callNotFound();
    }
    // A missing asset is a real 404, not the app shell (a stale tab after an upgrade).
    if (path.startsWith(`${prefix}/assets/`)) return reply.callNotFound();
    return sendIndex(reply);
  });
}
