/**
 * `npm start`: rebuilds what is out of date, then runs the built server,
 * dist/server/main.js, in this same process (one Node start, not two). Arguments pass
 * through: `npm start -- --port 8080`.
 *
 * - dist/server: rebuilt when a bundled source changed (a few ms of stat calls when not).
 * - dist/ui: rebuilt with `npm run build:ui` when missing or older than a file under ui/.
 *   A failed UI build is reported and the host still starts (it then serves a placeholder).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import { buildServer, OUT_DIR, ROOT, staleReason } from './build-server.mjs';

const reason = staleReason();
if (reason) {
  const r = await buildServer();
  process.stderr.write(
    `lightnet: built dist/server (${reason}): ${r.inputs} inputs in ${r.ms.toFixed(0)} ms\n`,
  );
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
  try {
    return statSync(join(ROOT, 'dist', 'ui', 'index.html')).mtimeMs < src;
  } catch {
    return true;
  }
}

if (uiStale()) {
  // Loaded only here: a start with an up-to-date UI does not carry child_process's modules.
  const { spawnSync } = await import('node:child_process');
  // npm passes its own CLI path: run it with this Node, as an argument array (no shell).
  const npm = process.env.npm_execpath;
  const r = npm
    ? spawnSync(process.execPath, [npm, 'run', 'build:ui'], { cwd: ROOT, stdio: 'inherit' })
    : spawnSync('npm', ['run', 'build:ui'], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) process.stderr.write('lightnet: the web UI build failed; starting without it\n');
}

await import(pathToFileURL(join(OUT_DIR, 'main.js')).href);
