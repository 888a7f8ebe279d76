import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fitName } from '../../../src/domain/text.ts';
import { readRaceLinkFolder } from '../../../src/services/import/read-folder.ts';

describe('fitName (names from another program)', () => {
  it('keeps names that fit exactly, whatever the script', () => {
    for (const n of ['Start Gate 1', 'Tribüne Nord', 'スタートゲート', '門 ゲート 🏁', 'Ñandú ⚡'])
      expect(fitName(n, 64)).toEqual({ text: n, cut: false, cleaned: false });
  });

  it('cuts at a character boundary: never half an emoji, never half a flag', () => {
    expect(fitName('ab😀😀', 3)).toEqual({ text: 'ab😀', cut: true, cleaned: false });
    // 🇩🇪 is two code points; a cut that would split it drops it whole.
    expect(fitName('abc🇩🇪', 4).text).toBe('abc');
    expect(fitName('abc🇩🇪x', 5).text).toBe('abc🇩🇪');
  });

  it('removes control and text-direction characters', () => {
    expect(fitName('Gate\u0007 1\u202e', 64)).toEqual({ text: 'Gate 1', cut: false, cleaned: true });
  });
});

describe('the CLI helpers', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lightnet-import-unit-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads the JSON files two levels deep, lists others by name, follows no symlink inside', async () => {
    await mkdir(join(dir, 'presets'));
    await mkdir(join(dir, 'presets', 'deeper'));
    await writeFile(join(dir, 'scenes.json'), '{}');
    await writeFile(join(dir, 'presets', 'p.json'), '{"1":{}}');
    await writeFile(join(dir, 'presets', 'deeper', 'x.json'), '{}');
    await writeFile(join(dir, 'notes.txt'), 'secret');
    await symlink('/etc/hostname', join(dir, 'link.json'));
    const files = await readRaceLinkFolder(dir);
    expect(files.map((f) => [f.path, f.bytes.length])).toEqual([
      ['link.json', 0],
      ['notes.txt', 0],
      ['presets/p.json', 8],
      ['scenes.json', 2],
    ]);
    await expect(readRaceLinkFolder(join(dir, 'nope'))).rejects.toThrow(/nope: no such folder/);
    await expect(readRaceLinkFolder(join(dir, 'scenes.json'))).rejects.toThrow(/is not a folder/);
  });
});
