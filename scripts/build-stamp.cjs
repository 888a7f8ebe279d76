/**
 * Is dist/server up to date? Shared by scripts/build-server.mjs (which writes the stamp) and
 * `npm start` (scripts/start.cjs, which checks it before every start). CommonJS and only
 * node:fs/node:path, so the check adds almost nothing to a start: dist/server/build-stamp.json
 * lists every bundled source file with its size and mtime, and the check stats each of them.
 */
'use strict';
const { readFileSync, statSync } = require('node:fs');
const { join } = require('node:path');

/** `size:mtime` of a file, or 'missing'. */
function fingerprint(file) {
  const s = statSync(file, { throwIfNoEntry: false });
  return s ? `${s.size}:${Math.trunc(s.mtimeMs)}` : 'missing';
}

/** Why dist/server under `root` must be rebuilt, or null when it is up to date. */
function staleReason(root) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(root, 'dist', 'server', 'build-stamp.json'), 'utf8'));
  } catch {
    return 'no previous build';
  }
  for (const [file, fp] of Object.entries(stamp.inputs ?? {})) {
    if (fingerprint(join(root, file)) !== fp) return `${file} changed`;
  }
  for (const file of stamp.outputs ?? []) {
    if (fingerprint(join(root, file)) === 'missing') return `${file} missing`;
  }
  return null;
}

module.exports = { fingerprint, staleReason };
