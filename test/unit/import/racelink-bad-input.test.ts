import { describe, expect, it } from 'vitest';
import { emptyState } from '../../../src/domain/model.ts';
import { planImport } from '../../../src/domain/racelink/plan.ts';
import { RaceLinkImportError, type RaceLinkFile } from '../../../src/domain/racelink/types.ts';
import { CLUB, folderFiles, withFile } from './racelink-files.ts';

const NOW = '2026-11-27T05:00:00Z';
const club = folderFiles(CLUB);
const text = (f: RaceLinkFile[], path: string): string =>
  Buffer.from(f.find((x) => x.path === path)?.bytes ?? []).toString('utf8');

/** The error planImport throws, with the current state checked to be untouched. */
function failure(files: RaceLinkFile[]): RaceLinkImportError {
  const current = planImport(club, emptyState(), [], { now: NOW }).state;
  const before = JSON.stringify(current);
  try {
    planImport(files, current, [], { now: NOW, label: '/home/u/.racelink' });
  } catch (err) {
    expect(JSON.stringify(current)).toBe(before);
    expect(err).toBeInstanceOf(RaceLinkImportError);
    return err as RaceLinkImportError;
  }
  throw new Error('expected the import to fail');
}

describe('RaceLink import: bad input is refused with the file and the problem', () => {
  it('a folder that is not a RaceLink folder', () => {
    const e = failure([{ path: 'notes.txt', bytes: Buffer.from('hi') }]);
    expect(e.file).toBe('/home/u/.racelink');
    expect(e.message).toMatch(
      /not a RaceLink data folder: none of rl_standalone_config.json, standalone_config.json/,
    );
  });

  it('a truncated JSON file', () => {
    const cut = text(club, 'scenes.json').slice(0, 900);
    const e = failure(withFile(club, 'scenes.json', cut));
    expect(e.file).toBe('scenes.json');
    expect(e.message).toMatch(/^scenes.json: is truncated \(the JSON ends early/);
  });

  it('a damaged JSON file and an empty file', () => {
    expect(failure(withFile(club, 'rl_presets.json', '{"schema_version": 2,, }')).message).toMatch(
      /^rl_presets.json: is not valid JSON/,
    );
    expect(failure(withFile(club, 'rl_presets.json', '  ')).message).toBe('rl_presets.json: is empty');
  });

  it('the double-encoded state string damaged', () => {
    const cfg = JSON.parse(text(club, 'standalone_config.json')) as { options: { rl_state_v1: string } };
    cfg.options.rl_state_v1 = cfg.options.rl_state_v1.slice(0, 500);
    const e = failure(withFile(club, 'standalone_config.json', JSON.stringify(cfg)));
    expect(e.message).toMatch(/^standalone_config.json: options.rl_state_v1 is a string but not valid JSON/);
  });

  it('an unknown schema', () => {
    const cfg = JSON.parse(text(club, 'standalone_config.json')) as { options: { rl_state_v1: string } };
    const state = JSON.parse(cfg.options.rl_state_v1) as Record<string, unknown>;
    cfg.options.rl_state_v1 = JSON.stringify({ ...state, schema_version: 'two' });
    expect(failure(withFile(club, 'standalone_config.json', JSON.stringify(cfg))).message).toBe(
      'standalone_config.json: unknown options.rl_state_v1.schema_version "two" (this importer reads 1, 2, 3)',
    );
    const presets = text(club, 'rl_presets.json').replace('"schema_version": 2', '"schema_version": 0');
    expect(failure(withFile(club, 'rl_presets.json', presets)).message).toMatch(
      /^rl_presets.json: unknown schema_version 0/,
    );
  });

  it('files from a newer RaceLink', () => {
    const cfg = JSON.parse(text(club, 'standalone_config.json')) as { options: { rl_state_v1: string } };
    const state = JSON.parse(cfg.options.rl_state_v1) as Record<string, unknown>;
    cfg.options.rl_state_v1 = JSON.stringify({ ...state, schema_version: 4 });
    expect(failure(withFile(club, 'standalone_config.json', JSON.stringify(cfg))).message).toMatch(
      /^standalone_config.json: options.rl_state_v1.schema_version 4 was written by a newer RaceLink/,
    );
    const presets = text(club, 'rl_presets.json').replace('"schema_version": 2', '"schema_version": 3');
    expect(failure(withFile(club, 'rl_presets.json', presets)).message).toMatch(
      /schema_version 3 was written by a newer/,
    );
    const scenes = text(club, 'scenes.json').replace('"schema_version": 1', '"schema_version": 2');
    expect(failure(withFile(club, 'scenes.json', scenes)).message).toMatch(
      /^scenes.json: schema_version 2 was written by a newer/,
    );
  });

  it('a file of the wrong shape', () => {
    expect(failure(withFile(club, 'scenes.json', '[1,2]')).message).toBe('scenes.json: is not a JSON object');
    expect(failure(withFile(club, 'scenes.json', '{"schema_version":1}')).message).toBe(
      'scenes.json: scenes is missing or not a list',
    );
    expect(failure(withFile(club, 'rl_presets.json', '{"schema_version":2,"presets":{}}')).message).toBe(
      'rl_presets.json: presets is missing or not a list',
    );
  });

  it('text that is not UTF-8', () => {
    const files = [
      ...club.filter((f) => f.path !== 'scenes.json'),
      { path: 'scenes.json', bytes: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) },
    ];
    expect(failure(files).message).toBe('scenes.json: is not UTF-8 text');
  });

  it('paths that leave the folder', () => {
    expect(failure([...club, { path: '../etc/passwd', bytes: Buffer.from('x') }]).message).toMatch(
      /^\.\.\/etc\/passwd: paths with '\.\.' are not allowed/,
    );
    expect(failure([...club, { path: '/etc/passwd', bytes: Buffer.from('x') }]).message).toMatch(
      /absolute paths/,
    );
    expect(failure([...club, { path: 'C:\\x\\y.json', bytes: Buffer.from('x') }]).message).toMatch(
      /absolute paths/,
    );
  });

  it('finds the folder one or two levels down (a browser folder pick, a zip of the home folder)', () => {
    const nested = folderFiles(CLUB, 'home/.racelink/');
    const p = planImport(
      [...nested, { path: 'home/other.json', bytes: Buffer.from('{}') }],
      emptyState(),
      [],
      { now: NOW },
    );
    expect(p.state.devices).toHaveLength(24);
    expect(p.report.items.find((i) => i.name === 'home/other.json')?.action).toBe('skip');
  });

  it('a bad LED preset file or a bad backup is skipped with its reason, not fatal', () => {
    const files = withFile(
      withFile(club, 'presets/presets_20990101_000000.json', '{"1": {"n": "x"'),
      'rl_state_backups/state_x.json',
      '{"backup_format": 9, "state": "{}"}',
    );
    const p = planImport(files, emptyState(), [], { now: NOW });
    expect(p.report.items.find((i) => i.name === 'presets_20990101_000000.json')).toMatchObject({
      action: 'skip',
    });
    expect(p.report.items.find((i) => i.kind === 'backup')?.detail).toMatch(
      /backup_format 9 was written by a newer/,
    );
  });
});
