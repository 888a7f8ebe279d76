import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptyState, newDevice, type StateModel } from '../../../src/domain/model.ts';
import { FileStatePersistence } from '../../../src/state/persistence.ts';
import { testTempDir } from '../../temp-dir.ts';

const tmp = (): Promise<string> => testTempDir('lightnet-persist-');

const withGroups = (...names: string[]): StateModel => {
  const s = emptyState();
  names.forEach((name, i) => s.groups.push({ id: i + 1, name, dev_type: 0 }));
  return s;
};

describe('state file persistence', () => {
  it('fresh-data-dir-starts-empty-without-warning', async () => {
    const p = new FileStatePersistence(await tmp());
    const r = await p.load();
    expect(r.source).toBe('empty');
    expect(r.warning).toBeNull();
    expect(r.alarm).toBeNull();
  });

  it('a-commit-is-in-the-journal-and-survives-without-a-snapshot', async () => {
    const dir = await tmp();
    const p = new FileStatePersistence(dir);
    await p.load();
    await p.commit(withGroups('A'));
    await p.commit(withGroups('A', 'B'));
    // No close, no compaction: as after kill -9.
    const r = await new FileStatePersistence(dir).load();
    expect(r.state.groups.map((g) => g.name)).toEqual(['A', 'B']);
    expect(r.replayed).toBe(2);
    const lines = (await readFile(join(dir, 'state.journal'), 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(2);
  });

  it('second-compaction-keeps-the-previous-snapshot-as-backup', async () => {
    const dir = await tmp();
    const p = new FileStatePersistence(dir);
    await p.load();
    await p.commit(withGroups('A'));
    await p.compact();
    await p.commit(withGroups('A', 'B'));
    await p.compact();
    const main = JSON.parse(await readFile(join(dir, 'state.json'), 'utf8')) as { groups: unknown[] };
    const bak = JSON.parse(await readFile(join(dir, 'state.json.bak'), 'utf8')) as { groups: unknown[] };
    expect(main.groups).toHaveLength(2);
    expect(bak.groups).toHaveLength(1);
  });

  it('corrupt-state-file-falls-back-to-backup-plus-journal-losing-nothing', async () => {
    const dir = await tmp();
    const p = new FileStatePersistence(dir);
    await p.load();
    const s = emptyState();
    s.devices.push(newDevice('AABBCC', '246F28AABBCC', 12));
    await p.commit(s);
    await p.compact();
    await p.commit({ ...s, groups: [{ id: 1, name: 'X', dev_type: 0 }] });
    await p.compact();
    await writeFile(join(dir, 'state.json'), '{"schema_version": 2, "devices": [tru');
    const r = await new FileStatePersistence(dir).load();
    expect(r.source).toBe('backup');
    expect(r.warning).toMatch(/corrupt/);
    expect(r.state.devices[0]?.addr).toBe('AABBCC');
    // The journal still holds what the backup lacks.
    expect(r.state.groups.map((g) => g.name)).toEqual(['X']);
    expect((await readdir(dir)).some((f) => f.startsWith('state.json.corrupt-'))).toBe(true);
  });

  it('both-files-broken-starts-empty-with-an-alarm-that-outlives-a-restart', async () => {
    const dir = await tmp();
    await writeFile(join(dir, 'state.json'), 'garbage');
    await writeFile(join(dir, 'state.json.bak'), 'more garbage');
    const r = await new FileStatePersistence(dir).load();
    expect(r.source).toBe('empty');
    expect(r.warning).toMatch(/unusable/);
    expect(r.alarm).toMatch(/STARTED EMPTY/);
    const files = await readdir(dir);
    expect(files.filter((f) => f.includes('.corrupt-'))).toHaveLength(2);
    // The next start still says so, until acknowledged.
    const p = new FileStatePersistence(dir);
    expect((await p.load()).alarm).toMatch(/STARTED EMPTY/);
    await p.acknowledgeAlarm();
    expect((await new FileStatePersistence(dir).load()).alarm).toBeNull();
  });

  it('a-torn-last-journal-line-is-ignored-and-cut-off', async () => {
    const dir = await tmp();
    const p = new FileStatePersistence(dir);
    await p.load();
    await p.commit(withGroups('A'));
    const journal = join(dir, 'state.journal');
    await writeFile(journal, (await readFile(journal, 'utf8')) + '{"seq":2,"crc":"0000');
    const q = new FileStatePersistence(dir);
    const r = await q.load();
    expect(r.warning).toBeNull();
    expect(r.state.groups.map((g) => g.name)).toEqual(['A']);
    await q.commit(withGroups('A', 'B'));
    const r2 = await new FileStatePersistence(dir).load();
    expect(r2.state.groups.map((g) => g.name)).toEqual(['A', 'B']);
  });

  it('a-short-write-fails-the-commit-and-leaves-the-last-good-state', async () => {
    const dir = await tmp();
    let budget = Infinity;
    // A disk that takes `budget` more bytes, then returns short writes (0 bytes).
    const p = new FileStatePersistence(dir, {
      write: async (fh, buf, off, len, pos) => {
        const n = Math.max(0, Math.min(len, budget));
        budget -= n;
        if (n === 0) return { bytesWritten: 0 };
        return fh.write(buf, off, n, pos);
      },
    });
    await p.load();
    await p.commit(withGroups('A'));
    await p.compact();
    budget = 10;
    await expect(p.commit(withGroups('A', 'B'))).rejects.toMatchObject({ code: 'ENOSPC' });
    await expect(p.compact()).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(p.durableCopy().groups.map((g) => g.name)).toEqual(['A']);
    // Nothing on disk was damaged: a fresh load sees the last good state, no temp files.
    const r = await new FileStatePersistence(dir).load();
    expect(r.warning).toBeNull();
    expect(r.state.groups.map((g) => g.name)).toEqual(['A']);
    expect((await readdir(dir)).filter((f) => f.includes('.tmp-'))).toEqual([]);
    // Space again: the next commit works and appends after the good part.
    budget = Infinity;
    await p.commit(withGroups('A', 'C'));
    const r2 = await new FileStatePersistence(dir).load();
    expect(r2.state.groups.map((g) => g.name)).toEqual(['A', 'C']);
  });

  it('a-fifo-or-directory-in-place-of-the-state-file-is-a-clear-start-error', async () => {
    const dir = await tmp();
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(dir, 'state.json'));
    await expect(new FileStatePersistence(dir).load()).rejects.toThrow(/state\.json .* is a directory/);
    const dir2 = await tmp();
    const { execFileSync } = await import('node:child_process');
    execFileSync('mkfifo', [join(dir2, 'state.json')]);
    await expect(new FileStatePersistence(dir2).load()).rejects.toThrow(/state\.json .* is a FIFO/);
  });
});

describe('an older schema on disk', () => {
  it('is-kept-byte-for-byte-in-backups-before-the-first-write-in-the-new-schema', async () => {
    const dir = await tmp();
    const v3 = JSON.stringify({
      schema_version: 3,
      devices: [],
      groups: [{ id: 1, name: 'Start', dev_type: 0 }],
      native_presets: [],
      scenes: [],
      next_ids: { native_presets: 0, scenes: 0 },
      settings: { led_presets_file: null },
      console: {},
    });
    await writeFile(join(dir, 'state.json'), v3);
    const p = new FileStatePersistence(dir);
    const r = await p.load();
    expect(r.fromVersion).toBe(3);
    await p.compact();
    const kept = (await readdir(join(dir, 'backups'))).filter((f) => f.startsWith('state-v3-'));
    expect(kept).toHaveLength(1);
    expect(await readFile(join(dir, 'backups', kept[0]!), 'utf8')).toBe(v3);
    expect(JSON.parse(await readFile(join(dir, 'state.json'), 'utf8')).schema_version).toBeGreaterThan(3);
    // A later start of the new schema keeps no second copy.
    await new FileStatePersistence(dir).load();
    expect((await readdir(join(dir, 'backups'))).filter((f) => f.startsWith('state-v3-'))).toHaveLength(1);
  });
});
