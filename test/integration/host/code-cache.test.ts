/**
 * dist/server/main.js runs the bundle with a V8 code cache (scripts/server-main.mjs): the
 * first start writes it beside the bundle, the next start uses it, and a damaged cache only costs a normal start (V8 rejects it,
 * a good one replaces it). LIGHTNET_CODE_CACHE_DEBUG=1 makes the loader say which happened.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBundle, startHostProc, type Bundle } from './durability-helpers.ts';

let bundle: Bundle;
let data: string;

const cacheFiles = (): string[] => readdirSync(dirname(bundle.main)).filter((f) => f.endsWith('.v8cache'));

/** Polls the file system until `pred` holds (the cache is written a few seconds after a start). */
async function until(pred: () => boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('V8 code cache of the built server', () => {
  beforeAll(async () => {
    process.env.LIGHTNET_CODE_CACHE_DEBUG = '1'; // inherited by the host processes
    bundle = await buildBundle();
    data = await mkdtemp(join(tmpdir(), 'lightnet-codecache-'));
  }, 60_000);

  afterAll(async () => {
    delete process.env.LIGHTNET_CODE_CACHE_DEBUG;
    await rm(data, { recursive: true, force: true });
    await bundle.dispose();
  });

  it('the-first-start-writes-it-and-the-next-start-uses-it-unchanged', async () => {
    expect(cacheFiles()).toEqual([]);
    const first = await startHostProc(bundle.main, data);
    await until(() => first.stderr().includes('code cache none'), 'the no-cache report');
    await until(() => first.stderr().includes('code cache written'), 'the code cache file');
    expect(cacheFiles()).toHaveLength(1);
    expect(await first.stop()).toBe(0);
    const [file] = cacheFiles();
    expect(statSync(join(dirname(bundle.main), file ?? '')).size).toBeGreaterThan(100_000);

    const second = await startHostProc(bundle.main, data);
    await until(() => second.stderr().includes('code cache used'), 'the cache-used report');
    expect(second.stderr()).not.toContain('rejected');
    expect(await second.stop()).toBe(0);
  });

  it('a-damaged-cache-is-rejected-and-replaced', async () => {
    const [file] = cacheFiles();
    const path = join(dirname(bundle.main), file ?? '');
    writeFileSync(path, Buffer.alloc(4096, 7));
    const host = await startHostProc(bundle.main, data);
    await until(() => host.stderr().includes('code cache rejected'), 'the rejected report');
    await until(() => host.stderr().includes('code cache written'), 'the replaced cache');
    expect(statSync(path).size).toBeGreaterThan(100_000);
    expect(await host.stop()).toBe(0);
  });

  it('its-name-carries-the-digest-the-build-wrote-so-a-start-does-not-hash-the-bundle', () => {
    // Issue 40: main.js used to hash the 1.4 MB bundle (loading node:crypto for it) at every
    // start to name the cache; the build now writes the digest into main.js.
    const digest = createHash('sha256')
      .update(readFileSync(join(dirname(bundle.main), 'lightnet.cjs')))
      .digest('hex')
      .slice(0, 16);
    const loader = readFileSync(bundle.main, 'utf8');
    expect(loader).toContain(`'${digest}'`);
    expect(loader).not.toMatch(/require\('node:crypto'\)|createHash/);
    expect(cacheFiles()).toHaveLength(1);
    expect(cacheFiles()[0]).toMatch(new RegExp(`^lightnet-${digest}-[0-9a-f]{8}\\.v8cache$`));
  });
});
