/**
 * Importing a RaceLink folder into a running host over HTTP (folder files and a zip), and
 * with the CLI into a data dir that a host then starts from: the API lists what came over.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { ImportResult } from '../../../src/services/import/index.ts';
import { multipartBody, type Part } from '../../fixtures/ota/builders.ts';
import { CLUB, folderFiles, LATER, withFile } from '../../unit/import/racelink-files.ts';
import { writeZip } from '../../unit/import/zip-writer.ts';
import { DataDirLock } from '../../../src/state/data-lock.ts';
import { withHost, type Harness } from '../harness.ts';

const run = promisify(execFile);
type Answer = { ok: boolean; error?: string } & Partial<ImportResult>;

const parts = (files: { path: string; bytes: Uint8Array }[]): Part[] =>
  files.map((f) => ({ name: 'files', filename: f.path, data: Buffer.from(f.bytes) }));

async function upload(h: Harness, p: Part[], query = '', headers: Record<string, string> = {}) {
  const { body, contentType } = multipartBody(p);
  const res = await fetch(`${h.url}/api/import/racelink${query}`, {
    method: 'POST',
    headers: { 'content-type': contentType, ...headers },
    body,
  });
  return { status: res.status, body: (await res.json()) as Answer };
}

interface Listed {
  devices: { name: string; addr: string; group_id?: number; groupId?: number; online: boolean }[];
  groups: { id: number; name: string; device_count: number }[];
  presets: { id: number; key: string; label: string; params: Record<string, unknown> }[];
  scenes: { id: number; key: string; actions: unknown[] }[];
  ledFiles: string[];
  current: string;
}

async function listed(h: Harness): Promise<Listed> {
  const d = await h.get<{ devices: Listed['devices'] }>('/api/devices');
  const g = await h.get<{ groups: Listed['groups'] }>('/api/groups');
  const p = await h.get<{ presets: Listed['presets'] }>('/api/native-presets');
  const s = await h.get<{ scenes: Listed['scenes'] }>('/api/scenes');
  const l = await h.get<{ files: { name: string }[]; current: string }>('/api/presets/list');
  return {
    devices: d.body.devices,
    groups: g.body.groups,
    presets: p.body.presets,
    scenes: s.body.scenes,
    ledFiles: l.body.files.map((f) => f.name),
    current: l.body.current,
  };
}

describe('POST /api/import/racelink', () => {
  it('dry run shows the report and writes nothing; the import answers once on disk and refreshes clients', async () => {
    await withHost({ nodes: 0 }, async (h) => {
      const files = folderFiles(CLUB, '.racelink/');
      const dry = await upload(h, parts(files), '?dry_run=1');
      expect(dry.status).toBe(200);
      expect(dry.body).toMatchObject({ ok: true, dry_run: true, kept_as: null });
      expect(dry.body.report?.counts.device).toMatchObject({ create: 24 });
      expect((await listed(h)).devices).toHaveLength(0);
      expect(await readdir(join(h.dataDir, 'led-presets'))).toEqual([]);

      const sse = await h.sse();
      const res = await upload(h, parts(files));
      expect(res.status).toBe(200);
      expect(res.body.dry_run).toBe(false);
      // A fresh host: nothing before the import to keep, and no backup of nothing written.
      expect(res.body).toMatchObject({ kept_as: null, nothing_to_keep: true });
      expect(existsSync(join(h.dataDir, 'backups'))).toBe(false);
      // On disk when answered: the journal or snapshot already holds the imported names.
      const disk =
        (await readFile(join(h.dataDir, 'state.journal'), 'utf8').catch(() => '')) +
        (await readFile(join(h.dataDir, 'state.json'), 'utf8').catch(() => ''));
      expect(disk).toContain('Back Straight');
      expect(disk).toContain('finish_celebration');
      for (const what of ['devices', 'groups', 'native_presets', 'scenes', 'led_presets'])
        await sse.waitFor('refresh', (d) => (d as { what: string[] }).what.includes(what));

      const l = await listed(h);
      expect(l.devices).toHaveLength(24);
      expect(l.devices.every((d) => !d.online)).toBe(true);
      expect(l.groups.map((g) => [g.id, g.name, g.device_count])).toEqual([
        [0, 'Unconfigured', 4],
        [1, 'Start Gates', 4],
        [2, 'Back Straight', 9],
        [3, 'Finish Arch', 5],
        [4, 'Start Blocks', 2],
      ]);
      expect(l.presets.map((p) => [p.id, p.label])).toEqual([
        [0, 'Start Red'],
        [1, 'Green Go'],
        [2, 'Rainbow Sweep'],
        [3, 'Amber Breathe'],
      ]);
      expect(l.scenes).toHaveLength(5);
      expect(l.ledFiles).toEqual(['presets_20261127_032551.json']);
      expect(l.current).toBe('presets_20261127_032551.json');
      const opts = await h.get<{ presets: { value: string; label: string }[] }>('/api/options');
      expect(opts.body.presets.map((o) => o.label)).toContain('Solid Red');

      // Twice: nothing changes, nothing is written.
      const again = await upload(h, parts(files));
      expect(again.body).toMatchObject({ ok: true, kept_as: null, nothing_to_keep: false });
      expect(again.body.report?.changes).toBe(false);
      expect(await listed(h)).toEqual(l);
      expect(existsSync(join(h.dataDir, 'backups'))).toBe(false);

      // Another folder over that state: now there is something to keep, and it is kept.
      const over = await upload(h, parts(folderFiles(LATER)));
      expect(over.status).toBe(200);
      expect(over.body.report?.changes).toBe(true);
      expect(over.body).toMatchObject({ nothing_to_keep: false });
      expect(over.body.kept_as).toMatch(/^backups\/before-import-\d{8}-\d{6}\.json$/);
      const kept = JSON.parse(await readFile(join(h.dataDir, over.body.kept_as!), 'utf8')) as {
        state: { devices: unknown[] };
      };
      expect(kept.state.devices).toHaveLength(24);
    });
  });

  it('takes a zip of the folder', async () => {
    await withHost({ nodes: 0 }, async (h) => {
      const zip = writeZip(
        folderFiles(LATER, 'racelink-backup/.racelink/').map((f) => ({
          name: f.path,
          bytes: f.bytes,
          deflate: true,
        })),
      );
      const res = await upload(h, [
        { name: 'file', filename: 'racelink.zip', data: zip, contentType: 'application/zip' },
      ]);
      expect(res.status).toBe(200);
      const l = await listed(h);
      expect(l.groups.map((g) => g.name)).toEqual(expect.arrayContaining(['Pit Lane 🏁', 'スタートゲート']));
      expect(l.presets.map((p) => p.id)).toEqual([3, 7]);
      expect(res.body.report?.items.filter((i) => i.kind === 'network')).toHaveLength(2);
      // A snapshot from rl_state_backups/ instead of the current state (dry run).
      const snap = await upload(h, parts(folderFiles(LATER)), '?dry_run=1&backup=state_20260601_120000');
      expect(snap.status).toBe(200);
      expect(snap.body.report?.source.backup).toBe('rl_state_backups/state_20260601_120000.json');
      expect(snap.body.report?.counts.device).toMatchObject({ create: 2 });
      const bad = await upload(h, parts(folderFiles(LATER)), '?dry_run=1&backup=../x');
      expect(bad).toMatchObject({
        status: 400,
        body: { ok: false, error: expect.stringMatching(/^backup: /) },
      });
    });
  });

  it('bad input: 400 naming the file and the problem, state untouched; CSRF and size limits', async () => {
    await withHost({ nodes: 0 }, async (h) => {
      const files = folderFiles(CLUB);
      await upload(h, parts(files));
      const before = await listed(h);
      const cut = Buffer.from(files.find((f) => f.path === 'rl_presets.json')!.bytes)
        .toString()
        .slice(0, 300);
      const bad = await upload(h, parts(withFile(files, 'rl_presets.json', cut)));
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({ ok: false, error: expect.stringMatching(/^rl_presets.json: is truncated/) });
      const notRl = await upload(h, parts([{ path: 'photos/a.json', bytes: Buffer.from('{}') }]));
      expect(notRl.status).toBe(400);
      expect(notRl.body.error).toMatch(/not a RaceLink data folder/);
      const evil = await upload(h, parts([...files, { path: '../../etc/x.json', bytes: Buffer.from('{}') }]));
      expect(evil.status).toBe(400);
      expect(evil.body.error).toMatch(/not allowed/);
      const badZip = await upload(h, [
        { name: 'file', filename: 'x.zip', data: Buffer.from('PK\u0003\u0004broken') },
      ]);
      expect(badZip.status).toBe(400);
      expect(badZip.body.error).toMatch(/^x.zip: /);
      const none = await h.post<Answer>('/api/import/racelink', {});
      expect(none.status).toBe(415);
      expect(none.body.error).toBe('content-type: expected multipart/form-data, got application/json');
      const big = await upload(h, [
        { name: 'files', filename: 'scenes.json', data: Buffer.alloc(17 * 1024 * 1024, 0x20) },
      ]);
      expect(big.status).toBe(400);
      expect(big.body.error).toMatch(/too large/);
      const cross = await upload(h, parts(files), '', { origin: 'http://evil.example' });
      expect(cross.status).toBe(403);
      expect(await listed(h)).toEqual(before);
    });
  });
});

describe('npm run import (CLI) → the host starts from what it wrote', () => {
  it('imports into a data dir; the API then lists the same things; a second run changes nothing', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-import-'));
    try {
      const cli = (...args: string[]) =>
        run(
          process.execPath,
          ['--import', 'tsx', 'src/import-cli.ts', CLUB, '--data-dir', dataDir, ...args],
          {
            cwd: join(import.meta.dirname, '../../..'),
          },
        );
      // --json is the whole of stdout, even when the import writes (and logs) something.
      const dryJson = await cli('--dry-run', '--json');
      expect((JSON.parse(dryJson.stdout) as { ok: boolean }).ok).toBe(true);
      const dry = await cli('--dry-run');
      expect(dry.stdout).toContain('Devices: 24 create');
      expect(dry.stdout).toContain('Dry run: nothing was written');
      const first = await cli();
      expect(first.stdout).toContain('Imported and saved.');
      expect(first.stdout).not.toContain('"level"');
      // A fresh folder: it says there was nothing to keep, and keeps no empty backup.
      expect(first.stdout).toContain(
        `${dataDir} held no earlier state (no devices, groups, scenes or LED presets): nothing to keep, so no backup was written.`,
      );
      expect(first.stdout).not.toContain('is kept in');
      expect(existsSync(join(dataDir, 'backups'))).toBe(false);
      const second = await cli('--json');
      const report = (JSON.parse(second.stdout) as { report: { changes: boolean } }).report;
      expect(report.changes).toBe(false);

      // A host's lock on the folder (this process holds it, as a running host would).
      const lock = await DataDirLock.acquire(dataDir, { port: 5077 });
      await expect(cli()).rejects.toMatchObject({
        code: 3,
        stderr: expect.stringMatching(
          /import refused: the data folder .* is in use by another Lightnet host \(pid \d+, port 5077, started [^)]+\)\. Stop that host first, or import in its web UI \(Settings → Import from RaceLink\)\.$/m,
        ),
      });
      await lock.release();

      await withHost({ nodes: 0, dataDir }, async (h) => {
        const l = await listed(h);
        expect(l.devices).toHaveLength(24);
        expect(l.devices.find((d) => d.name === 'Spare Gate')?.addr).toBe('9471D0');
        expect(l.groups.map((g) => g.name)).toEqual([
          'Unconfigured',
          'Start Gates',
          'Back Straight',
          'Finish Arch',
          'Start Blocks',
        ]);
        expect(l.presets.map((p) => p.key)).toEqual([
          'start_red',
          'green_go',
          'rainbow_sweep',
          'amber_breathe',
        ]);
        expect(l.scenes.map((s) => s.key)).toEqual([
          'race_start',
          'lap_sweep',
          'yellow_flag',
          'finish_celebration',
          'blackout',
        ]);
        expect(l.current).toBe('presets_20261127_032551.json');
        // The same import over HTTP finds everything already there.
        const res = await upload(h, parts(folderFiles(CLUB)), '?dry_run=1');
        expect(res.body.report?.changes).toBe(false);
      });
      const bad = await run(
        process.execPath,
        ['--import', 'tsx', 'src/import-cli.ts', '/nonexistent-racelink', '--data-dir', dataDir],
        {
          cwd: join(import.meta.dirname, '../../..'),
        },
      ).catch((e: { code: number; stderr: string }) => e);
      expect(bad).toMatchObject({
        code: 1,
        stderr: expect.stringContaining('/nonexistent-racelink: no such folder'),
      });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
