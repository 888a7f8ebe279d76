import { describe, expect, it } from 'vitest';
import { etagMatches, pickEncoding, SerializedBody } from '../../../src/http/serialized-body.ts';

describe('serialized body helpers', () => {
  it('if-none-match-uses-weak-comparison-lists-and-star', () => {
    expect(etagMatches(undefined, 'W/"a"')).toBe(false);
    expect(etagMatches('W/"a"', 'W/"a"')).toBe(true);
    expect(etagMatches('"a"', 'W/"a"')).toBe(true);
    expect(etagMatches('"b", W/"a"', 'W/"a"')).toBe(true);
    expect(etagMatches('*', 'W/"a"')).toBe(true);
    expect(etagMatches('"ab"', 'W/"a"')).toBe(false);
  });

  it('accept-encoding-prefers-br-then-gzip-and-honours-q-zero', () => {
    expect(pickEncoding(undefined)).toBeNull();
    expect(pickEncoding('gzip, deflate, br')).toBe('br');
    expect(pickEncoding('gzip')).toBe('gzip');
    expect(pickEncoding('br;q=0, gzip;q=0.2')).toBe('gzip');
    expect(pickEncoding('GZIP;Q=0')).toBeNull();
    expect(pickEncoding('identity')).toBeNull();
    expect(pickEncoding('*')).toBe('br');
    expect(pickEncoding('*, br;q=0')).toBe('gzip');
    expect(pickEncoding(['deflate', 'gzip'])).toBe('gzip');
  });

  it('accept-encoding-answers-stay-the-same-once-remembered-and-past-the-memo-bound', () => {
    // Twice each: the second answer comes from the memo and must equal the first.
    for (let round = 0; round < 2; round++) {
      expect(pickEncoding('br;q=0, gzip')).toBe('gzip');
      expect(pickEncoding('gzip;q=0')).toBeNull();
    }
    // More distinct values than the memo holds, and one too long to keep.
    for (let i = 0; i < 100; i++) expect(pickEncoding(`gzip;q=0.${(i % 9) + 1}, x-${i}`)).toBe('gzip');
    const long = `${'x-enc, '.repeat(60)}br`;
    expect(pickEncoding(long)).toBe('br');
    expect(pickEncoding(long)).toBe('br');
    expect(pickEncoding('gzip;q=0')).toBeNull();
  });

  it('serialises-once-until-invalidated', () => {
    let n = 0;
    const body = new SerializedBody(() => JSON.stringify({ n: ++n }));
    const first = body.current();
    expect(body.current()).toBe(first);
    expect(first.body.toString()).toBe('{"n":1}');
    body.invalidate();
    const second = body.current();
    expect(second.body.toString()).toBe('{"n":2}');
    expect(second.etag).not.toBe(first.etag);
  });

  it('takes-the-body-as-bytes-too', () => {
    const text = JSON.stringify({ name: 'Tor Ü – 🏁' });
    const fromText = new SerializedBody(() => text).current();
    const fromBytes = new SerializedBody(() => Buffer.from(text, 'utf8')).current();
    expect(fromBytes.body.equals(fromText.body)).toBe(true);
    expect(fromBytes.etag).toBe(fromText.etag);
  });
});
