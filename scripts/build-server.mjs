/**
 * Builds the server for production: esbuild bundles src/main.ts with its JavaScript
 * dependencies (fastify, zod, pino, …; only serialport, a native binding, stays external
 * and loads from node_modules) into one CommonJS file, dist/server/lightnet.cjs,
 * whitespace-minified; dist/server/main.js (scripts/server-main.cjs) runs it with a V8 code
 * cache. The simulator's modules are only initialised when the simulator is used. The
 * RaceLink import CLI (src/import-cli.ts) is bundled the same way into dist/server/import.cjs
 * (`bin/lightnet import` in a release). dist/server/package.json marks the folder CommonJS,
 * so main.js starts without Node's ES-module loader (~10 ms CPU, ~0.6 MB RSS less).
 * Type-checking is not done here — `npm run typecheck` / `npm test` do it.
 *
 * Why esbuild rather than tsc: it is already installed (tsx uses it), a build takes
 * about a second (tsc needs many on a Pi), and one bundle starts faster and smaller than
 * ~600 separate modules: measured CPU time to ready 343 → 261 ms, RSS 87 → 77 MiB.
 *
 *   node scripts/build-server.mjs            build into dist/server
 *   node scripts/build-server.mjs --if-stale build only when a bundled input changed
 *   node scripts/build-server.mjs --out DIR  build into DIR (tests)
 *
 * Staleness: the build writes dist/server/build-stamp.json listing every bundled source
 * file with its size and mtime; the check (scripts/build-stamp.cjs, shared with `npm start`)
 * stats those files (a few ms), so `npm start` costs nothing extra when nothing changed.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import buildStamp from './build-stamp.cjs';

const { stampInputs, staleReason: stale } = buildStamp;

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const OUT_DIR = join(ROOT, 'dist', 'server');
const STAMP = join(OUT_DIR, 'build-stamp.json');
const SELF = fileURLToPath(import.meta.url);
const LOADER = join(ROOT, 'scripts', 'server-main.cjs');
const STAMP_CHECK = join(ROOT, 'scripts', 'build-stamp.cjs');
/** The bundles: the server (run by main.js) and the RaceLink import CLI. */
const ENTRIES = { lightnet: 'src/main.ts', import: 'src/import-cli.ts' };

/**
 * Packages left out of the bundle and loaded from node_modules only if something asks for
 * them: Fastify's schema compilers (see src/http/schema-compilers.ts), light-my-request
 * (Fastify's inject(), which the server never calls) and the off-by-default adapters' libraries. Parsing them at every start cost more
 * than the rest of Fastify.
 */
const ON_DEMAND = [
  '@fastify/ajv-compiler',
  '@fastify/fast-json-stringify-compiler',
  'light-my-request',
  // The adapters' libraries (MQTT, sACN, Art-Net): a host without --mqtt / --dmx never loads
  // them, so they need not be read and compiled at every start (~0.6 MB of the bundle).
  'mqtt',
  'sacn',
  'dmxnet',
];

/**
 * node:https and node:http2, loaded only if used. Fastify's server module and better-sse
 * import them at the top for servers the host never makes (it serves plain HTTP/1.1 from
 * its own http.createServer): ~5 ms of CPU at every start, ~2% of it. Fastify (CommonJS)
 * gets an object that requires the real module on first property access; better-sse only
 * tests `req instanceof Http2ServerRequest` (after its HTTP/1 case), so it gets classes
 * whose instanceof asks the real ones. Anything else importing them gets the real module.
 */
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(build) {
    build.onResolve({ filter: /^(node:)?(https|http2)$/ }, (args) => {
      const name = args.path.replace(/^node:/, '');
      if (/[\\/]node_modules[\\/]fastify[\\/]lib[\\/]server\.js$/.test(args.importer))
        return { path: name, namespace: 'lazy-cjs' };
      if (name === 'http2' && /[\\/]node_modules[\\/]better-sse[\\/]/.test(args.importer))
        return { path: name, namespace: 'lazy-http2-classes' };
      return undefined;
    });
    build.onLoad({ filter: /.*/, namespace: 'lazy-cjs' }, (args) => ({
      loader: 'js',
      contents: `let m;
const real = () => (m ??= require('node:${args.path}'));
module.exports = new Proxy({}, {
  get: (_, k) => real()[k],
  has: (_, k) => k in real(),
  ownKeys: () => Reflect.ownKeys(real()),
  getOwnPropertyDescriptor: (_, k) => {
    const d = Object.getOwnPropertyDescriptor(real(), k);
    return d && { ...d, configurable: true };
  },
});`,
    }));
    build.onLoad({ filter: /.*/, namespace: 'lazy-http2-classes' }, () => ({
      loader: 'js',
      contents: `let m;
const real = () => (m ??= require('node:http2'));
export class Http2ServerRequest {
  static [Symbol.hasInstance](x) { return x instanceof real().Http2ServerRequest; }
}
export class Http2ServerResponse {
  static [Symbol.hasInstance](x) { return x instanceof real().Http2ServerResponse; }
}`,
    }));
  },
};

