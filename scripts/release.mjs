/**
 * `npm run release`: builds the server and the UI, then writes
 *
 *   release/lightnet-<version>.tar.gz           → lightnet-<version>/ with bin/lightnet,
 *       install.sh, lightnet.service, README.md + docs/, VERSION, dist/, and the node_modules the built server loads
 *       (serialport with its prebuilt linux-x64/arm64/armv7 bindings). Runs with only Node.
 *   release/lightnet-rotorhazard-<version>.zip  → lightnet/ (the RotorHazard plugin folder)
 *       with the same built host under lightnet/host/, for RotorHazard's plugin manager.
 *
 * Tools: tar (GNU) and zip (or python3's zipfile when zip is missing), as argument arrays.
 * `--out DIR` writes them (and the staging folders) into DIR instead of release/.
 * SOURCE_DATE_EPOCH (else the last commit's time) stamps every file, so a rebuild of the
 * same commit gives the same archive contents.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative, resolve } from 'node:path';
import process from 'node:process';
import { buildServer, OUT_DIR, ROOT } from './build-server.mjs';
import { copyPackages, manifestProblems, runtimePackages, zipEntryProblems } from './release-files.mjs';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const version = pkg.version;
// --out DIR: write the artifacts there instead of release/ (tests).
const outAt = process.argv.indexOf('--out');
const RELEASE = outAt > 0 ? resolve(process.argv[outAt + 1] ?? 'release') : join(ROOT, 'release');
/** Where this release's UI is built (removed at the end). */
const UI_STAGE = join(RELEASE, '.ui-build');
const NAME = `lightnet-${version}`;
const ZIP_NAME = `lightnet-rotorhazard-${version}.zip`;
const PLUGIN_SRC = join(ROOT, 'integrations', 'rotorhazard', 'lightnet');

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.error) throw new Error(`release: ${cmd} could not run: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`release: ${cmd} ${args.join(' ')} failed (exit ${r.status})`);
  return r;
}

function epoch() {
  if (process.env.SOURCE_DATE_EPOCH) return Number(process.env.SOURCE_DATE_EPOCH);
  const r = spawnSync('git', ['log', '-1', '--format=%ct'], { cwd: ROOT, encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() ? Number(r.stdout.trim()) : Math.floor(Date.now() / 1000);
}

/** Every file under dir, relative to base, sorted. */
function listFiles(dir, base = dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...listFiles(p, base));
    else out.push(relative(base, p));
  }
  return out.sort();
}

/** The built host (what both artifacts carry): package.json, dist/, runtime node_modules. */
function stageHost(dest, runtime) {
  mkdirSync(dest, { recursive: true });
  const { name, description, type, engines } = pkg;
  writeFileSync(
    join(dest, 'package.json'),
    `${JSON.stringify({ name, version, description, type, engines }, null, 2)}\n`,
  );
  cpSync(OUT_DIR, join(dest, 'dist', 'server'), {
    recursive: true,
    // Not the build stamp, nor this machine's V8 code cache (each machine writes its own).
    filter: (src) => !src.endsWith('build-stamp.json') && !src.endsWith('.v8cache'),
  });
  cpSync(UI_STAGE, join(dest, 'dist', 'ui'), { recursive: true });
  copyPackages(ROOT, dest, runtime);
}

function buildAll() {
  const t0 = Date.now();
  return buildServer().then(() => {
    run(
      process.execPath,
      [
        join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'),
        'build',
        '-c',
        'ui/vite.config.ts',
        // Its own folder, not dist/ui: a running host (a test, a developer's npm start) keeps
        // serving its files meanwhile — vite empties its output folder first.
        '--outDir',
        UI_STAGE,
        '--emptyOutDir',
        '--logLevel',
        'warn',
      ],
      {
        cwd: ROOT,
      },
    );
    process.stderr.write(`release: built server and UI in ${Date.now() - t0} ms\n`);
  });
}

function writeTarball(stage, when) {
  const out = join(RELEASE, `${NAME}.tar.gz`);
  run('tar', [
    '--sort=name',
    '--owner=0',
    '--group=0',
    '--numeric-owner',
    `--mtime=@${when}`,
    '-czf',
    out,
    '-C',
    RELEASE,
    relative(RELEASE, stage),
  ]);
  return out;
}

function writeZip(pluginStage, when) {
  const out = join(RELEASE, ZIP_NAME);
  const entries = listFiles(pluginStage, join(pluginStage, '..'));
  const problems = zipEntryProblems(entries, 'lightnet');
  if (problems.length > 0)
    throw new Error(`release: the plugin zip would not install:\n  ${problems.join('\n  ')}`);
  const cwd = join(pluginStage, '..');
  const stamp = new Date(when * 1000);
  for (const e of entries) statSync(join(cwd, e)); // all present before zipping
  spawnSync('touch', ['-h', '-d', stamp.toISOString(), ...entries], { cwd });
  rmSync(out, { force: true });
  const zip = spawnSync('zip', ['-X', '-q', '-D', out, ...entries], { cwd, stdio: 'inherit' });
  if (zip.error || zip.status !== 0) {
    // No zip tool: python3's zipfile module writes the same format.
    run('python3', ['-m', 'zipfile', '-c', out, 'lightnet'], { cwd });
  }
  return out;
}

async function main() {
  await buildAll();
  const when = epoch();
  const runtime = runtimePackages(ROOT);
  rmSync(join(RELEASE, NAME), { recursive: true, force: true });
  rmSync(join(RELEASE, 'rotorhazard'), { recursive: true, force: true });

  // 1. The archive.
  const stage = join(RELEASE, NAME);
  stageHost(stage, runtime);
  for (const f of ['install.sh', 'lightnet.service']) cpSync(join(ROOT, 'packaging', f), join(stage, f));
  cpSync(join(ROOT, 'README.md'), join(stage, 'README.md'));
  cpSync(join(ROOT, 'docs'), join(stage, 'docs'), { recursive: true }); // what README links to
  mkdirSync(join(stage, 'bin'));
  cpSync(join(ROOT, 'packaging', 'bin', 'lightnet'), join(stage, 'bin', 'lightnet'));
  chmodSync(join(stage, 'bin', 'lightnet'), 0o755);
  chmodSync(join(stage, 'install.sh'), 0o755);
  writeFileSync(join(stage, 'VERSION'), `${version}\n`);
  const tarball = writeTarball(stage, when);

  // 2. The RotorHazard plugin zip: the plugin folder plus the same built host.
  const plugin = join(RELEASE, 'rotorhazard', 'lightnet');
  cpSync(PLUGIN_SRC, plugin, {
    recursive: true,
    filter: (src) => !src.includes('__pycache__') && !src.endsWith('.pyc'),
  });
  const manifest = {
    ...JSON.parse(readFileSync(join(PLUGIN_SRC, 'manifest.json'), 'utf8')),
    version,
    // Where the project is published decides this link: LIGHTNET_DOCS_URL at release time,
    // else package.json's homepage (set it to the real repository before publishing).
    documentation_uri: process.env.LIGHTNET_DOCS_URL || pkg.homepage,
    zip_filename: ZIP_NAME,
  };
  const problems = manifestProblems(manifest, { folder: 'lightnet', version, zipName: ZIP_NAME });
  if (problems.length > 0)
    throw new Error(`release: manifest.json fails the community checks:\n  ${problems.join('\n  ')}`);
  writeFileSync(join(plugin, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  stageHost(join(plugin, 'host'), runtime);
  const zip = writeZip(plugin, when);

  rmSync(UI_STAGE, { recursive: true, force: true });
  for (const f of [tarball, zip]) {
    process.stdout.write(`${f}  ${(statSync(f).size / 1048576).toFixed(1)} MiB\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
});
