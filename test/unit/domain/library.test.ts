import { describe, expect, it } from 'vitest';
import { isoSeconds, nextId, slugify, uniqueKey } from '../../../src/domain/scenes/keys.ts';
import { renumberActions } from '../../../src/domain/scenes/renumber.ts';
import { validateSceneActions, type SceneAction } from '../../../src/domain/scenes/validation.ts';

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

describe('tolerant loading', () => {
  it('reports every repair', async () => {
    const { loadNativePresets, loadScenes } = await import('../../../src/domain/scenes/library-load.ts');
    const p = loadNativePresets(
      [{ id: 4, key: 'a', label: 'A', params: { speed: 300, mode: 0 }, flags: 0x03 }, {}],
      2,
    );
    expect(p.items).toHaveLength(1);
    expect(p.items[0]).toMatchObject({ id: 4, flags: 0x02, params: { mode: 0, speed: null } });
    expect(p.next).toBe(5);
    expect(p.notes).toEqual([
      'native_presets[0] "a": params.speed: must be <= 255 (field dropped)',
      'native_presets[1]: skipped (no key or label)',
    ]);
    const s = loadScenes([{ key: 's', label: 'S', actions: [{ kind: 'nope' }, { kind: 'sync' }] }], 7);
    // A record without an id gets a fresh one: never one a deleted scene had.
    expect(s.items[0]).toMatchObject({ id: 7, actions: [{ kind: 'sync' }], stop_on_error: true });
    expect(s.next).toBe(8);
    expect(s.notes).toEqual([
      'scenes[0] "s": action dropped (actions[0].kind: invalid action kind "nope"; expected one of native_preset, led_preset, native_effect, startblock, sync, delay, offset_group)',
      'scene "s": id missing replaced by 7',
    ]);
  });
});
