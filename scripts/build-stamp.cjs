/**
 * Is dist/server up to date? Shared by scripts/build-server.mjs (which writes the stamp) and
 * `npm start` (scripts/start.cjs, which checks it before every start). CommonJS and only
 * node:fs/node:path, so the check adds almost nothing to a start: dist/server/build-stamp.json
 * lists every bundled source file of ours and every bundled package's package.json with its
 * size and mtime (stampInputs), and the check stats each of them.
 */
'use strict';
const { readFileSync, statSync } = require('node:fs');
const { join } = require('node:path');

/** `size:mtime` of a file, or 'missing'. */
function fingerprint(file) {
  const s = statSync(file, { throwIfNoEntry: false });
  return s ? `${s.size}:${Math.trunc(s.mtimeMs)}` : 'missing';
}

/**
 * The package folder of a file inside node_modules ('…/node_modules/fastify',
 * '…/node_modules/@fastify/ajv-compiler'), or null for a file of ours.
 */
function packageDir(file) {
  const parts = file.split(/[\\/]/);
  const at = parts.lastIndexOf('node_modules');
  if (at < 0 || at + 1 >= parts.length) return null;
  const end = parts[at + 1].startsWith('@') ? at + 3 : at + 2;
  return end <= parts.length - 1 ? parts.slice(0, end).join('/') : null;
}

/**
 * What the stamp records for the bundled files (paths relative to `root`): each file of ours
 * with its fingerprint, and each package in node_modules once, by its package.json. npm
 * rewrites a package's package.json whenever it installs or updates it, so that one stat
 * stands for the package's files: the check before every `npm start` stats ~330 files
 * instead of ~630 (half its CPU, ~35 → ~17 ms at load 12, about four times that on a
 * Pi-class core). A file edited by hand inside node_modules is not seen: rebuild with
 * `npm run build:server` then.
 */
function stampInputs(root, files) {
  const inputs = {};
  for (const file of files) {
    const pkg = packageDir(file);
    const key = pkg ? `${pkg}/package.json` : file;
    if (!(key in inputs)) inputs[key] = fingerprint(join(root, key));
  }
  return inputs;
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

module.exports = { fingerprint, packageDir, stampInputs, staleReason };
