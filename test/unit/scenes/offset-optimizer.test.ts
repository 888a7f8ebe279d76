import { describe, expect, it } from 'vitest';
import { fitFormula, planOffsets, type OffsetSpec } from '../../../src/domain/scenes/offset-optimizer.ts';
import { computeOffsetMs } from '../../../src/protocol/packets.ts';
import { range } from './plan-helpers.ts';

const linear = (base_ms: number, step_ms: number): OffsetSpec => ({ mode: 'linear', base_ms, step_ms });
const table = (f: (g: number) => number, groups: number[]) => groups.map((id) => ({ id, offset_ms: f(id) }));
const short = (p: ReturnType<typeof planOffsets>) =>
  `${p.strategy}:${p.ops.map((o) => `${o.groupId}/${o.offset.mode}`).join(',')}`;

describe('offset optimizer: the original strategies (§7.3)', () => {
  it.each([
    ['all', range(1, 10), linear(0, 100), 'A:255/LINEAR'],
    ['all', [], linear(0, 100), 'A:255/LINEAR'],
    ['all', [4], linear(0, 100), 'B:4/EXPLICIT'],
    ['all', range(0, 9), { mode: 'none' }, 'A:255/NONE'],
    [[1, 5], range(1, 6), linear(0, 100), 'B:1/EXPLICIT,5/EXPLICIT'],
    [range(1, 5), range(1, 6), linear(0, 100), 'C:255/LINEAR,6/NONE'],
    [[1, 2], range(0, 9), linear(0, 100), 'B:1/EXPLICIT,2/EXPLICIT'],
    [[1, 2, 3], range(1, 5), linear(0, 100), 'C:255/LINEAR,4/NONE,5/NONE'],
    [range(1, 7), range(1, 10), linear(0, 100), 'C:255/LINEAR,8/NONE,9/NONE,10/NONE'],
    [[1, 3], range(1, 5), { mode: 'none' }, 'B:1/NONE,3/NONE'],
    [[1, 3], [], linear(0, 100), 'B:1/EXPLICIT,3/EXPLICIT'],
  ] as const)('%j of K=%j %j → %s', (participants, known, offset, expected) => {
    const p = planOffsets({ participants, known, offset: offset as OffsetSpec, optimize: false });
    expect(short(p)).toBe(expected);
  });

  it('explicit values go out as stored; B carries the formula evaluated per group', () => {
    const p = planOffsets({
      participants: [1, 5],
      known: range(1, 6),
      offset: linear(0, 100),
      optimize: false,
    });
    expect(p.ops.map((o) => o.offset)).toEqual([
      { mode: 'EXPLICIT', offsetMs: 100 },
      { mode: 'EXPLICIT', offsetMs: 500 },
    ]);
  });
});

describe('offset optimizer: ours', () => {
  it('an explicit table that is linear goes out as a formula: 7 packets → 4', () => {
    const offset: OffsetSpec = { mode: 'explicit', values: table((g) => 100 * g, range(1, 7)) };
    const orig = planOffsets({ participants: range(1, 7), known: range(1, 10), offset, optimize: false });
    const ours = planOffsets({ participants: range(1, 7), known: range(1, 10), offset, optimize: true });
    expect(orig.ops).toHaveLength(7);
    expect(short(ours)).toBe('C:255/LINEAR,8/NONE,9/NONE,10/NONE');
    expect(ours.fitted).toEqual({ mode: 'LINEAR', baseMs: 0, stepMs: 100 });
  });

  it('a groups container covering every known group is one broadcast formula', () => {
    const p = planOffsets({
      participants: range(1, 6),
      known: range(1, 6),
      offset: linear(50, 25),
      optimize: true,
    });
    expect(short(p)).toBe('A:255/LINEAR');
    expect(p.knownGroupsSettled).toBe(true);
    const none = planOffsets({
      participants: [1, 2, 3],
      known: [1, 2, 3],
      offset: { mode: 'none' },
      optimize: true,
    });
    expect(short(none)).toBe('A:255/NONE');
  });

  it('B to a sparse list leaves other known groups unsettled; C settles them', () => {
    expect(
      planOffsets({ participants: [1, 5], known: range(1, 6), offset: linear(0, 100), optimize: true })
        .knownGroupsSettled,
    ).toBe(false);
    expect(
      planOffsets({ participants: range(1, 5), known: range(1, 6), offset: linear(0, 100), optimize: true })
        .knownGroupsSettled,
    ).toBe(true);
  });
});

describe('formula fitting', () => {
  it.each([
    ['linear', (g: number) => 100 + 50 * g, 'LINEAR'],
    ['decreasing linear', (g: number) => 1000 - 40 * g, 'LINEAR'],
    ['constant', () => 700, 'LINEAR'],
    ['vshape', (g: number) => 30 + Math.abs(g - 5) * 150, 'VSHAPE'],
    ['modulo', (g: number) => 20 + (g % 3) * 200, 'MODULO'],
  ])('%s tables are recognised and reproduce every value', (_name, f, mode) => {
    const t = table(f, range(1, 9));
    const fit = fitFormula(t);
    expect(fit?.mode).toBe(mode);
    for (const v of t) expect(computeOffsetMs(fit ?? { mode: 'NONE' }, v.id)).toBe(v.offset_ms);
  });

  it('the reference table 0/100/250 on [1,3,5] is linear -125 + 75·g once clamped at 0', () => {
    expect(fitFormula(table((g) => [0, 0, 0, 100, 0, 250][g] ?? 0, [1, 3, 5]))).toEqual({
      mode: 'LINEAR',
      baseMs: -125,
      stepMs: 75,
    });
  });

  it('clamped values still fit (negative results read 0 on the node)', () => {
    const t = table((g) => Math.max(0, -200 + 100 * g), range(1, 6));
    const fit = fitFormula(t);
    expect(fit).not.toBeNull();
    for (const v of t) expect(computeOffsetMs(fit ?? { mode: 'NONE' }, v.id)).toBe(v.offset_ms);
  });

  it('irregular tables, and steps beyond int16, are not fitted', () => {
    expect(
      fitFormula([
        { id: 1, offset_ms: 0 },
        { id: 3, offset_ms: 100 },
        { id: 5, offset_ms: 150 },
      ]),
    ).toBeNull();
    expect(
      fitFormula([
        { id: 1, offset_ms: 0 },
        { id: 2, offset_ms: 40000 },
      ]),
    ).toBeNull();
    expect(
      fitFormula([
        { id: 1, offset_ms: 10 },
        { id: 2, offset_ms: 15 },
        { id: 4, offset_ms: 20 },
      ]),
    ).toBeNull();
  });
});
