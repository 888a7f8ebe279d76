/**
 * `npm run release` → release/lightnet-<version>.tar.gz: unpacked into a fresh folder outside
 * the project and started with only Node on PATH (no npm, no node_modules around it, no git),
 * bin/lightnet takes `npm start`'s options, runs the simulator and serves the UI; the serial
 * port's native binding loads; the prebuilt bindings of the three Linux targets are inside;
 * `bin/lightnet import` moves a RaceLink folder (test/fixtures/racelink/) into a data dir.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareEnv, buildRelease, run, startPackaged, VERSION, type Release } from './release/artifacts.ts';

const RACELINK = resolve('test', 'fixtures', 'racelink', 'v0.1.5-club');

let release: Release;
let fresh: string;
let root: string;

beforeAll(async () => {
  release = await buildRelease();
  fresh = await mkdtemp(join(tmpdir(), 'lightnet-fresh-'));
  const x = run('tar', ['-xzf', release.tarball, '-C', fresh]);
  expect(x.status, x.out).toBe(0);
  root = join(fresh, `lightnet-${VERSION}`);
}, 120_000);

afterAll(async () => {
  await rm(fresh, { recursive: true, force: true });
  await release.cleanup();
});

describe('release archive', () => {
  it('unpacks-to-one-versioned-folder-with-the-program-and-its-installer', async () => {
    expect(await readdir(fresh)).toEqual([`lightnet-${VERSION}`]);
    for (const f of [
      'bin/lightnet',
      'install.sh',
      'lightnet.service',
      'VERSION',
      'package.json',
      'README.md',
      'docs/operators/install.md',
    ]) {
      expect(existsSync(join(root, f)), f).toBe(true);
    }
    expect(existsSync(join(root, 'dist', 'server', 'main.js'))).toBe(true);
    expect(existsSync(join(root, 'dist', 'ui', 'index.html'))).toBe(true);
    // No node_modules anywhere above it: what runs, the archive brought.
    expect(existsSync(join(fresh, 'node_modules')) || existsSync(join(tmpdir(), 'node_modules'))).toBe(false);
  });

  it('carries-serialport-prebuilt-bindings-for-linux-x64-arm64-and-armv7', async () => {
    const prebuilds = join(root, 'node_modules', '@serialport', 'bindings-cpp', 'prebuilds');
    expect((await readdir(prebuilds)).sort()).toEqual(['linux-arm', 'linux-arm64', 'linux-x64']);
    expect(await readdir(join(prebuilds, 'linux-arm'))).toContain(
      '@serialport+bindings-cpp.armv7.glibc.node',
    );
    expect(await readdir(join(prebuilds, 'linux-arm64'))).toContain(
      '@serialport+bindings-cpp.armv8.glibc.node',
    );
    expect(await readdir(join(prebuilds, 'linux-x64'))).toContain('@serialport+bindings-cpp.glibc.node');
    // This machine's binding loads from the archive and lists ports (no compiler, no download).
    const list = run(
      'node',
      [
        '--input-type=module',
        '-e',
        "const m = await import('@serialport/bindings-cpp'); const p = await m.autoDetect().list(); console.log('ports', p.length);",
      ],
      { cwd: root, env: bareEnv() },
    );
    expect(list.status, list.out).toBe(0);
    expect(list.out).toMatch(/^ports \d+/m);
  });

  it('bin-lightnet-takes-the-npm-start-options', () => {
    const help = run(join(root, 'bin', 'lightnet'), ['--help'], { env: bareEnv() });
    expect(help.status, help.out).toBe(0);
    for (const opt of ['--port', '--host', '--data-dir', '--gateway', '--password', '--config']) {
      expect(help.out).toContain(opt);
    }
    const bad = run(join(root, 'bin', 'lightnet'), ['--port', 'nope'], { env: bareEnv() });
    expect(bad.status).toBe(2);
    expect(bad.out).toContain('port');
  });

  it('starts-on-the-simulator-with-only-node-and-serves-the-ui', async () => {
    const data = join(fresh, 'data');
    const host = await startPackaged(join(root, 'bin', 'lightnet'), data);
    try {
      const ui = await fetch(host.api.replace(/\/api$/, '/'));
      expect(ui.status).toBe(200);
      expect(await ui.text()).toContain('<base href="/lightnet/">');
      const devices = await fetch(`${host.api}/devices`);
      expect(devices.status).toBe(200);
    } finally {
      expect(await host.stop()).toBe(0);
    }
    // On the simulator the state lives in the data folder's simulator/ (never the real one).
    expect(existsSync(join(data, 'simulator', 'state.json'))).toBe(true);
    expect(existsSync(join(data, 'state.json'))).toBe(false);
  });

  it('bin-lightnet-import-moves-a-racelink-folder-into-a-data-dir-with-only-node', async () => {
    const bin = join(root, 'bin', 'lightnet');
    const help = run(bin, ['import', '--help'], { env: bareEnv() });
    expect(help.status, help.out).toBe(0);
    expect(help.out).toContain('Usage: lightnet import');
    expect(help.out).toContain('--dry-run');

    const data = join(fresh, 'imported');
    const dry = run(bin, ['import', RACELINK, '--data-dir', data, '--dry-run'], { env: bareEnv() });
    expect(dry.status, dry.out).toBe(0);
    expect(dry.out).toContain('Devices: 24 create');
    expect(existsSync(join(data, 'state.json'))).toBe(false);

    const real = run(bin, ['import', RACELINK, '--data-dir', data], { env: bareEnv() });
    expect(real.status, real.out).toBe(0);
    expect(real.out).toContain('Imported and saved.');
    // The next steps name this release's own commands (not npm's).
    expect(real.out).toContain(`\n  ${bin} --data-dir ${data}\n`);
    expect(real.out).toContain(`${bin} import ${RACELINK} --data-dir ${join(data, 'simulator')}`);
    expect(real.out).not.toContain('npm ');
    const state = JSON.parse(await readFile(join(data, 'state.json'), 'utf8')) as {
      devices: unknown[];
      groups: unknown[];
      scenes: unknown[];
    };
    // The fixture: 24 devices in 4 groups, 5 scenes.
    expect(state.devices).toHaveLength(24);
    expect(state.scenes).toHaveLength(5);

    const missing = run(bin, ['import', join(fresh, 'no-such-folder'), '--data-dir', data], {
      env: bareEnv(),
    });
    expect(missing.status).toBe(1);
    expect(missing.out).toContain('The Lightnet state was not changed.');
  });
});
