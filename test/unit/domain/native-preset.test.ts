import { describe, expect, it } from 'vitest';
import {
  fullPresetParams,
  parseEffectParams,
  parsePresetFlags,
  presetEffectParams,
  resolvePresetRef,
  type NativePreset,
} from '../../../src/domain/scenes/native-preset.ts';
import { ledEffect, ledEffects, ledPalettes, paletteForcesColor } from '../../../src/domain/led-effects.ts';

describe('native preset params and flags', () => {
  it('keeps given fields, range-checks them and fills the stored shape with null', () => {
    const p = parseEffectParams(
      { mode: 2, speed: '128', color1: 'FF8000', check3: 'on', brightness: 0 },
      'params',
    );
    expect(p).toEqual({ mode: 2, speed: 128, color1: [255, 128, 0], check3: true, brightness: 0 });
    const full = fullPresetParams(p);
    expect(Object.keys(full)).toHaveLength(14);
    expect(full.intensity).toBeNull();
    expect(presetEffectParams(full)).toEqual(p);
    expect(() => parseEffectParams({ intensity: 256 }, 'params')).toThrow('params.intensity: must be <= 255');
    expect(() => parseEffectParams({ colour: 1 }, 'params')).toThrow(/^params\.colour: unknown field/);
    expect(parseEffectParams({ colour: 1, mode: 0 }, 'params', { lenient: true })).toEqual({ mode: 0 });
    expect(() => parseEffectParams([], 'params')).toThrow('params: must be an object');
  });

  it('reads flags as the flags byte or an object, ignoring bits other than the user flags', () => {
    expect(parsePresetFlags(undefined, 'flags')).toBe(0);
    expect(parsePresetFlags(0x22, 'flags')).toBe(0x22);
    expect(parsePresetFlags({ arm_on_sync: true, force_reapply: 1, force_tt0: false }, 'flags')).toBe(0x12);
    expect(parsePresetFlags(0x05, 'flags')).toBe(0);
    expect(parsePresetFlags(0x27, 'flags')).toBe(0x22);
    expect(parsePresetFlags(1, 'flags')).toBe(0);
    expect(() => parsePresetFlags(256, 'flags')).toThrow('flags: must be <= 255');
    expect(() => parsePresetFlags({ armed: true }, 'flags')).toThrow(/^flags\.armed: unknown field/);
    expect(parsePresetFlags(0x07, 'flags', { lenient: true })).toBe(0x02);
  });

  it('resolves scene references by id, RL:key and key', () => {
    const mk = (id: number, key: string): NativePreset => ({
      id,
      key,
      label: key,
      created: '',
      updated: '',
      params: fullPresetParams({}),
      flags: 0,
    });
    const all = [mk(0, 'red'), mk(7, '42')];
    expect(resolvePresetRef('7', all)?.key).toBe('42');
    expect(resolvePresetRef(0, all)?.key).toBe('red');
    expect(resolvePresetRef('RL:42', all)?.id).toBe(7);
    expect(resolvePresetRef(' red ', all)?.id).toBe(0);
    expect(resolvePresetRef('ghost', all)).toBeUndefined();
  });
});

describe('LED catalogues', () => {
  it('lists deterministic effects first and all 72 palettes', () => {
    expect(ledEffects()).toHaveLength(188);
    expect(
      ledEffects()
        .slice(0, 17)
        .every((e) => e.deterministic),
    ).toBe(true);
    expect(ledEffects()[17]?.deterministic).toBe(false);
    expect(ledPalettes()).toHaveLength(72);
    expect(ledEffect(0)?.slots.speed.used).toBe(false);
    expect(ledEffect(1)?.slots.intensity).toEqual({ used: true, label: 'Duty cycle' });
    expect([0, 1, 2].map((s) => paletteForcesColor(3, s as 0 | 1 | 2))).toEqual([true, true, false]);
    expect(paletteForcesColor(6, 0)).toBe(false);
  });
});
