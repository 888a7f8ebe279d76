/**
 * Moving a race setup to a spare laptop: GET /api/backup on one host, POST /api/restore on
 * another. Validated before anything is written; the current state is kept first.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeCfg, makePresets, multipartBody, type Part } from '../../fixtures/ota/builders.ts';
import { withHost, type Harness } from '../harness.ts';

async function upload(h: Harness, path: string, parts: Part[]): Promise<number> {
  const { body, contentType } = multipartBody(parts);
  return (await fetch(h.url + path, { method: 'POST', headers: { 'content-type': contentType }, body }))
    .status;
}

const names = async (h: Harness, path: string, key: string, field: string): Promise<string[]> =>
  ((await h.get<Record<string, Record<string, string>[]>>(path)).body[key] ?? []).map((x) =>
    String(x[field]),
  );

describe('backup and restore', () => {
  it('a-backup-restored-on-another-host-brings-the-whole-setup', async () => {
    let bundle: Record<string, unknown> = {};
    let withBlobs: Record<string, unknown> = {};
    await withHost({ nodes: 0 }, async (h) => {
      await h.post('/api/groups/create', { name: 'Start' });
      await h.post('/api/groups/create', { name: 'Finish' });
      await h.post('/api/native-presets', { label: 'Green wave' });
      await h.post('/api/scenes', { label: 'Countdown', actions: [] });
      expect(
        await upload(h, '/api/presets/upload', [{ name: 'file', filename: 'p.json', data: makePresets(3) }]),
      ).toBe(200);
      expect(
        await upload(h, '/api/fw/upload', [
          { name: 'kind', value: 'cfg' },
          { name: 'file', filename: 'cfg.json', data: makeCfg() },
        ]),
      ).toBe(200);
      const r = await fetch(`${h.url}/api/backup`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-disposition')).toMatch(
        /attachment; filename="lightnet-backup-\d{8}-\d{6}\.json"/,
      );
      bundle = (await r.json()) as Record<string, unknown>;
      expect(bundle.firmware_files).toBeUndefined();
      withBlobs = (await h.get<Record<string, unknown>>('/api/backup?firmware=1')).body;
      expect(withBlobs.firmware_files).toHaveLength(1);
    });
    await withHost({ nodes: 0 }, async (h) => {
      await h.post('/api/groups/create', { name: 'Old laptop group' });
      // Bad bundles change nothing and name the field.
      const bad = await h.post<{ error: string }>('/api/restore', { ...bundle, format: 'zip' });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatch(/^format: not a Lightnet backup/);
      const badState = await h.post<{ error: string }>('/api/restore', {
        ...bundle,
        state: { schema_version: 2 },
      });
      expect(badState.status).toBe(400);
      expect(badState.body.error).toMatch(/^state: /);
      expect(await names(h, '/api/groups', 'groups', 'name')).toEqual(['Unconfigured', 'Old laptop group']);

      const ok = await h.post<{ kept_as: string }>('/api/restore', withBlobs);
      expect(ok.status).toBe(200);
      expect(await names(h, '/api/groups', 'groups', 'name')).toEqual(['Unconfigured', 'Start', 'Finish']);
      expect(await names(h, '/api/native-presets', 'presets', 'label')).toEqual(['Green wave']);
      expect(await names(h, '/api/scenes', 'scenes', 'label')).toEqual(['Countdown']);
      expect((await h.get<{ files: unknown[] }>('/api/presets/list')).body.files).toHaveLength(1);
      expect((await h.get<{ presets: unknown[] }>('/api/options')).body.presets).toHaveLength(3);
      expect((await h.get<{ files: unknown[] }>('/api/fw/uploads')).body.files).toHaveLength(1);
      // What was here before is kept as a backup file of its own.
      const kept = JSON.parse(await readFile(join(h.dataDir, ok.body.kept_as), 'utf8')) as {
        state: { groups: { name: string }[] };
      };
      expect(kept.state.groups.map((g) => g.name)).toEqual(['Old laptop group']);
      expect(await readdir(join(h.dataDir, 'backups'))).toHaveLength(1);
    });
  });
});
