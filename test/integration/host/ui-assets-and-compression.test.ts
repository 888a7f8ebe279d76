import { request } from 'node:http';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withHost } from '../harness.ts';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** Raw GET (fetch would decode the body and hide content-encoding handling). */
function rawGet(url: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

const decode = (r: Raw): string => {
  const enc = r.headers['content-encoding'];
  if (enc === 'br') return brotliDecompressSync(r.body).toString('utf8');
  if (enc === 'gzip') return gunzipSync(r.body).toString('utf8');
  return r.body.toString('utf8');
};

describe('web UI assets and response compression', () => {
  let uiDir = '';
  const js = `console.log(${JSON.stringify('lightnet '.repeat(400))});\n`;
  const prebuiltJs = `console.log(${JSON.stringify('prebuilt '.repeat(400))});\n`;
  // Levels the host never uses itself (it compresses at br 5 / gzip 6), so the bytes tell
  // whether an answer is the build's copy or the host's own compression.
  const prebuilt = {
    br: brotliCompressSync(prebuiltJs, { params: { [constants.BROTLI_PARAM_QUALITY]: 0 } }),
    gzip: gzipSync(prebuiltJs, { level: 1 }),
  };
  beforeAll(async () => {
    uiDir = await mkdtemp(join(tmpdir(), 'lightnet-ui-'));
    await mkdir(join(uiDir, 'assets'));
    await writeFile(
      join(uiDir, 'index.html'),
      '<!doctype html><html><head><title>x</title></head><body></body></html>',
    );
    await writeFile(join(uiDir, 'assets', 'index-abc123.js'), js);
    await writeFile(join(uiDir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    // A second script with the build's compressed copies beside it (ui/vite.config.ts).
    await writeFile(join(uiDir, 'assets', 'app-def456.js'), prebuiltJs);
    await writeFile(join(uiDir, 'assets', 'app-def456.js.br'), prebuilt.br);
    await writeFile(join(uiDir, 'assets', 'app-def456.js.gz'), prebuilt.gzip);
  });
  afterAll(() => rm(uiDir, { recursive: true, force: true }));

  it('assets-are-served-from-memory-with-etags-caching-and-compression-and-the-shell-falls-back', async () => {
    await withHost({ nodes: 0, overrides: { uiDir } }, async (h) => {
      const asset = `${h.url}/assets/index-abc123.js`;
      const plain = await rawGet(asset);
      expect(plain.status).toBe(200);
      expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers.vary).toMatch(/accept-encoding/i);
      expect(plain.body.toString('utf8')).toBe(js);

      const etag = String(plain.headers.etag);
      expect(etag).toMatch(/^W\/"/);
      const again = await rawGet(asset, { 'if-none-match': etag });
      expect(again.status).toBe(304);
      expect(again.body.length).toBe(0);

      for (const [accept, enc] of [
        ['gzip', 'gzip'],
        ['gzip;q=0.5, br', 'br'],
      ] as const) {
        const r = await rawGet(asset, { 'accept-encoding': accept });
        expect(r.headers['content-encoding']).toBe(enc);
        expect(r.body.length).toBeLessThan(js.length / 4);
        expect(decode(r)).toBe(js);
      }

      // HEAD and a query string find the same file (the catch-all route looks it up).
      const head = await fetch(`${asset}?v=2`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('etag')).toBe(etag);
      expect(head.headers.get('content-type')).toBe('text/javascript; charset=utf-8');

      const icon = await rawGet(`${h.url}/favicon.svg`, { 'accept-encoding': 'gzip' });
      expect(icon.headers['content-type']).toBe('image/svg+xml');
      expect(icon.headers['cache-control']).toBe('no-cache');
      expect(icon.headers['content-encoding']).toBeUndefined(); // below the 1 KiB threshold

      // Client-side routes get the shell with the base href; a missing asset is a real 404.
      const shell = await rawGet(`${h.url}/scenes`);
      expect(shell.status).toBe(200);
      expect(shell.body.toString('utf8')).toContain('<base href="/lightnet/">');
      expect((await rawGet(`${h.url}/assets/gone-123.js`)).status).toBe(404);
      expect((await rawGet(`${h.url}/assets/../../package.json`)).status).toBe(404);
      const api404 = await rawGet(`${h.url}/api/nope`);
      expect(api404.status).toBe(404);
      expect(JSON.parse(api404.body.toString('utf8'))).toMatchObject({ ok: false });
    });
  });

  it('the-builds-compressed-copies-are-served-as-they-are-and-never-as-files-of-their-own', async () => {
    await withHost({ nodes: 0, overrides: { uiDir } }, async (h) => {
      const asset = `${h.url}/assets/app-def456.js`;
      for (const enc of ['br', 'gzip'] as const) {
        const r = await rawGet(asset, { 'accept-encoding': enc });
        expect(r.status).toBe(200);
        expect(r.headers['content-encoding']).toBe(enc);
        expect(r.headers['content-type']).toBe('text/javascript; charset=utf-8');
        expect(r.headers['cache-control']).toBe('public, max-age=31536000, immutable');
        expect(r.body.equals(prebuilt[enc]), enc).toBe(true);
        expect(decode(r)).toBe(prebuiltJs);
        expect(
          (await rawGet(asset, { 'accept-encoding': enc, 'if-none-match': String(r.headers.etag) })).status,
        ).toBe(304);
      }
      const plain = await rawGet(asset);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body.toString('utf8')).toBe(prebuiltJs);
      expect((await rawGet(`${asset}.br`)).status).toBe(404);
      expect((await rawGet(`${asset}.gz`)).status).toBe(404);
      // A script without copies is still compressed by the host (first test), not refused.
      const other = await rawGet(`${h.url}/assets/index-abc123.js`, { 'accept-encoding': 'br' });
      expect(decode(other)).toBe(js);
    });
  });

  it('json-answers-above-1-kib-are-compressed-when-asked-and-small-ones-are-not', async () => {
    await withHost({ nodes: 0, overrides: { uiDir } }, async (h) => {
      // The editor schema is several KiB of JSON.
      const url = `${h.url}/api/scenes/editor-schema`;
      const plain = await rawGet(url);
      expect(plain.status).toBe(200);
      expect(plain.body.length).toBeGreaterThan(1024);
      expect(plain.headers['content-encoding']).toBeUndefined();
      const text = plain.body.toString('utf8');
      for (const accept of ['br', 'gzip', 'deflate, gzip;q=0.1']) {
        const r = await rawGet(url, { 'accept-encoding': accept });
        expect(r.headers['content-encoding'], accept).toBe(accept === 'br' ? 'br' : 'gzip');
        expect(r.headers['content-length']).not.toBe(String(plain.body.length));
        expect(decode(r)).toBe(text);
      }
      expect(
        (await rawGet(url, { 'accept-encoding': 'identity' })).headers['content-encoding'],
      ).toBeUndefined();
      const small = await rawGet(`${h.url}/api/health`, { 'accept-encoding': 'gzip' });
      expect(small.body.length).toBeLessThan(1024);
      expect(small.headers['content-encoding']).toBeUndefined();
    });
  });
});