/** Why a rebuild of dist/server is needed, or null when it is up to date. */
export const staleReason = () => stale(ROOT);

export async function buildServer(outDir = OUT_DIR) {
  const esbuild = await import('esbuild');
  const t0 = performance.now();
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: ENTRIES,
    outdir: outDir,
    outExtension: { '.js': '.cjs' },
    bundle: true,
    // CommonJS, one file: dist/server/main.js runs it through vm.Script with a V8 code
    // cache (see scripts/server-main.mjs), which ES modules on Node 20 cannot use.
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    // Native binding, and code that is only loaded on demand (schema compilers, inject()).
    external: ['serialport', '@serialport/*', ...ON_DEMAND],
    // The sources are ES modules: import.meta.url becomes the bundle's own file URL.
    define: { 'import.meta.url': '__lnImportMetaUrl' },
    banner: { js: "var __lnImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: true,
    metafile: true,
    logLevel: 'warning',
    legalComments: 'none',
    plugins: [lazyBuiltins],
  });
  // main.js gets the bundle's digest for its code cache's name (it need not hash at start).
  const digest = createHash('sha256')
    .update(readFileSync(join(outDir, 'lightnet.cjs')))
    .digest('hex')
    .slice(0, 16);
  writeFileSync(
    join(outDir, 'main.js'),
    readFileSync(LOADER, 'utf8').replace("'__LIGHTNET_BUNDLE_SHA256__'", `'${digest}'`),
  );
  // The package.json above says "type": "module": this folder's .js files are CommonJS.
  writeFileSync(join(outDir, 'package.json'), '{ "type": "commonjs" }\n');
  // Leftovers of earlier builds (ESM chunks, code caches of an older bundle) go.
  const keep = new Set(['main.js', 'package.json', 'build-stamp.json']);
  for (const name of Object.keys(ENTRIES)) keep.add(`${name}.cjs`).add(`${name}.cjs.map`);
  for (const f of readdirSync(outDir))
    if (!keep.has(f)) rmSync(join(outDir, f), { recursive: true, force: true });
  if (outDir !== OUT_DIR) return { ms: performance.now() - t0, inputs: 0, outputs: 0 };
  const inputs = stampInputs(ROOT, [
    ...Object.keys(result.metafile.inputs),
    relative(ROOT, SELF),
    relative(ROOT, LOADER),
    relative(ROOT, STAMP_CHECK),
    'package.json',
  ]);
  const outputs = [
    ...Object.keys(result.metafile.outputs),
    relative(ROOT, join(OUT_DIR, 'main.js')),
    relative(ROOT, join(OUT_DIR, 'package.json')),
  ];
  mkdirSync(OUT_DIR, { recursive: true });
  writeFileSync(STAMP, JSON.stringify({ inputs, outputs }, null, 1));
  return { ms: performance.now() - t0, inputs: Object.keys(inputs).length, outputs: outputs.length };
}

if (process.argv[1] && resolve(process.argv[1]) === SELF) {
  const outAt = process.argv.indexOf('--out');
  const outDir = outAt > 0 ? resolve(process.argv[outAt + 1] ?? OUT_DIR) : OUT_DIR;
  const reason = process.argv.includes('--if-stale') ? staleReason() : 'requested';
  if (reason) {
    const r = await buildServer(outDir);
    process.stderr.write(
      `lightnet: built dist/server (${reason}): ${r.inputs} inputs in ${r.ms.toFixed(0)} ms\n`,
    );
  }
}
