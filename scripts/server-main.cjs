/**
 * dist/server/main.js (copied there by scripts/build-server.mjs; CommonJS, as its folder's package.json says): runs the bundled server,
 * dist/server/lightnet.cjs, with a V8 code cache. Compiling the ~1.2 MB bundle and the
 * functions a start runs cost about a quarter of the CPU time to ready (Node 20 has no
 * module.enableCompileCache); with the cache V8 skips that work. The cache is written a few
 * seconds after a start (so it holds the functions the start compiled) to the first writable
 * one of: $LIGHTNET_CODE_CACHE_DIR ("off" disables), $CACHE_DIRECTORY (systemd's
 * CacheDirectory=), this folder, $XDG_CACHE_HOME/lightnet or ~/.cache/lightnet. Its name holds
 * the bundle's SHA-256 (written into this file by scripts/build-server.mjs), the bundle's size
 * and mtime, the Node version, the architecture and the Node flags, and V8 checks it again on
 * load: a stale or foreign cache is never used, and any cache problem only means a slower
 * start. LIGHTNET_CODE_CACHE_DEBUG=1 reports on stderr what happened (tests).
 *
 * No hashing at start (issue 40): the build already knows the digest; hashing the 1.4 MB
 * bundle here cost CPU at every start (measured in docs/developers/benchmarks.md).
 */
'use strict';
const { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { homedir } = require('node:os');
const { join } = require('node:path');
const vm = require('node:vm');

const here = __dirname;
const bundle = join(here, 'lightnet.cjs');
/** The bundle's SHA-256 (16 hex digits), put here by the build; the placeholder when run unbuilt. */
const BUILD = '__LIGHTNET_BUNDLE_SHA256__';
const source = readFileSync(bundle, 'utf8');
const st = statSync(bundle);
const env = process.env;
const off = env.LIGHTNET_CODE_CACHE_DIR === 'off';
const dirs = off
  ? []
  : [
      env.LIGHTNET_CODE_CACHE_DIR,
      env.CACHE_DIRECTORY?.split(':')[0],
      here,
      join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'lightnet'),
    ].filter(Boolean);
/** FNV-1a, 32 bits: folds the rest of the key into the file name (not a security hash). */
function fnv1a(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}
const rest = `${st.size}\0${st.mtimeMs}\0${process.version}\0${process.arch}\0${process.execArgv.join(' ')}`;
const name = `lightnet-${BUILD.startsWith('__') ? 'unbuilt' : BUILD}-${fnv1a(rest)}.v8cache`;

let cached;
for (const d of dirs) {
  try {
    cached = readFileSync(join(d, name));
    break;
  } catch {
    /* not in this one */
  }
}

const script = new vm.Script(Module.wrap(source), { filename: bundle, cachedData: cached });
const used = cached !== undefined && !script.cachedDataRejected;
const debug =
  env.LIGHTNET_CODE_CACHE_DEBUG === '1'
    ? (m) => process.stderr.write(`lightnet: code cache ${m}\n`)
    : () => {};
debug(used ? 'used' : cached === undefined ? 'none' : 'rejected');
cached = undefined;
const mod = new Module(bundle, undefined);
mod.filename = bundle;
mod.paths = Module._nodeModulePaths(here);
script.runInThisContext()(mod.exports, Module.createRequire(bundle), mod, bundle, here);

if (!used && dirs.length > 0) {
  setTimeout(() => {
    const data = script.createCachedData();
    for (const d of dirs) {
      try {
        mkdirSync(d, { recursive: true });
        const tmp = join(d, `${name}.${process.pid}.tmp`);
        writeFileSync(tmp, data);
        renameSync(tmp, join(d, name));
        debug(`written ${join(d, name)}`);
        return;
      } catch {
        /* read-only or missing: try the next place */
      }
    }
  }, 3000).unref();
}
