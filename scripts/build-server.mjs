/**
 * Builds the server for production: esbuild bundles src/main.ts (our code only; packages
 * stay external and load from node_modules) into dist/server/main.js, with the simulator
 * in its own chunk that is only loaded when the simulator is used. Type-checking is not
 * done here — `npm run typecheck` / `npm test` do it.
 *
 * Why esbuild rather than tsc: it is already installed (tsx uses it), a full build takes
 * a fraction of a second (tsc needs seconds on a Pi), and one bundle loads faster than
 * ~150 separate modules, which is most of the start time.
 *
 *   node scripts/build-server.mjs            build
 *   node scripts/build-server.mjs --if-stale build only when a bundled input changed
 *
 * Staleness: the build writes dist/server/build-stamp.json listing every bundled source
 * file with its size and mtime; the check stats those files (a few ms), so `npm start`
 * costs nothing extra when nothing changed.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const OUT_DIR = join(ROOT, 'dist', 'server');
const STAMP = join(OUT_DIR, 'build-stamp.json');
const SELF = fileURLToPath(import.meta.url);

const fingerprint = (file) => {
  try {
    const s = statSync(file);
    return `${s.size}:${Math.trunc(s.mtimeMs)}`;
  } catch {
    return 'missing';
  }
};

/** Why a rebuild is needed, or null when dist/server is up to date. */
export function staleReason() {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(STAMP, 'utf8'));
  } catch {
    return 'no previous build';
  }
  for (const [file, fp] of Object.entries(stamp.inputs ?? {})) {
    if (fingerprint(join(ROOT, file)) !== fp) return `${file} changed`;
  }
  for (const file of stamp.outputs ?? []) {
    if (fingerprint(join(ROOT, file)) === 'missing') return `${file} missing`;
  }
  return null;
}

export async function buildServer() {
  const esbuild = await import('esbuild');
  const t0 = performance.now();
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: ['src/main.ts'],
    outdir: OUT_DIR,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    chunkNames: 'chunks/[name]-[hash]',
    metafile: true,
    logLevel: 'warning',
    legalComments: 'none',
  });
  const inputs = {};
  for (const file of [...Object.keys(result.metafile.inputs), relative(ROOT, SELF), 'package.json']) {
    inputs[file] = fingerprint(join(ROOT, file));
  }
  const outputs = Object.keys(result.metafile.outputs);
  mkdirSync(OUT_DIR, { recursive: true });
  writeFileSync(STAMP, JSON.stringify({ inputs, outputs }, null, 1));
  return { ms: performance.now() - t0, inputs: Object.keys(inputs).length, outputs: outputs.length };
}

if (process.argv[1] && resolve(process.argv[1]) === SELF) {
  const reason = process.argv.includes('--if-stale') ? staleReason() : 'requested';
  if (reason) {
    const r = await buildServer();
    process.stderr.write(
      `lightnet: built dist/server (${reason}): ${r.inputs} inputs in ${r.ms.toFixed(0)} ms\n`,
    );
  }
}
