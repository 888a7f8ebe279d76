import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withHost, type Harness } from '../harness.ts';
import { makeCfg, makeFirmware, makePresets, multipartBody, type Part } from '../../fixtures/ota/builders.ts';

interface UploadBody {
  ok: boolean;
  error?: string;
  file?: { id: string; kind: string; name: string; size: number; sha256: string; uploaded_ts: number };
}

async function upload(
  h: Harness,
  path: string,
  parts: Part[],
): Promise<{ status: number; body: UploadBody & Record<string, unknown> }> {
  const { body, contentType } = multipartBody(parts);
  const res = await fetch(h.url + path, { method: 'POST', headers: { 'content-type': contentType }, body });
  return { status: res.status, body: (await res.json()) as UploadBody & Record<string, unknown> };
}

const fw = (data: Buffer, filename = 'wled.bin', contentType?: string): Part[] => [
  { name: 'kind', value: 'firmware' },
  { name: 'file', filename, data, contentType },
];

describe('firmware and cfg uploads', () => {
  it('firmware-upload-is-validated-hashed-and-survives-a-restart', async () => {
    const image = makeFirmware({ releaseName: 'Node_V4_TYPE_12' });
    const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-fw-'));
    let id = '';
    await withHost({ nodes: 0, dataDir }, async (h) => {
      const r = await upload(h, '/api/fw/upload', fw(image, 'WLED_0.16.bin'));
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const f = r.body.file!;
      expect(f).toMatchObject({ kind: 'firmware', name: 'WLED_0.16.bin', size: image.length });
      expect(f.id).toMatch(/^[0-9a-f]{12}$/);
      expect(f.sha256).toBe((await import('node:crypto')).createHash('sha256').update(image).digest('hex'));
      expect(r.body.file).toMatchObject({
        image: { chip: 'ESP32-S3', releaseName: 'Node_V4_TYPE_12', hasMetadata: true },
      });
      id = f.id;
      const cfg = await upload(h, '/api/fw/upload', [
        { name: 'file', filename: 'cfg.json', data: makeCfg(), contentType: 'application/json' },
        { name: 'kind', value: ' CFG ' },
      ]);
      expect(cfg.status, JSON.stringify(cfg.body)).toBe(200);
      expect(cfg.body.file).toMatchObject({ kind: 'cfg', name: 'cfg.json' });
      const list = await h.get<{ files: { id: string }[] }>('/api/fw/uploads');
      expect(list.body.files.map((x) => x.id)).toEqual([cfg.body.file!.id, id]);
      const mode = (await stat(join(h.dataDir, 'firmware'))).mode & 0o777;
      expect(mode).toBe(0o700);
      expect((await stat(join(h.dataDir, 'firmware', `${id}.bin`))).mode & 0o777).toBe(0o600);
    });
    // Restart on the same data dir, with an orphan file dropped into the folder.
    await writeFile(join(dataDir, 'firmware', 'deadbeef0000.bin'), 'orphan');
    await withHost({ nodes: 0, dataDir }, async (h) => {
      const list = await h.get<{ files: { id: string }[] }>('/api/fw/uploads');
      expect(list.body.files.map((x) => x.id)).toContain(id);
      expect(await readdir(join(dataDir, 'firmware'))).not.toContain('deadbeef0000.bin');
    });
    await rm(dataDir, { recursive: true, force: true });
  });

  it('bad-uploads-are-refused-with-the-field-named-and-nothing-stored', async () => {
    await withHost({ nodes: 0 }, async (h) => {
      const cases: [Part[], RegExp][] = [
        [[{ name: 'kind', value: 'firmware' }], /^file: missing file/],
        [
          fw(makeFirmware()).map((p) => ('value' in p ? { ...p, value: 'presets' } : p)),
          /^kind: invalid kind/,
        ],
        [fw(makeFirmware()).slice(1), /^kind: missing kind \(expected firmware or cfg\)$/],
        [fw(makeFirmware({ corruptMagic: true })), /not an ESP32 application image \(first byte 0xE8/],
        [
          fw(Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.alloc(4000)])),
          /compressed images are not supported/,
        ],
        [fw(makeFirmware({ chipId: 0x0042 })), /unsupported chip id 0x0042/],
        [
          fw(Buffer.concat([Buffer.from([0xe9, 4, 2]), Buffer.alloc(4000)])),
          /unsupported chip id|descriptor not found/,
        ],
        [fw(makeFirmware(), 'x.bin', 'text/html'), /unsupported content type text\/html for kind firmware/],
        [fw(makeFirmware({ size: 512 })), /^file: file too small \(min 1024 bytes\)$/],
        [
          [
            { name: 'kind', value: 'cfg' },
            { name: 'file', filename: 'cfg.json', data: Buffer.from('{"a":') },
          ],
          /^file: cfg.json is not valid JSON/,
        ],
        [
          [
            { name: 'kind', value: 'cfg' },
            { name: 'file', filename: 'cfg.json', data: Buffer.from('[1,2]') },
          ],
          /cfg.json must be a JSON object/,
        ],
        [[...fw(makeFirmware()), { name: 'evil', value: 'x' }], /unexpected multipart field "evil"/],
      ];
      for (const [parts, re] of cases) {
        const r = await upload(h, '/api/fw/upload', parts);
        expect(r.status, JSON.stringify(r.body)).toBe(400);
        expect(r.body).toMatchObject({ ok: false });
        expect(r.body.error).toMatch(re);
      }
      // A factory image: an image header without the app descriptor at offset 32.
      const factory = makeFirmware();
      factory.writeUInt32LE(0, 32);
      const r = await upload(h, '/api/fw/upload', fw(factory));
      expect(r.body.error).toMatch(/ESP application descriptor not found/);
      expect((await h.get<{ files: unknown[] }>('/api/fw/uploads')).body.files).toEqual([]);
      expect((await readdir(join(h.dataDir, 'firmware'))).filter((f) => f !== 'index.json')).toEqual([]);
    });
  });

  it('oversize-uploads-are-refused-without-being-kept', async () => {
    await withHost({ nodes: 0 }, async (h) => {
      const big = makeFirmware({ size: 8 * 1024 * 1024 + 10 });
      const r = await upload(h, '/api/fw/upload', fw(big));
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('file: file too large (max 8388608 bytes)');
      const cfg = await upload(h, '/api/fw/upload', [
        { name: 'kind', value: 'cfg' },
        { name: 'file', filename: 'cfg.json', data: Buffer.alloc(300 * 1024, 0x20) },
      ]);
      expect(cfg.body.error).toBe('file: file too large (max 262144 bytes)');
      const pr = await upload(h, '/api/presets/upload', [
        { name: 'file', filename: 'p.json', data: Buffer.alloc(600 * 1024, 0x20) },
      ]);
      expect(pr.status).toBe(400);
      expect(pr.body.error).toBe('file: file too large (max 524288 bytes)');
      expect((await readdir(join(h.dataDir, 'firmware'))).filter((f) => f !== 'index.json')).toEqual([]);
      expect(await readdir(join(h.dataDir, 'led-presets'))).toEqual([]);
    });
  });

  it('hostile-file-names-are-display-text-only', async () => {
    await withHost({ nodes: 0 }, async (h) => {
      const names: [string, string][] = [
        ['../../etc/passwd', 'passwd'],
        ['..\\\\x', 'x'],
        ['a'.repeat(500) + '.bin', 'a'.repeat(128)],
        ['ctl\u0001\u001fname.bin', 'ctlname.bin'],
        ['..', 'firmware.bin'],
      ];
      for (const [name, shown] of names) {
        const r = await upload(
          h,
          '/api/fw/upload',
          fw(makeFirmware({ size: 2048 + names.indexOf([name, shown]) }), name),
        );
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        expect(r.body.file!.name).toBe(shown);
      }
      const files = await readdir(join(h.dataDir, 'firmware'));
      for (const f of files) expect(f).toMatch(/^([0-9a-f]{12}\.(bin|json)|index\.json)$/);
    });
  });

  it('retention-keeps-the-newest-twenty-uploads', async () => {
    await withHost({ nodes: 0 }, async (h) => {
      const ids: string[] = [];
      for (let i = 0; i < 22; i++) {
        const r = await upload(h, '/api/fw/upload', [
          { name: 'kind', value: 'cfg' },
          { name: 'file', filename: `cfg${i}.json`, data: Buffer.from(JSON.stringify({ i })) },
        ]);
        ids.push(r.body.file!.id);
      }
      const list = (await h.get<{ files: { id: string }[] }>('/api/fw/uploads')).body.files.map((f) => f.id);
      expect(list).toHaveLength(20);
      expect(list).not.toContain(ids[0]);
      expect(list).not.toContain(ids[1]);
      expect(list[0]).toBe(ids[21]);
    });
  });

  it('the-same-file-uploaded-again-keeps-one-entry-with-the-newest-name', async () => {
    await withHost({ nodes: 0 }, async (h) => {
      const image = makeFirmware();
      const a = await upload(h, '/api/fw/upload', fw(image, 'first.bin'));
      const b = await upload(h, '/api/fw/upload', fw(image, 'again.bin'));
      expect(b.body.file).toMatchObject({ id: a.body.file!.id, name: 'again.bin' });
      const c = await upload(h, '/api/fw/upload', fw(makeFirmware({ size: 70_000 }), 'other.bin'));
      expect(c.body.file!.id).not.toBe(a.body.file!.id);
      const list = (await h.get<{ files: { id: string; name: string }[] }>('/api/fw/uploads')).body.files;
      expect(list.map((f) => f.name)).toEqual(['other.bin', 'again.bin']);
      const files = (await readdir(join(h.dataDir, 'firmware'))).filter((f) => f.endsWith('.bin'));
      expect(files).toHaveLength(2);
    });
  });
});

