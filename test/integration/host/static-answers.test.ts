/**
 * The scene editor schema, the native-preset editor schema and the specials schema are
 * served from serialised caches: the bytes must equal a freshly built answer after every
 * change they depend on, with ETag/304 and compression describing those same bytes.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { rawGet } from './raw-http.ts';
import { withHost, type Harness } from '../harness.ts';
import { makePresets, multipartBody } from '../../fixtures/ota/builders.ts';

const ROUTES = ['/api/scenes/editor-schema', '/api/native-presets/schema', '/api/specials'] as const;

function fresh(h: Harness, route: (typeof ROUTES)[number]): string {
  const s = h.host.services;
  if (route === '/api/scenes/editor-schema') return JSON.stringify({ ok: true, ...s.sceneEditorSchema() });
  if (route === '/api/native-presets/schema')
    return JSON.stringify({ ok: true, schema: s.nativePresets.schema() });
  return JSON.stringify({ ok: true, specials: s.specialsSchema.build() });
}

/** Plain, gzip and br answers all carry the fresh bytes; the ETag revalidates to 304. */
async function checkServed(h: Harness): Promise<Record<string, string>> {
  const etags: Record<string, string> = {};
  for (const route of ROUTES) {
    const want = fresh(h, route);
    const plain = await rawGet(h.url + route);
    expect(plain.status, route).toBe(200);
    expect(plain.body.toString('utf8'), route).toBe(want);
    const etag = String(plain.headers.etag);
    expect(etag, route).toMatch(/^W\/"/);
    const gz = await rawGet(h.url + route, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding'], route).toBe('gzip');
    expect(gunzipSync(gz.body).toString('utf8'), route).toBe(want);
    const br = await rawGet(h.url + route, { 'accept-encoding': 'br, gzip' });
    expect(br.headers['content-encoding'], route).toBe('br');
    expect(brotliDecompressSync(br.body).toString('utf8'), route).toBe(want);
    expect(br.headers.etag, route).toBe(etag);
    const again = await rawGet(h.url + route, { 'if-none-match': etag });
    expect(again.status, route).toBe(304);
    expect(again.body.length, route).toBe(0);
    etags[route] = etag;
  }
  return etags;
}

describe('static answers', () => {
  it('schemas-are-cached-and-follow-native-preset-and-led-preset-changes', async () => {
    await withHost({ nodes: 0 }, async (h) => {
      const before = await checkServed(h);

      const created = await h.post('/api/native-presets', { label: 'Finish Flash' });
      expect(created.status).toBe(200);
      const afterPreset = await checkServed(h);
      expect(afterPreset['/api/scenes/editor-schema']).not.toBe(before['/api/scenes/editor-schema']);
      expect(afterPreset['/api/specials']).not.toBe(before['/api/specials']);
      // The native-preset editor schema does not depend on the presets themselves.
      expect(afterPreset['/api/native-presets/schema']).toBe(before['/api/native-presets/schema']);
      const editor = await h.get<{ kinds: unknown[] }>('/api/scenes/editor-schema');
      expect(JSON.stringify(editor.body)).toContain('Finish Flash');

      const { body, contentType } = multipartBody([
        { name: 'file', filename: 'presets.json', data: makePresets(3), contentType: 'application/json' },
      ]);
      const up = await fetch(h.url + '/api/presets/upload', {
        method: 'POST',
        headers: { 'content-type': contentType },
        body,
      });
      expect(up.status).toBe(200);
      const afterLed = await checkServed(h);
      expect(afterLed['/api/scenes/editor-schema']).not.toBe(afterPreset['/api/scenes/editor-schema']);
    });
  });
});
