import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  SPECIAL_OPTIONS,
  checkSpecialValue,
  findAnyOption,
  flatten,
  isPair,
  materializeSpecials,
  packSpecial,
  storedValue,
  unpackSpecial,
} from '../../../src/domain/specials/options.ts';
import {
  SPECIAL_FUNCTIONS,
  coerceParams,
  type SpecialFunction,
} from '../../../src/domain/specials/functions.ts';
import { findMethod, methodData0, methodsFor } from '../../../src/domain/specials/methods.ts';

const opt = (key: string) => {
  const o = findAnyOption(key);
  if (!o) throw new Error(key);
  return o;
};

describe('specials values', () => {
  it('packs like the node expects (§10.2, little endian)', () => {
    expect(packSpecial(opt('led_fps'), 75)).toEqual([75, 0, 0, 0]);
    expect(packSpecial(opt('led_transition_ms'), 700)).toEqual([0xbc, 0x02, 0, 0]);
    expect(packSpecial(opt('led_seg0'), { start: 0x0102, stop: 0x0304 })).toEqual([2, 1, 4, 3]);
    expect(unpackSpecial(opt('led_abl_max_ma'), [0xe8, 0x03, 9, 9])).toBe(1000);
  });

  it('pack/unpack round-trips every valid value of every option', () => {
    for (const o of [...SPECIAL_OPTIONS.LED, ...SPECIAL_OPTIONS.STARTBLOCK]) {
      const arb = isPair(o)
        ? fc
            .tuple(fc.integer({ min: 0, max: 65535 }), fc.integer({ min: 0, max: 65535 }))
            .map(([a, b]) => ({ start: Math.min(a, b), stop: Math.max(a, b) }))
        : fc.integer({ min: o.min, max: o.max });
      fc.assert(
        fc.property(arb, (v) => {
          expect(checkSpecialValue(o, v)).toEqual({ ok: true, value: v });
          expect(unpackSpecial(o, packSpecial(o, v))).toEqual(v);
          expect(storedValue(o, flatten(o, v))).toEqual(v);
        }),
        { numRuns: 50 },
      );
    }
  });

  it('refuses instead of masking, naming the field', () => {
    expect(checkSpecialValue(opt('led_briS'), 256)).toEqual({ ok: false, error: 'value: must be <= 255' });
    expect(checkSpecialValue(opt('startblock_slots'), 0)).toEqual({
      ok: false,
      error: 'value: must be >= 1',
    });
    expect(checkSpecialValue(opt('led_fps'), '60')).toEqual({ ok: true, value: 60 });
    expect(checkSpecialValue(opt('led_seg1'), { start: '2', stop: 9 })).toEqual({
      ok: true,
      value: { start: 2, stop: 9 },
    });
    expect(checkSpecialValue(opt('led_seg1'), null)).toEqual({ ok: false, error: 'value: is required' });
  });

  it('materialises every key of the capabilities, stored values winning, unknown keys dropped', () => {
    const m = materializeSpecials(['STARTBLOCK', 'LED'], { led_fps: 30, bogus: 1, startblock_slots: 99 });
    expect(m).toMatchObject({ led_fps: 30, startblock_slots: 1, led_seg1_stop: 0 });
    expect(Object.keys(m)).toHaveLength(10);
    expect(m).not.toHaveProperty('bogus');
  });
});

describe('specials methods', () => {
  it('offers common methods to every node and reset only to LED nodes', () => {
    expect(methodsFor([]).map((m) => m.key)).toEqual([
      'mac_filter',
      'master_persist',
      'wifi_ap',
      'clear_master',
      'reboot',
    ]);
    expect(findMethod(['LED'], 'reset_overrides')?.option).toBe(0x0f);
    expect(findMethod(['STARTBLOCK'], 'reset_overrides')).toBeUndefined();
  });

  it('toggle values: 0/1, booleans, on/off; actions take none; reboot sends d0=1', () => {
    const ap = findMethod([], 'wifi_ap');
    const reboot = findMethod([], 'reboot');
    if (!ap || !reboot) throw new Error('methods missing');
    expect(methodData0(ap, true)).toEqual({ ok: true, data0: 1 });
    expect(methodData0(ap, 'off')).toEqual({ ok: true, data0: 0 });
    expect(methodData0(ap, 2)).toEqual({ ok: false, error: 'value: must be 0/1 or true/false for wifi_ap' });
    expect(methodData0(reboot, undefined)).toEqual({ ok: true, data0: 1 });
  });
});

describe('action parameter coercion (§10.4)', () => {
  const fn: SpecialFunction = {
    key: 'test',
    label: 'Test',
    capability: 'LED',
    type: 'control',
    unicast: true,
    broadcast: true,
    description: '',
    vars: [
      { name: 'color', label: 'Colour', widget: 'color' },
      { name: 'on', label: 'On', widget: 'toggle' },
      { name: 'level', label: 'Level', widget: 'slider', min: 0, max: 255 },
    ],
  };

  it('reads colours as hex, {r,g,b} or [r,g,b]; toggles loosely; integers within bounds', () => {
    expect(coerceParams(fn, { color: '#FF8000', on: 'Yes', level: '12', other: 1 })).toEqual({
      ok: true,
      params: { color: [255, 128, 0], on: true, level: 12 },
    });
    expect(coerceParams(fn, { color: { r: 1, g: 2, b: 3 }, on: 0 })).toEqual({
      ok: true,
      params: { color: [1, 2, 3], on: false },
    });
    expect(coerceParams(fn, { color: [9, 8, 7] })).toEqual({ ok: true, params: { color: [9, 8, 7] } });
    expect(coerceParams(fn, {})).toEqual({ ok: true, params: {} });
  });

  it('names the variable when coercion fails', () => {
    expect(coerceParams(fn, { color: '#12' })).toMatchObject({
      ok: false,
      error: /^params\.color: invalid hex color/,
    });
    expect(coerceParams(fn, { color: [1, 2] })).toMatchObject({
      ok: false,
      error: /^params\.color: invalid color array/,
    });
    expect(coerceParams(fn, { color: { r: 1 } })).toMatchObject({ ok: false, error: /invalid color object/ });
    expect(coerceParams(fn, { color: true })).toMatchObject({ ok: false, error: /unsupported color value/ });
    expect(coerceParams(fn, { on: 'maybe' })).toEqual({ ok: false, error: 'params.on: must be a boolean' });
    expect(coerceParams(fn, { level: 256 })).toEqual({ ok: false, error: 'params.level: must be <= 255' });
    expect(coerceParams(fn, { level: 1.5 })).toEqual({
      ok: false,
      error: 'params.level: must be an integer',
    });
  });

  it('every shipped function declares brightness bounds 0..255', () => {
    for (const f of SPECIAL_FUNCTIONS) {
      const b = f.vars.find((v) => v.name === 'brightness');
      if (b) expect([b.min, b.max]).toEqual([0, 255]);
    }
  });
});