describe('LED preset files', () => {
  it('preset-upload-select-and-options', async () => {
    await withHost({ nodes: 0 }, async (h) => {
      const sse = await h.sse();
      expect((await h.get('/api/options')).body).toEqual({ ok: true, presets: [] });
      expect((await h.get('/api/presets/list')).body).toEqual({ ok: true, files: [], current: '' });
      const first = await upload(h, '/api/presets/upload', [
        {
          name: 'file',
          filename: '../presets.json',
          data: makePresets(3, { '300': { n: 'too big' }, x: {}, '4': [] }),
        },
      ]);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      const f1 = first.body.file as unknown as { name: string; size: number };
      expect(f1.name).toMatch(/^presets_\d{8}_\d{6}\.json$/);
      await sse.waitFor('refresh', (d) => (d as { what: string[] }).what.includes('led_presets'));
      // The first file becomes active.
      expect((await h.get('/api/options')).body).toEqual({
        ok: true,
        presets: [
          { value: '1', label: 'Preset 1' },
          { value: '2', label: 'Preset 2' },
          { value: '3', label: 'Preset 3' },
        ],
      });
      expect(h.host.services.ledPresets.ledPresetOptions()).toEqual([
        { id: 1, name: 'Preset 1' },
        { id: 2, name: 'Preset 2' },
        { id: 3, name: 'Preset 3' },
      ]);
      const second = await upload(h, '/api/presets/upload', [
        {
          name: 'file',
          filename: 'p.json',
          data: Buffer.from(JSON.stringify({ '7': { n: ' Start ' }, '9': {} })),
        },
      ]);
      const f2 = second.body.file as unknown as { name: string };
      expect(f2.name).not.toBe(f1.name);
      expect((second.body.files as unknown[]).length).toBe(2);
      expect((await h.get('/api/presets/list')).body).toMatchObject({ current: f1.name });
      const sel = await h.post('/api/presets/select', { name: f2.name });
      expect(sel.body).toEqual({ ok: true, current: f2.name });
      expect((await h.get('/api/options')).body).toEqual({
        ok: true,
        presets: [
          { value: '7', label: 'Start' },
          { value: '9', label: 'Preset ID 9' },
        ],
      });
      for (const name of ['../state.json', '.hidden.json', 'nope.json', 'a/b.json']) {
        const r = await h.post('/api/presets/select', { name });
        expect(r.status).toBe(404);
        expect(r.body).toEqual({ ok: false, error: 'presets file not found' });
      }
      expect((await h.post('/api/presets/select', {})).body).toMatchObject({
        ok: false,
        error: 'name: is required',
      });
      const bad = await upload(h, '/api/presets/upload', [
        { name: 'file', filename: 'p.json', data: Buffer.from('[]') },
      ]);
      expect(bad.body).toEqual({ ok: false, error: 'file: presets.json must be a JSON object' });
      const bad2 = await upload(h, '/api/presets/upload', [
        { name: 'file', filename: 'p.json', data: Buffer.from('{') },
      ]);
      expect(bad2.body.error).toMatch(/^file: presets.json is not valid JSON/);
    });
  });

  it('active-preset-file-survives-a-restart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-lp-'));
    let name = '';
    await withHost({ nodes: 0, dataDir }, async (h) => {
      const r = await upload(h, '/api/presets/upload', [
        { name: 'file', filename: 'p.json', data: makePresets(2) },
      ]);
      name = (r.body.file as unknown as { name: string }).name;
      await h.post('/api/save');
    });
    await withHost({ nodes: 0, dataDir }, async (h) => {
      expect((await h.get('/api/presets/list')).body).toMatchObject({ current: name });
      expect((await h.get<{ presets: unknown[] }>('/api/options')).body.presets).toHaveLength(2);
    });
    await rm(dataDir, { recursive: true, force: true });
  });
});
