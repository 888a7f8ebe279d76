import { describe, expect, it } from 'vitest';
import {
  addPass,
  flashColors,
  hexToRgb,
  maxWaitMs,
  stagePlan,
  takeBatch,
  type GateBatch,
} from '../../../src/services/integration/laps/merge.ts';
import { LookMemory } from '../../../src/services/integration/laps/looks.ts';
import type { Rgb } from '../../../src/protocol/types.ts';

const R: Rgb = [255, 0, 0];
const G: Rgb = [0, 255, 0];
const B: Rgb = [0, 0, 255];
const Y: Rgb = [255, 255, 0];

describe('lap pass merging', () => {
  it('merges passes on one gate into one batch, up to three colours', () => {
    const pending: GateBatch[] = [];
    expect(addPass(pending, { seat: 0, gateKey: 'g1', color: R, at: 100 })).toBe('new');
    expect(addPass(pending, { seat: 1, gateKey: 'g1', color: G, at: 105 })).toBe('merged');
    // The same colour again (a second lap of that pilot) adds nothing but is merged.
    expect(addPass(pending, { seat: 0, gateKey: 'g1', color: R, at: 106 })).toBe('merged');
    expect(addPass(pending, { seat: 2, gateKey: 'g1', color: B, at: 107 })).toBe('merged');
    expect(addPass(pending, { seat: 3, gateKey: 'g1', color: Y, at: 108 })).toBe('overflow');
    expect(pending).toEqual([{ gateKey: 'g1', colors: [R, G, B], seats: [0, 1, 2], firstAt: 100 }]);
  });

  it('keeps different gates apart and sends the oldest batch first', () => {
    const pending: GateBatch[] = [];
    addPass(pending, { seat: 1, gateKey: 'g2', color: G, at: 110 });
    addPass(pending, { seat: 0, gateKey: 'g1', color: R, at: 100 });
    const first = takeBatch(pending, 115, 50);
    expect(first.batch?.gateKey).toBe('g1');
    expect(first.stale).toEqual([]);
    expect(takeBatch(pending, 115, 50).batch?.gateKey).toBe('g2');
    expect(takeBatch(pending, 115, 50).batch).toBeNull();
  });

  it('drops batches that waited longer than their window instead of sending them late', () => {
    const pending: GateBatch[] = [];
    addPass(pending, { seat: 0, gateKey: 'g1', color: R, at: 100 });
    addPass(pending, { seat: 1, gateKey: 'g2', color: G, at: 140 });
    const r = takeBatch(pending, 160, 50);
    expect(r.stale.map((b) => b.gateKey)).toEqual(['g1']);
    expect(r.batch?.gateKey).toBe('g2');
    expect(pending).toEqual([]);
  });

  it('spreads the colours over color1..3 and bounds the wait by the airtime', () => {
    expect(flashColors([R])).toEqual([R, R, R]);
    expect(flashColors([R, G])).toEqual([R, G, R]);
    expect(flashColors([R, G, B])).toEqual([R, G, B]);
    expect(flashColors([])).toEqual([
      [255, 255, 255],
      [255, 255, 255],
      [255, 255, 255],
    ]);
    expect(maxWaitMs(37)).toBe(74);
    expect(maxWaitMs(2)).toBe(20);
    expect(hexToRgb('#12ab0f')).toEqual([0x12, 0xab, 0x0f]);
  });
});

describe('announced race times', () => {
  it('schedules staging at its moment and the start at its instant', () => {
    expect(stagePlan({ staging_epoch_ms: 1000, start_epoch_ms: 4000 }, 900, 60_000)).toEqual([
      { phase: 'staging', at_epoch_ms: 1000 },
      { phase: 'start', at_epoch_ms: 4000 },
    ]);
  });

  it('runs a staging already under way now and never schedules a past or far start', () => {
    expect(stagePlan({ staging_epoch_ms: 800, start_epoch_ms: 4000 }, 900, 60_000)).toEqual([
      { phase: 'staging', at_epoch_ms: 900 },
      { phase: 'start', at_epoch_ms: 4000 },
    ]);
    expect(stagePlan({ staging_epoch_ms: 800, start_epoch_ms: 850 }, 900, 60_000)).toEqual([
      { phase: 'staging', at_epoch_ms: 900 },
    ]);
    expect(stagePlan({ start_epoch_ms: 900 + 120_000 }, 900, 60_000)).toEqual([]);
    expect(stagePlan({}, 900, 60_000)).toEqual([]);
  });
});

describe('look memory', () => {
  it('accumulates CONTROL fields per address, ignores armed frames, and takes the newest that reached a gate', () => {
    const m = new LookMemory();
    m.note([
      {
        receiver: 'FFFFFF',
        request: { op: 'CONTROL', groupId: 3, flags: 1, fields: { mode: 2, color1: R } },
      },
    ]);
    m.note([
      { receiver: 'FFFFFF', request: { op: 'CONTROL', groupId: 3, flags: 1, fields: { brightness: 90 } } },
      { receiver: 'FFFFFF', request: { op: 'CONTROL', groupId: 3, flags: 3, fields: { mode: 9 } } }, // armed
    ]);
    expect(m.lookFor('FFFFFF', 3)).toEqual({
      kind: 'control',
      flags: 1,
      fields: { mode: 2, color1: R, brightness: 90 },
    });
    // A device of group 3 gets its group's look; a newer broadcast to everyone wins.
    expect(m.lookFor('AABBCC', 3)).toMatchObject({ kind: 'control' });
    m.note([
      { receiver: 'FFFFFF', request: { op: 'PRESET', groupId: 255, flags: 1, presetId: 4, brightness: 50 } },
    ]);
    expect(m.lookFor('AABBCC', 3)).toEqual({ kind: 'preset', flags: 1, presetId: 4, brightness: 50 });
    expect(m.lookFor('AABBCC', 7)).toEqual({ kind: 'preset', flags: 1, presetId: 4, brightness: 50 });
  });
});
