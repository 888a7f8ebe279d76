import { describe, expect, it } from 'vitest';
import { isoSeconds, nextId, slugify, uniqueKey } from '../../../src/domain/keys.ts';
import { renumberActions } from '../../../src/domain/scene-renumber.ts';
import { validateSceneActions, type SceneAction } from '../../../src/domain/scene.ts';

const eff = (value: number[]) => ({
  kind: 'native_effect',
  target: { kind: 'groups', value },
  params: {},
  flags_override: {},
});
const og = (groups: number[], children: number[][], values?: [number, number][]) =>
  validateSceneActions([
    {
      kind: 'offset_group',
      target: { kind: 'groups', value: groups },
      offset: values
        ? { mode: 'explicit', values: values.map(([id, offset_ms]) => ({ id, offset_ms })) }
        : { mode: 'none' },
      actions: children.map(eff),
    },
  ]);
const renumber = (a: SceneAction[], g: number) => {
  const r = renumberActions(a, g);
  return r && validateSceneActions(r);
};

describe('keys', () => {
  it('slugs like the original and suffixes from _2', () => {
    expect(slugify('Race Start!', 'scene')).toBe('race_start');
    expect(slugify('A  b__c', 'scene')).toBe('a_b_c');
    expect(slugify('---', 'scene')).toBe('scene');
    expect(slugify('Grün Welle', 'scene')).toBe('gr_n_welle');
    const taken = new Set(['race_start', 'race_start_2']);
    expect(uniqueKey('race_start', (k) => taken.has(k))).toBe('race_start_3');
    expect(() => uniqueKey('x', () => true)).toThrow(/^key: too many records/);
    expect(isoSeconds(Date.UTC(2026, 4, 1, 21, 26, 54, 999))).toBe('2026-05-01T21:26:54Z');
    expect(nextId(undefined, [])).toBe(0);
    expect(nextId(9, [0, 3])).toBe(9);
    expect(nextId(1, [0, 3])).toBe(4);
  });
});

describe('group-delete renumbering', () => {
  it('follows the reference examples', () => {
    expect(renumber(og([1, 3, 5], []), 3)?.[0]).toMatchObject({ target: { value: [0, 1, 4] } });
    expect(renumber(og([0, 1, 2], []), 1)?.[0]).toMatchObject({ target: { value: [0, 1] } });
    expect(renumber(og([3, 5], [[5]]), 3)?.[0]).toMatchObject({
      target: { value: [0, 4] },
      actions: [{ target: { value: [4] } }],
    });
    expect(
      renumber(
        og(
          [3, 5],
          [],
          [
            [3, 100],
            [5, 250],
          ],
        ),
        3,
      )?.[0],
    ).toMatchObject({
      offset: {
        values: [
          { id: 0, offset_ms: 100 },
          { id: 4, offset_ms: 250 },
        ],
      },
    });
    // A collapsing explicit entry is dropped (first occurrence wins).
    expect(
      renumber(
        og(
          [0, 3],
          [],
          [
            [0, 7],
            [3, 9],
          ],
        ),
        3,
      )?.[0],
    ).toMatchObject({ target: { value: [0] }, offset: { values: [{ id: 0, offset_ms: 7 }] } });
    expect(renumber(validateSceneActions([eff([5])]), 3)?.[0]).toMatchObject({ target: { value: [4] } });
    expect(renumberActions(validateSceneActions([eff([1])]), 5)).toBeNull();
    expect(renumberActions(validateSceneActions([{ kind: 'sync' }, { kind: 'delay' }]), 1)).toBeNull();
  });
});
