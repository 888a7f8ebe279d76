/**
 * `npm start`: runs the built server, dist/server/main.js, in this same process (one Node
 * start, not two), after building what is out of date. Arguments pass through:
 * `npm start -- --port 8080`.
 *
 * - dist/server: rebuilt (`node scripts/build-server.mjs`) when a bundled source changed or
 *   it is missing, as on a fresh clone after `npm ci`.
 * - dist/ui: rebuilt with `npm run build:ui` when missing or older than a file under ui/.
 *   A failed UI build is reported and the host still starts (it then serves a placeholder).
 *
 * Why CommonJS, and builds in a child process: when everything is up to date (every start
 * but the first) this file loads only node:fs and node:path before the server — no ES-module
 * loader, no esbuild, no child_process — which matters on a Pi, where npm itself already
 * costs ~0.6 s of a quarter core (docs/developers/benchmarks.md).
 */
'use strict';
const { readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');
const { staleReason } = require('./build-stamp.cjs');

const ROOT = join(__dirname, '..');

/** Runs a build step with this Node, as an argument array (no shell); true when it worked. */
function build(args) {
  const { spawnSync } = require('node:child_process');
  const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  return r.status === 0;
}

const reason = staleReason(ROOT);
if (reason) {
  // It says why and how long the build took (`lightnet: built dist/server (<reason>) …`).
  if (!build([join(ROOT, 'scripts', 'build-server.mjs'), '--if-stale'])) {
    process.stderr.write('lightnet: the server build failed\n');
    process.exit(1);
  }
}

/** Newest mtime under `dir` (0 when it does not exist). */
function newest(dir) {
  let max = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    max = Math.max(max, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return max;
}

function uiStale() {
  const src = newest(join(ROOT, 'ui'));
  if (src === 0) return false; // no UI sources in this checkout
  const built = statSync(join(ROOT, 'dist', 'ui', 'index.html'), { throwIfNoEntry: false });
  return !built || built.mtimeMs < src;
}

if (uiStale()) {
  // npm passes its own CLI path: run it with this Node; else npm on PATH.
  const npm = process.env.npm_execpath;
  const ok = npm
    ? build([npm, 'run', 'build:ui'])
    : require('node:child_process').spawnSync('npm', ['run', 'build:ui'], { cwd: ROOT, stdio: 'inherit' })
        .status === 0;
  if (!ok) process.stderr.write('lightnet: the web UI build failed; starting without it\n');
}

require(join(ROOT, 'dist', 'server', 'main.js'));
