import { describe, expect, it } from 'vitest';
import { looksLikeZip, readZip, ZipError } from '../../../src/util/zip.ts';
import { writeZip } from './zip-writer.ts';

const LIMITS = { maxEntries: 10, maxEntryBytes: 1000, maxTotalBytes: 1500 };
const text = (s: string): Buffer => Buffer.from(s, 'utf8');

describe('zip reader', () => {
  it('reads stored and deflated entries with UTF-8 names; directories skipped', () => {
    const zip = writeZip([
      { name: '.racelink/', bytes: text('') },
      { name: '.racelink/scenes.json', bytes: text('{"a":"ü 🏁"}'), deflate: true },
      { name: '.racelink/rl_presets.json', bytes: text('{}') },
    ]);
    expect(looksLikeZip(zip)).toBe(true);
    const entries = readZip(zip, LIMITS);
    expect(entries.map((e) => [e.name, e.bytes.toString('utf8')])).toEqual([
      ['.racelink/scenes.json', '{"a":"ü 🏁"}'],
      ['.racelink/rl_presets.json', '{}'],
    ]);
  });

  it('stops a deflate bomb at the declared size, whatever it claims', () => {
    const bomb = writeZip([
      { name: 'x.json', bytes: Buffer.alloc(5_000_000, 0x20), deflate: true, claimSize: 100 },
    ]);
    expect(bomb.length).toBeLessThan(10_000);
    expect(() => readZip(bomb, LIMITS)).toThrow(ZipError);
    expect(() => readZip(bomb, LIMITS)).toThrow(/x.json: cannot be unpacked/);
  });

  it('refuses entries or archives over the limits, too many entries, encryption', () => {
    expect(() => readZip(writeZip([{ name: 'big', bytes: Buffer.alloc(1001) }]), LIMITS)).toThrow(
      'big: larger than 1000 bytes',
    );
    const two = writeZip([
      { name: 'a', bytes: Buffer.alloc(800) },
      { name: 'b', bytes: Buffer.alloc(800) },
    ]);
    expect(() => readZip(two, LIMITS)).toThrow('more than 1500 bytes uncompressed');
    const many = writeZip(Array.from({ length: 11 }, (_, i) => ({ name: `f${i}`, bytes: text('x') })));
    expect(() => readZip(many, LIMITS)).toThrow('too many entries (11; at most 10)');
    expect(() => readZip(writeZip([{ name: 'e', bytes: text('x'), flags: 1 }]), LIMITS)).toThrow(
      'e: encrypted',
    );
  });

  it('refuses what is not a zip or is cut short', () => {
    expect(() => readZip(text('{"not":"zip"}'), LIMITS)).toThrow('not a zip file');
    const zip = writeZip([{ name: 'a.json', bytes: text('{"long":"' + 'x'.repeat(200) + '"}') }]);
    const cut = Buffer.concat([zip.subarray(0, 60), zip.subarray(zip.length - 80)]);
    expect(() => readZip(cut, LIMITS)).toThrow(ZipError);
  });
});
