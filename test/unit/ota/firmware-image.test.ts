import { describe, expect, it } from 'vitest';
import {
  chipMatchesArch,
  djb2,
  findWledMetadata,
  inspectFirmware,
  normalizeReleaseName,
} from '../../../src/domain/firmware-image.ts';
import {
  parsePresetsFile,
  presetFileName,
  isValidPresetFileName,
} from '../../../src/domain/led-presets-file.ts';
import { displayName } from '../../../src/domain/upload-names.ts';
import { makeFirmware } from '../../fixtures/ota/builders.ts';

describe('firmware image checks', () => {
  it('reads chip, descriptor and release metadata of a good image', () => {
    const info = inspectFirmware(
      makeFirmware({ chipId: 0x0005, releaseName: 'Node_V4_TYPE_10', appVersion: '0.16.1' }),
    );
    expect(info).toMatchObject({
      chip: 'ESP32-C3',
      appVersion: '0.16.1',
      projectName: 'WLED',
      releaseName: 'Node_V4_TYPE_10',
      hasMetadata: true,
      warnings: [],
    });
  });

  it('skips a metadata candidate with a bad hash and takes the good one after it', () => {
    const meta = findWledMetadata(makeFirmware({ decoy: true, releaseName: 'Real' }));
    expect(meta?.releaseName).toBe('Real');
  });

  it('warns (does not refuse) without metadata or with metadata beyond 1 KiB', () => {
    expect(inspectFirmware(makeFirmware({ withMetadata: false })).warnings[0]).toMatch(
      /no WLED release metadata/,
    );
    expect(inspectFirmware(makeFirmware({ metaOffset: 2000 })).warnings[0]).toMatch(/beyond the first 1 KiB/);
  });

  it('refuses gzip, wrong magic, unknown chip and factory images', () => {
    expect(() => inspectFirmware(Buffer.from([0x1f, 0x8b, 0, 0]))).toThrow(
      'compressed images are not supported',
    );
    expect(() => inspectFirmware(makeFirmware({ corruptMagic: true }))).toThrow(
      /first byte 0xE8, expected 0xE9/,
    );
    expect(() => inspectFirmware(makeFirmware({ chipId: 0x0001 }))).toThrow('unsupported chip id 0x0001');
    const factory = makeFirmware();
    factory.writeUInt32LE(0, 32);
    expect(() => inspectFirmware(factory)).toThrow(/descriptor not found/);
  });

  it('djb2, release normalisation and chip/arch matching', () => {
    expect(djb2(Buffer.from(''))).toBe(5381);
    expect(djb2(Buffer.from('a'))).toBe((5381 * 33 + 97) >>> 0);
    expect(normalizeReleaseName('Node_V4')).toBe('Node');
    expect(normalizeReleaseName('Node_V5')).toBe('Node_V5');
    expect(chipMatchesArch('ESP32', 'esp32')).toBe(true);
    expect(chipMatchesArch('ESP32-S3', 'ESP32-S3')).toBe(true);
    expect(chipMatchesArch('ESP32-S3', 'esp32')).toBe(false);
  });
});

describe('presets.json parsing and names', () => {
  it('keeps integer ids 1..255 with object values, names trimmed or defaulted, sorted', () => {
    const text = JSON.stringify({
      '0': {},
      '10': { n: '  Ten ' },
      '2': { ql: '2' },
      '256': { n: 'big' },
      x: { n: 'x' },
      '3': 'not an object',
      '4': { n: 7 },
    });
    expect(parsePresetsFile(Buffer.from(text))).toEqual([
      { id: 2, name: 'Preset ID 2' },
      { id: 4, name: 'Preset ID 4' },
      { id: 10, name: 'Ten' },
    ]);
    expect(parsePresetsFile(Buffer.from('\ufeff{"1":{"n":"A"}}'))).toEqual([{ id: 1, name: 'A' }]);
    expect(() => parsePresetsFile(Buffer.from('[]'))).toThrow('presets.json must be a JSON object');
    expect(() => parsePresetsFile(Buffer.from([0xff, 0xfe]))).toThrow('not valid UTF-8');
  });

  it('generated names and the accepted-name pattern', () => {
    const d = new Date(2026, 0, 2, 3, 4, 5);
    expect(presetFileName(d, 0)).toBe('presets_20260102_030405.json');
    expect(presetFileName(d, 120)).toBe('presets_20260102_030405_120.json');
    for (const bad of ['../a.json', '.a.json', 'a/b.json', 'a..json', 'a.txt', '', 'a b.json'])
      expect(isValidPresetFileName(bad), bad).toBe(false);
    expect(isValidPresetFileName('presets_20260102_030405.json')).toBe(true);
  });

  it('client file names become display text', () => {
    expect(displayName('../../etc/passwd', 'f')).toBe('passwd');
    expect(displayName('C:\\x\\y.bin', 'f')).toBe('y.bin');
    expect(displayName('\u0000\u0007', 'f')).toBe('f');
    expect(displayName(undefined, 'cfg.json')).toBe('cfg.json');
  });
});
