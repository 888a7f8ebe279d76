/**
 * What the simulator's banner says the real data folder holds: the snapshot (or its backup)
 * with the journal's later records on top, as the owning host would load it — read without
 * writing anything into that folder.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { emptyState, newDevice, type StateModel } from '../../../src/domain/model.ts';
import { summarizeRealFolder } from '../../../src/sim/real-folder.ts';
import { encodeRecord } from '../../../src/state/journal.ts';
import { serializeSnapshot } from '../../../src/state/snapshot.ts';
import { diffState } from '../../../src/state/state-diff.ts';
import type { Addr } from '../../../src/protocol/types.ts';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});
async function folder(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'lightnet-real-'));
  dirs.push(d);
  return d;
}

const withDevices = (n: number, groups = 0): StateModel => ({
  ...emptyState(),
  devices: Array.from({ length: n }, (_, i) => newDevice(`A0000${i}` as Addr, null, 1)),
  groups: Array.from({ length: groups }, (_, i) => ({ id: i + 1, name: `G${i + 1}`, dev_type: 0 })),
});

describe('summarizeRealFolder', () => {
  it('is-null-for-an-empty-or-missing-folder', async () => {
    const dir = await folder();
    expect(await summarizeRealFolder(dir)).toBeNull();
    expect(await summarizeRealFolder(join(dir, 'nope'))).toBeNull();
    await writeFile(join(dir, 'state.json'), await serializeSnapshot(emptyState(), 0));
    expect(await summarizeRealFolder(dir)).toBeNull();
  });

  it('counts-the-snapshot-with-the-journal-on-top-and-writes-nothing', async () => {
    const dir = await folder();
    const saved = withDevices(2, 1);
    await writeFile(join(dir, 'state.json'), await serializeSnapshot(saved, 3));
    const later = withDevices(5, 2);
    // A record the snapshot already holds (seq 3) and one after it (seq 4).
    await writeFile(
      join(dir, 'state.journal'),
      encodeRecord(3, diffState(emptyState(), saved)) + encodeRecord(4, diffState(saved, later)),
    );
    const before = (await readdir(dir)).sort();
    expect(await summarizeRealFolder(dir)).toEqual({ dir, devices: 5, groups: 2, scenes: 0 });
    expect((await readdir(dir)).sort()).toEqual(before);
  });

  it('falls-back-to-the-backup-when-the-snapshot-is-broken', async () => {
    const dir = await folder();
    await writeFile(join(dir, 'state.json'), '{ broken');
    await writeFile(join(dir, 'state.json.bak'), await serializeSnapshot(withDevices(3), 0));
    expect(await summarizeRealFolder(dir)).toEqual({ dir, devices: 3, groups: 0, scenes: 0 });
    // The broken file is the owning host's to move aside, not the simulator's.
    expect((await readdir(dir)).sort()).toEqual(['state.json', 'state.json.bak']);
  });
});
