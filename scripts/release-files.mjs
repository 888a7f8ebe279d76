/**
 * File helpers for `npm run release` (scripts/release.mjs): which installed packages the
 * built server still loads at run time, copying them, and the RotorHazard manifest check.
 */
import { cpSync, existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Packages the bundle leaves external (see scripts/build-server.mjs): serialport, whose
 * native binding cannot be bundled, and the parts loaded only on demand (Fastify's, the
 * MQTT / sACN / Art-Net libraries). Everything
 * else is inside dist/server, so only these and what they depend on ship in node_modules.
 */
export const RUNTIME_ROOTS = [
  'serialport',
  '@fastify/ajv-compiler',
  '@fastify/fast-json-stringify-compiler',
  'light-my-request',
  'mqtt',
  'sacn',
  'dmxnet',
];

/** Targets whose serialport prebuilds ship: Pi 4/5 64-bit, Pi 32-bit (armv6/7), x64 laptops. */
export const PREBUILD_DIRS = ['linux-x64', 'linux-arm64', 'linux-arm'];

/**
 * The package-lock paths (`node_modules/…`) of the runtime roots and everything they depend
 * on, resolved as Node does: a nested node_modules of the requiring package first, then up.
 */
export function runtimePackages(root, roots = RUNTIME_ROOTS) {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  const pkgs = lock.packages;
  const resolve = (from, name) => {
    let base = from;
    for (;;) {
      const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
      if (pkgs[candidate]) return candidate;
      if (!base) return null;
      const at = base.lastIndexOf('/node_modules/');
      base = at < 0 ? '' : base.slice(0, at);
    }
  };
  const seen = new Set();
  const queue = roots.map((name) => {
    const p = resolve('', name);
    if (!p) throw new Error(`release: runtime package ${name} is not in package-lock.json`);
    return p;
  });
  while (queue.length > 0) {
    const p = queue.pop();
    if (seen.has(p)) continue;
    seen.add(p);
    const entry = pkgs[p];
    const deps = { ...entry.dependencies, ...entry.optionalDependencies };
    for (const name of Object.keys(deps)) {
      const dep = resolve(p, name);
      if (dep) queue.push(dep);
      else if (!entry.optionalDependencies?.[name])
        throw new Error(`release: ${p} needs ${name}, not installed`);
    }
  }
  return [...seen].sort();
}

/** Copies the packages from root into dest/node_modules, keeping only the Linux prebuilds. */
export function copyPackages(root, dest, paths) {
  for (const p of paths) {
    const from = join(root, p);
    if (!existsSync(from)) throw new Error(`release: ${p} is missing: run npm ci first`);
    // Nested packages are copied on their own (they are in the list when needed).
    cpSync(from, join(dest, p), {
      recursive: true,
      dereference: true,
      filter: (src) => !src.slice(from.length).split('/').includes('node_modules') && !src.endsWith('.map'),
    });
  }
  const prebuilds = join(dest, 'node_modules', '@serialport', 'bindings-cpp', 'prebuilds');
  if (!existsSync(prebuilds)) throw new Error('release: @serialport/bindings-cpp ships no prebuilds');
  for (const dir of readdirSync(prebuilds)) {
    if (!PREBUILD_DIRS.includes(dir)) rmSync(join(prebuilds, dir), { recursive: true });
  }
  for (const dir of PREBUILD_DIRS) {
    if (!existsSync(join(prebuilds, dir)) || readdirSync(join(prebuilds, dir)).length === 0) {
      throw new Error(`release: no serialport prebuild for ${dir}`);
    }
  }
}

const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

/**
 * The checks RotorHazard's community plugin list applies to a manifest (its plugin manager's
 * fields plus the list's rules): a lowercase domain equal to the folder name, a semantic
 * version equal to the release tag, a required RHAPI version, a documentation link, and the
 * release asset's name. Returns the problems found (empty when it passes).
 */
export function manifestProblems(manifest, { folder, version, zipName }) {
  const problems = [];
  const need = (key, ok, why) => {
    if (!ok) problems.push(`${key}: ${why}`);
  };
  for (const key of ['domain', 'name', 'description', 'required_rhapi_version', 'version']) {
    need(key, typeof manifest[key] === 'string' && manifest[key] !== '', 'required');
  }
  need('domain', /^[a-z0-9_]+$/.test(manifest.domain ?? ''), 'lowercase letters, digits and _ only');
  need('domain', manifest.domain === folder, `must equal the plugin folder name (${folder})`);
  need('version', SEMVER.test(manifest.version ?? ''), 'must be a semantic version (1.2.3)');
  need('version', manifest.version === version, `must equal the release tag (${version})`);
  need('required_rhapi_version', /^\d+\.\d+$/.test(manifest.required_rhapi_version ?? ''), 'major.minor');
  need('documentation_uri', /^https:\/\/\S+$/.test(manifest.documentation_uri ?? ''), 'an https link');
  need('zip_filename', manifest.zip_filename === zipName, `must name the release asset (${zipName})`);
  for (const dep of manifest.dependencies ?? []) {
    need('dependencies', /^[A-Za-z0-9_.-]+==\d[\w.]*$/.test(dep), `${dep} is not package==X.Y.Z`);
  }
  return problems;
}

/**
 * RotorHazard's installer (util/plugin_installation.py) treats every `…/manifest.json` in a
 * zip as another plugin, and saves each entry under the text after the LAST `<domain>/` in
 * its path. A file that trips either would install wrongly: refuse to build such a zip.
 */
export function zipEntryProblems(entries, domain) {
  const problems = [];
  for (const e of entries) {
    if (e.endsWith('manifest.json') && e !== `${domain}/manifest.json`)
      problems.push(`${e}: a second manifest.json`);
    if (e.indexOf(`${domain}/`, 1) > 0) problems.push(`${e}: "${domain}/" inside the path`);
  }
  return problems;
}
