import { describe, expect, it } from 'vitest';
import { commandFor, lookOf, type DmxLook } from '../../../src/services/dmx/channel-map.ts';

const frame = (start: number, ch: number[]): Uint8Array => {
  const v = new Uint8Array(512);
  v.set(ch, start - 1);
  return v;
};
const valid = (id: number): boolean => id <= 100 && id !== 11;

describe('dmx channel map', () => {
  it('reads the 8-channel fixture at its start address', () => {
    const look = lookOf(frame(17, [200, 255, 128, 0, 9, 30, 40, 0]), 17, 'full', valid, null);
    expect(look).toEqual({
      brightness: 200,
      color: [255, 128, 0],
      effect: 9,
      speed: 30,
      intensity: 40,
      preset: null,
    });
  });

  it('preset 1–250 recalls that preset; 0 and 251–255 mean no preset', () => {
    expect(lookOf(frame(1, [10, 0, 0, 0, 0, 0, 0, 7]), 1, 'full', valid, null).preset).toBe(7);
    expect(lookOf(frame(1, [10, 0, 0, 0, 0, 0, 0, 250]), 1, 'full', valid, null).preset).toBe(250);
    expect(lookOf(frame(1, [10, 0, 0, 0, 0, 0, 0, 251]), 1, 'full', valid, null).preset).toBeNull();
    expect(lookOf(frame(1, [10, 0, 0, 0, 0, 0, 0, 0]), 1, 'full', valid, null).preset).toBeNull();
  });

  it('an effect value with no effect keeps the last valid effect (else Solid)', () => {
    const prev = lookOf(frame(1, [1, 0, 0, 0, 9, 0, 0, 0]), 1, 'full', valid, null);
    expect(lookOf(frame(1, [1, 0, 0, 0, 11, 0, 0, 0]), 1, 'full', valid, prev).effect).toBe(9);
    expect(lookOf(frame(1, [1, 0, 0, 0, 200, 0, 0, 0]), 1, 'full', valid, null).effect).toBe(0);
  });

  it('the rgb profile reads four channels and leaves speed and intensity alone', () => {
    const look = lookOf(frame(509, [90, 1, 2, 3]), 509, 'rgb', valid, null);
    expect(look).toEqual({
      brightness: 90,
      color: [1, 2, 3],
      effect: 0,
      speed: null,
      intensity: null,
      preset: null,
    });
  });

  it('a command carries only what changed; nothing changed is no command', () => {
    const a: DmxLook = {
      brightness: 100,
      color: [1, 2, 3],
      effect: 0,
      speed: 10,
      intensity: 20,
      preset: null,
    };
    expect(commandFor(null, a)).toEqual({
      kind: 'control',
      fields: { brightness: 100, color1: [1, 2, 3], mode: 0, speed: 10, intensity: 20 },
    });
    expect(commandFor(a, { ...a })).toBeNull();
    expect(commandFor(a, { ...a, brightness: 101 })).toEqual({
      kind: 'control',
      fields: { brightness: 101 },
    });
    expect(commandFor(a, { ...a, color: [1, 2, 4], speed: 11 })).toEqual({
      kind: 'control',
      fields: { color1: [1, 2, 4], speed: 11 },
    });
  });

  it('a preset is a PRESET frame; leaving it sends the whole channel look again', () => {
    const a: DmxLook = {
      brightness: 100,
      color: [1, 2, 3],
      effect: 0,
      speed: 10,
      intensity: 20,
      preset: null,
    };
    const p = { ...a, preset: 5 };
    expect(commandFor(a, p)).toEqual({ kind: 'preset', presetId: 5, brightness: 100 });
    expect(commandFor(p, { ...p, color: [9, 9, 9] })).toBeNull();
    expect(commandFor(p, { ...p, brightness: 3 })).toEqual({ kind: 'control', fields: { brightness: 3 } });
    expect(commandFor(p, a)).toMatchObject({
      kind: 'control',
      fields: { brightness: 100, color1: [1, 2, 3], mode: 0 },
    });
  });
});
