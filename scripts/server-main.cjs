/**
 * dist/server/main.js (copied there by scripts/build-server.mjs; CommonJS, as its folder's package.json says): runs the bundled server,
 * dist/server/lightnet.cjs, with a V8 code cache. Compiling the ~1.2 MB bundle and the
 * functions a start runs cost about a quarter of the CPU time to ready (Node 20 has no
 * module.enableCompileCache); with the cache V8 skips that work. The cache is written a few
 * seconds after a start (so it holds the functions the start compiled) to the first writable
 * one of: $LIGHTNET_CODE_CACHE_DIR ("off" disables), $CACHE_DIRECTORY (systemd's
 * CacheDirectory=), this folder, $XDG_CACHE_HOME/lightnet or ~/.cache/lightnet. Its name holds
 * a hash of the bundle, the Node version, the architecture and the Node flags, and V8 checks
 * it again on load: a stale or foreign cache is never used, and any cache problem only means
 * a slower start. LIGHTNET_CODE_CACHE_DEBUG=1 reports on stderr what happened (tests).
 */
'use strict';
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { homedir } = require('node:os');
const { join } = require('node:path');
const vm = require('node:vm');

const here = __dirname;
const bundle = join(here, 'lightnet.cjs');
// Read as bytes and hashed as bytes (the same digest as of the text, ~2 ms less than
// hashing the decoded string, which re-encodes it).
let bytes = readFileSync(bundle);
const source = bytes.toString('utf8');
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
const key = createHash('sha256')
  .update(bytes)
  .update(`\0${process.version}\0${process.arch}\0${process.execArgv.join(' ')}`)
  .digest('hex')
  .slice(0, 16);
bytes = undefined; // 1.4 MB the process need not keep
const name = `lightnet-${key}.v8cache`;

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
