import { describe, expect, it } from 'vitest';
import { Prng } from '../../../src/util/prng.ts';

describe('Prng (mulberry32)', () => {
  it('reproduces the same sequence for the same seed', () => {
    const a = new Prng(42);
    const b = new Prng(42);
    const xs = Array.from({ length: 50 }, () => a.next());
    expect(Array.from({ length: 50 }, () => b.next())).toEqual(xs);
    expect(new Set(xs).size).toBe(50);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(new Prng(43).next()).not.toBe(xs[0]);
  });

  it('int covers both bounds uniformly-ish and rejects bad ranges', () => {
    const r = new Prng(7);
    const counts = new Map<number, number>();
    for (let i = 0; i < 6000; i++) {
      const v = r.int(50, 55);
      counts.set(v, (counts.get(v) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).toEqual([50, 51, 52, 53, 54, 55]);
    for (const c of counts.values()) expect(c).toBeGreaterThan(800);
    expect(() => r.int(3, 2)).toThrow(RangeError);
    expect(() => r.int(0.5, 2)).toThrow(RangeError);
  });

  it('pick returns members and refuses an empty array', () => {
    const r = new Prng('seed');
    const arr = ['a', 'b', 'c'];
    for (let i = 0; i < 30; i++) expect(arr).toContain(r.pick(arr));
    expect(() => r.pick([])).toThrow(RangeError);
  });

  it('fork gives independent streams that do not disturb the parent', () => {
    const p1 = new Prng(1);
    const p2 = new Prng(1);
    const f = p1.fork('node-0');
    f.next();
    f.next();
    expect(p1.next()).toBe(p2.next());
    expect(new Prng(1).fork('a').next()).toBe(new Prng(1).fork('a').next());
    expect(new Prng(1).fork('a').next()).not.toBe(new Prng(1).fork('b').next());
  });

  it('restart puts a stream and its forks at a state of (origin, label), whatever was drawn', () => {
    const draw = (r: Prng, n: number): number[] => Array.from({ length: n }, () => r.next());
    // Two runs of one seed that drew differently (one phase took longer) …
    const a = new Prng(5);
    const b = new Prng(5);
    const fa = a.fork('node-0').fork('radio');
    const fb = b.fork('node-0').fork('radio');
    draw(a, 3);
    draw(fa, 17);
    draw(b, 40);
    draw(fb, 2);
    expect(a.next()).not.toBe(b.next());
    // … draw the same numbers per stream after a restart with the same label.
    a.restart('poll');
    b.restart('poll');
    expect(draw(a, 20)).toEqual(draw(b, 20));
    expect(draw(fa, 20)).toEqual(draw(fb, 20));
    // Different labels, and different streams, restart to different numbers.
    const c = new Prng(5);
    c.restart('discovery');
    a.restart('poll');
    expect(c.next()).not.toBe(a.next());
    a.restart('poll');
    expect(fa.next()).not.toBe(a.next());
    // A stream that was never restarted is not touched by another's restart.
    const d = new Prng(5);
    const e = new Prng(5);
    d.fork('x').restart('poll');
    expect(d.next()).toBe(e.next());
  });
});
