/**
 * What a start loads (issue 29, Pi-class speed): the built host on the simulator never loads
 * serialport (its native binding and platform modules: ~20 ms of CPU outside the code cache)
 * nor node:https / node:http2 (Fastify and better-sse import them for servers the host never
 * makes; scripts/build-server.mjs makes them load on first use). Counted, not timed: a
 * preload (through NODE_OPTIONS, so the code cache key is unchanged) writes the modules the
 * process has loaded when it gets SIGUSR2.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBundle, startHostProc, type Bundle } from './durability-helpers.ts';

let bundle: Bundle;
let dir: string;

const PRELOAD = `'use strict';
process.on('SIGUSR2', () => {
  const out = { builtins: process.moduleLoadList, files: Object.keys(require.cache) };
  const fs = require('node:fs');
  const to = process.env.LIGHTNET_TEST_MODULES_OUT;
  fs.writeFileSync(to + '.tmp', JSON.stringify(out));
  fs.renameSync(to + '.tmp', to);
});
`;

describe('modules a start on the simulator loads', () => {
  beforeAll(async () => {
    bundle = await buildBundle();
    dir = await mkdtemp(join(tmpdir(), 'lightnet-startup-modules-'));
  }, 60_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await bundle.dispose();
  });

  it('no-serialport-no-https-no-http2-through-ready-and-the-first-reads', async () => {
    const preload = join(dir, 'preload.cjs');
    const out = join(dir, 'modules.json');
    writeFileSync(preload, PRELOAD);
    const saved = { opts: process.env.NODE_OPTIONS, out: process.env.LIGHTNET_TEST_MODULES_OUT };
    process.env.NODE_OPTIONS = `--require ${preload}`;
    process.env.LIGHTNET_TEST_MODULES_OUT = out;
    let host;
    try {
      host = await startHostProc(bundle.main, join(dir, 'data'));
    } finally {
      if (saved.opts === undefined) delete process.env.NODE_OPTIONS;
      else process.env.NODE_OPTIONS = saved.opts;
      if (saved.out === undefined) delete process.env.LIGHTNET_TEST_MODULES_OUT;
      else process.env.LIGHTNET_TEST_MODULES_OUT = saved.out;
    }
    try {
      const health = (await (await fetch(`${host.api}/health`)).json()) as { phase?: string };
      expect(health.phase).toBe('ready');
      for (const path of ['devices', 'groups', 'gateway', 'race-lights', 'native-presets/schema']) {
        expect((await fetch(`${host.api}/${path}`)).status).toBe(200);
      }
      host.child.kill('SIGUSR2');
      const end = Date.now() + 10_000;
      while (!existsSync(out)) {
        if (Date.now() > end) throw new Error('the preload wrote no module list');
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      expect(await host.stop()).toBe(0);
    }

    const loaded = JSON.parse(readFileSync(out, 'utf8')) as { builtins: string[]; files: string[] };
    // The check itself is live: the host did load node:http and its loader.
    expect(loaded.builtins).toContain('NativeModule http');
    expect(loaded.files).toContain(bundle.main);
    expect(loaded.builtins.filter((m) => /^NativeModule (https|http2)$/.test(m))).toEqual([]);
    expect(loaded.files.filter((f) => /[\\/]node_modules[\\/](@serialport|serialport)[\\/]/.test(f))).toEqual(
      [],
    );
  });
});
