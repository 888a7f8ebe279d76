/**
 * Upload stores (LED preset files, firmware/cfg): unique names under concurrency, nothing
 * listed that is not stored, recovery after a full disk, stray temp files cleaned at start.
 */
import { mkdir, readdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeCfg, makePresets, multipartBody, type Part } from '../../fixtures/ota/builders.ts';
import { withHost, type Harness } from '../harness.ts';
import { fill, tmpData, tmpfs } from './durability-helpers.ts';

async function upload(
  h: Harness,
  path: string,
  parts: Part[],
): Promise<{ status: number; body: Record<string, unknown> }> {
  const { body, contentType } = multipartBody(parts);
  const res = await fetch(h.url + path, { method: 'POST', headers: { 'content-type': contentType }, body });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const presetsPart = (data: Buffer): Part[] => [{ name: 'file', filename: 'presets.json', data }];
const cfgParts = (data: Buffer): Part[] => [
  { name: 'kind', value: 'cfg' },
  { name: 'file', filename: 'cfg.json', data },
];

describe('upload stores', () => {
  it('concurrent-preset-uploads-get-distinct-files-and-all-are-kept', async () => {
    await withHost({ nodes: 0 }, async (h) => {
      const sent: Buffer[] = [];
      for (let pair = 0; pair < 10; pair++) {
        const a = makePresets(1 + pair * 2);
        const b = makePresets(2 + pair * 2);
        sent.push(a, b);
        const [ra, rb] = await Promise.all([
          upload(h, '/api/presets/upload', presetsPart(a)),
          upload(h, '/api/presets/upload', presetsPart(b)),
        ]);
        expect([ra.status, rb.status]).toEqual([200, 200]);
        const na = (ra.body.file as { name: string }).name;
        const nb = (rb.body.file as { name: string }).name;
        expect(na).not.toBe(nb);
      }
      const list = (await h.get<{ files: { name: string; size: number }[] }>('/api/presets/list')).body.files;
      expect(list).toHaveLength(20);
      const onDisk = (await readdir(join(h.dataDir, 'led-presets'))).sort();
      expect(onDisk).toEqual(list.map((f) => f.name).sort());
      const contents = await Promise.all(onDisk.map((n) => readFile(join(h.dataDir, 'led-presets', n))));
      expect(contents.map((c) => c.toString()).sort()).toEqual(sent.map((c) => c.toString()).sort());
    });
  });

  it('stray-temp-files-of-an-interrupted-write-are-removed-at-start', async () => {
    const dataDir = await tmpData('lightnet-uploads-tmp-');
    await mkdir(join(dataDir, 'firmware'), { recursive: true });
    await mkdir(join(dataDir, 'led-presets'), { recursive: true });
    await writeFile(join(dataDir, 'firmware', '0123456789ab.bin.tmp-77-deadbeef'), 'half');
    await writeFile(join(dataDir, 'led-presets', 'presets_20250101_000000.json.tmp-77-beef'), '{"0":');
    await writeFile(join(dataDir, 'state.json.tmp-77-cafe'), '{');
    await withHost({ nodes: 0, dataDir }, async (h) => {
      expect(await readdir(join(h.dataDir, 'firmware'))).toEqual([]);
      expect(await readdir(join(h.dataDir, 'led-presets'))).toEqual([]);
      expect((await readdir(h.dataDir)).filter((f) => f.includes('.tmp-'))).toEqual([]);
      expect((await h.get<{ files: unknown[] }>('/api/presets/list')).body.files).toEqual([]);
    });
  });

  it('a-full-disk-fails-an-upload-cleanly-and-the-next-one-works', async (ctx) => {
    const m = await tmpfs('512k');
    if (typeof m === 'string') {
      console.warn(`skipped: ${m}`);
      ctx.skip();
      return;
    }
    try {
      await withHost({ nodes: 0, dataDir: m.dir }, async (h) => {
        const cfg = makeCfg({ name: 'x'.repeat(80_000) }); // 80 KB, as in the issue
        const filler = fill(m.dir);
        const failed = await upload(h, '/api/fw/upload', cfgParts(cfg));
        expect(failed.status).toBe(507);
        expect(String(failed.body.error)).toMatch(/ENOSPC/);
        expect((await h.get<{ files: unknown[] }>('/api/fw/uploads')).body.files).toEqual([]);
        const pr = await upload(h, '/api/presets/upload', presetsPart(makePresets(40)));
        expect(pr.status).toBe(507);
        expect((await h.get<{ files: unknown[] }>('/api/presets/list')).body.files).toEqual([]);
        await unlink(filler);
        const ok = await upload(h, '/api/fw/upload', cfgParts(cfg));
        expect(ok.status).toBe(200);
        const files = (await h.get<{ files: { id: string; size: number }[] }>('/api/fw/uploads')).body.files;
        expect(files).toHaveLength(1);
        expect(files[0]?.size).toBe(cfg.length);
        expect((await stat(join(m.dir, 'firmware', `${files[0]?.id}.json`))).size).toBe(cfg.length);
      });
    } finally {
      await m.dispose();
    }
  });
});
