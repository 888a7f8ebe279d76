import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  RF_CHANNELS,
  channelOf,
  checkSeparation,
  describeRf,
  findChannel,
  firstFreeChannel,
  rfDifferences,
  tooClose,
} from '../../../src/domain/rf-channels.ts';
import { validateRfConfig } from '../../../src/protocol/rf.ts';
import { DEFAULT_RF } from '../../../src/protocol/types.ts';

describe('rf channel table', () => {
  it('is the firmware table: 5 dense channels per region, valid, devices ship on EU868 ch 1', () => {
    for (const region of ['EU868', 'US915'] as const) {
      expect(RF_CHANNELS.filter((c) => c.region === region).map((c) => c.id)).toEqual([1, 2, 3, 4, 5]);
    }
    expect(RF_CHANNELS.every((c) => validateRfConfig(c.rf) === null)).toBe(true);
    expect(findChannel('EU868', 1)?.rf).toEqual(DEFAULT_RF);
    expect(findChannel('EU868', 2)?.rf.freqHz).toBe(868_200_000);
    expect(findChannel('US915', 5)?.rf.freqHz).toBe(908_300_000);
    expect(findChannel('EU868', 6)).toBeNull();
  });

  it('names a channel only when all seven fields match', () => {
    expect(channelOf(DEFAULT_RF)?.id).toBe(1);
    expect(channelOf({ ...DEFAULT_RF, txPowerDbm: 13 })).toBeNull();
    expect(rfDifferences(DEFAULT_RF, { ...DEFAULT_RF, sf: 9, preamble: 10 })).toEqual(['sf', 'preamble']);
    expect(describeRf(findChannel('EU868', 2)!.rf)).toBe('EU868 ch 2 · 868.2 MHz');
    expect(describeRf({ ...DEFAULT_RF, sf: 9 })).toBe('custom · 867.7 MHz SF9 125 kHz');
  });

  it('every pair of table channels of a region is separated; a sync word alone is not', () => {
    const eu = RF_CHANNELS.filter((c) => c.region === 'EU868');
    for (const a of eu) for (const b of eu) if (a !== b) expect(tooClose(a.rf, b.rf)).toBe(false);
    expect(tooClose(DEFAULT_RF, { ...DEFAULT_RF, syncWord: 0x34 })).toBe(true);
    // 500 kHz bands need more than 500 kHz between centres.
    const wide = { ...DEFAULT_RF, bwKhzX10: 5000 };
    expect(tooClose(wide, { ...wide, freqHz: wide.freqHz + 600_000 })).toBe(true);
    expect(tooClose(wide, { ...wide, freqHz: wide.freqHz + 750_000 })).toBe(false);
  });

  it('a separation conflict names the other network; the network itself and unknown RF are skipped', () => {
    const nets = [
      { id: 1, name: 'Track A', rf: DEFAULT_RF },
      { id: 2, name: 'Track B', rf: null },
    ];
    expect(checkSeparation(1, DEFAULT_RF, nets)).toBeNull();
    expect(checkSeparation(2, { ...DEFAULT_RF, freqHz: 867_900_000 }, nets)).toMatchObject({
      other: { id: 1, name: 'Track A' },
      distanceHz: 200_000,
      requiredHz: 500_000,
    });
    expect(checkSeparation(null, findChannel('EU868', 2)!.rf, nets)).toBeNull();
  });

  it('first free channel skips taken ones and is null when the region is full', () => {
    expect(firstFreeChannel('EU868', [])?.id).toBe(1);
    expect(firstFreeChannel('EU868', [DEFAULT_RF, null])?.id).toBe(2);
    const all = RF_CHANNELS.filter((c) => c.region === 'US915').map((c) => c.rf);
    expect(firstFreeChannel('US915', all)).toBeNull();
  });

  it('separation is symmetric (property)', () => {
    const rf = fc.record({
      freqHz: fc.integer({ min: 863_000_000, max: 928_000_000 }),
      bwKhzX10: fc.constantFrom(78, 104, 156, 208, 313, 417, 625, 1250, 2500, 5000),
    });
    fc.assert(
      fc.property(rf, rf, (a, b) => {
        const x = { ...DEFAULT_RF, ...a };
        const y = { ...DEFAULT_RF, ...b };
        return tooClose(x, y) === tooClose(y, x);
      }),
    );
  });
});
