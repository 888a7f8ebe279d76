import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkPatch, PatchFile, patchSchema, type PatchEntry } from '../../../src/services/dmx/patch.ts';
import { parseUniverse } from '../../../src/domain/dmx-universes.ts';

const ctx = { universes: ['sacn:1', 'artnet:0.0.1'], groupExists: (id: number) => id >= 0 && id <= 5 };
const e = (
  group: number,
  address: number,
  universe = 'sacn:1',
  fixture: 'full' | 'rgb' = 'full',
): PatchEntry => ({
  group,
  universe,
  address,
  fixture,
});
const problem = (entries: PatchEntry[]): string => {
  try {
    checkPatch(entries, ctx);
    return 'ok';
  } catch (err) {
    return (err as Error).message;
  }
};

describe('dmx patch', () => {
  it('accepts fixtures side by side and on other universes', () => {
    expect(problem([e(1, 1), e(2, 9), e(3, 1, 'artnet:0.0.1'), e(4, 17, 'sacn:1', 'rgb')])).toBe('ok');
  });

  it('names the field of an overlap, an end past 512, a twice-patched or unknown group, an unknown universe', () => {
    expect(problem([e(1, 1), e(2, 8)])).toMatch(
      /^fixtures\[1\]\.address: 8–15 overlaps fixtures\[0\] \(group 1, 1–8\)/,
    );
    expect(problem([e(1, 506)])).toMatch(/^fixtures\[0\]\.address: .* ends at 513, past 512/);
    expect(problem([e(1, 509, 'sacn:1', 'rgb')])).toBe('ok');
    expect(problem([e(1, 1), e(1, 20)])).toMatch(/^fixtures\[1\]\.group: group 1 is patched twice/);
    expect(problem([e(9, 1)])).toBe('fixtures[0].group: no group 9');
    expect(problem([e(1, 1, 'sacn:2')])).toMatch(/^fixtures\[0\]\.universe: "sacn:2" is not an input/);
  });

  it('the schema refuses an address out of 1..512 and an unknown fixture, naming the field', () => {
    const r = patchSchema.safeParse({
      fixtures: [{ group: 1, universe: 'sacn:1', address: 0, fixture: 'full' }],
    });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(['fixtures', 0, 'address']);
    const f = patchSchema.safeParse({
      fixtures: [{ group: 1, universe: 'sacn:1', address: 1, fixture: 'moving-head' }],
    });
    expect(f.error?.issues[0]?.path).toEqual(['fixtures', 0, 'fixture']);
  });

  it('is kept on disk and read back', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dmx-patch-'));
    try {
      const file = new PatchFile(dir);
      expect(await file.load()).toEqual({ entries: [], problem: null });
      await file.save([e(2, 33)]);
      expect(JSON.parse(await readFile(join(dir, 'dmx-patch.json'), 'utf8'))).toEqual({
        fixtures: [e(2, 33)],
      });
      expect((await file.load()).entries).toEqual([e(2, 33)]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('parses --dmx specs', () => {
    expect(parseUniverse('sacn:1')).toEqual({ key: 'sacn:1', protocol: 'sacn', number: 1 });
    expect(parseUniverse('ARTNET:1.2.3')).toEqual({ key: 'artnet:1.2.3', protocol: 'artnet', number: 0x123 });
    expect(parseUniverse('sacn:0')).toMatch(/1–63999/);
    expect(parseUniverse('artnet:0.16.0')).toMatch(/subnet 0–15/);
    expect(parseUniverse('dmx:1')).toMatch(/is not sacn:<universe> or artnet/);
  });
});
