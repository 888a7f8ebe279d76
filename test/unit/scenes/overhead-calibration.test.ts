import { describe, expect, it } from 'vitest';
import { WireOverheadCalibration } from '../../../src/services/scenes/overhead-calibration.ts';
import { DEFAULT_RF } from '../../../src/protocol/types.ts';
import { packetAirtimeMs } from '../../../src/protocol/airtime.ts';

describe('wire overhead calibration', () => {
  it('uses 12 ms until five plausible samples, then their smoothed value', () => {
    const c = new WireOverheadCalibration(() => DEFAULT_RF);
    const air = packetAirtimeMs(5);
    for (let i = 0; i < 4; i++) c.sample(5, air + 15);
    c.sample(5, air + 5000); // waited behind other traffic: ignored
    expect(c.current()).toEqual({ ms: 12, source: 'default' });
    c.sample(5, air + 15);
    expect(c.current()).toEqual({ ms: 15, source: 'measured' });
    for (let i = 0; i < 30; i++) c.sample(5, air + 14);
    expect(c.current().ms).toBeCloseTo(14, 1);
  });
});
