import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptyState, newDevice } from '../../../src/domain/model.ts';
import { FileStatePersistence } from '../../../src/state/persistence.ts';

const tmp = (): Promise<string> => mkdtemp(join(tmpdir(), 'lightnet-persist-'));

describe('state file persistence', () => {
  it('fresh-data-dir-starts-empty-without-warning', async () => {
    const p = new FileStatePersistence(await tmp());
    const r = await p.load();
    expect(r.source).toBe('empty');
    expect(r.warning).toBeNull();
  });

  it('second-write-keeps-the-previous-good-copy-as-backup', async () => {
    const dir = await tmp();
    const p = new FileStatePersistence(dir);
    await p.load();
    const s = emptyState();
    s.groups.push({ id: 1, name: 'A', dev_type: 0 });
    await p.write(s);
    s.groups.push({ id: 2, name: 'B', dev_type: 0 });
    await p.write(s);
    const main = JSON.parse(await readFile(join(dir, 'state.json'), 'utf8')) as { groups: unknown[] };
    const bak = JSON.parse(await readFile(join(dir, 'state.json.bak'), 'utf8')) as { groups: unknown[] };
    expect(main.groups).toHaveLength(2);
    expect(bak.groups).toHaveLength(1);
  });

  it('corrupt-state-file-falls-back-to-backup-loudly', async () => {
    const dir = await tmp();
    const p = new FileStatePersistence(dir);
    await p.load();
    const s = emptyState();
    s.devices.push(newDevice('AABBCC', '246F28AABBCC', 12));
    await p.write(s);
    await p.write({ ...s, groups: [{ id: 1, name: 'X', dev_type: 0 }] });
    await writeFile(join(dir, 'state.json'), '{"schema_version": 2, "devices": [tru');
    const r = await new FileStatePersistence(dir).load();
    expect(r.source).toBe('backup');
    expect(r.warning).toMatch(/corrupt/);
    expect(r.state.devices[0]?.addr).toBe('AABBCC');
    expect((await readdir(dir)).some((f) => f.startsWith('state.json.corrupt-'))).toBe(true);
  });

  it('both-files-broken-starts-empty-but-keeps-the-evidence', async () => {
    const dir = await tmp();
    await writeFile(join(dir, 'state.json'), 'garbage');
    await writeFile(join(dir, 'state.json.bak'), 'more garbage');
    const r = await new FileStatePersistence(dir).load();
    expect(r.source).toBe('empty');
    expect(r.warning).toMatch(/unusable/);
    const files = await readdir(dir);
    expect(files.filter((f) => f.includes('.corrupt-'))).toHaveLength(2);
  });
});
