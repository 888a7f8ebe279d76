import { describe, expect, it } from 'vitest';
import {
  batteryLevel,
  capsSummary,
  compareValues,
  flagNames,
  formatDuration,
  formatElapsed,
  formatMac,
  formatVolts,
  matchesSearch,
  relativeTime,
  rssiLevel,
  sameRecord,
  snrLevel,
} from '../../ui/src/format.ts';

describe('ui formatting', () => {
  it('formats addresses, volts and durations as the console shows them', () => {
    expect(formatMac('246f28f1728b', 'F1728B')).toBe('24:6F:28:F1:72:8B');
    expect(formatMac(null, 'f1728b')).toBe('F1:72:8B');
    expect(formatVolts(7950)).toBe('7.9 V');
    expect(formatVolts(0)).toBe('—');
    expect(formatDuration(1500)).toBe('1,500 ms');
    expect(formatDuration(75_000)).toBe('1:15');
    expect(formatDuration(3_725_000)).toBe('1:02:05');
    expect(formatElapsed(7.9)).toBe('0:07');
    expect(formatElapsed(125)).toBe('2:05');
  });

  it('judges batteries per pack type: under 12 V is 2S, else 6S', () => {
    expect(batteryLevel(0)).toBe('none');
    expect(batteryLevel(7400)).toBe('good');
    expect(batteryLevel(6700)).toBe('warn');
    expect(batteryLevel(6000)).toBe('bad');
    expect(batteryLevel(22_000)).toBe('good');
    expect(batteryLevel(20_000)).toBe('warn');
    expect(batteryLevel(18_000)).toBe('bad');
    expect(batteryLevel(7000, { warn2s: 7.2, warn6s: 21 })).toBe('warn');
  });

  it('colours signal levels with the documented thresholds', () => {
    expect(rssiLevel(0)).toBe('none');
    expect(rssiLevel(-80)).toBe('good');
    expect(rssiLevel(-90)).toBe('warn');
    expect(rssiLevel(-105)).toBe('warn');
    expect(rssiLevel(-106)).toBe('bad');
    expect(snrLevel(3, true)).toBe('good');
    expect(snrLevel(-1, true)).toBe('warn');
    expect(snrLevel(-8, true)).toBe('bad');
    expect(snrLevel(-8, false)).toBe('none');
  });

  it('writes relative times and flag names', () => {
    expect(relativeTime(null, 100)).toBe('never');
    expect(relativeTime(98, 100)).toBe('just now');
    expect(relativeTime(40, 100)).toBe('60 s ago');
    expect(relativeTime(100 - 600, 100)).toBe('10 min ago');
    expect(relativeTime(100 - 7200, 100)).toBe('2 h ago');
    expect(flagNames(0x01 | 0x02 | 0x20)).toEqual(['ARM', 'OFFSET']);
    expect(capsSummary({ LED: 3, STARTBLOCK: 1, X: 0 })).toBe('3 LED · 1 STARTBLOCK');
  });

  it('searches name, MAC with or without separators, type and group', () => {
    const d = { name: 'Start Left', addr: 'F1728B', full_mac: '246F28F1728B', dev_type_name: 'LED_Rev4' };
    expect(matchesSearch(d, 'Gate', 'start')).toBe(true);
    expect(matchesSearch(d, 'Gate', 'f1:72')).toBe(true);
    expect(matchesSearch(d, 'Gate', '246f28')).toBe(true);
    expect(matchesSearch(d, 'Gate', 'rev4')).toBe(true);
    expect(matchesSearch(d, 'Gate', 'gate')).toBe(true);
    expect(matchesSearch(d, 'Gate', 'finish')).toBe(false);
  });

  it('sorts numbers numerically, names naturally and empty values last', () => {
    expect([10, 2, 33].sort(compareValues)).toEqual([2, 10, 33]);
    expect(['Gate 10', 'Gate 2'].sort(compareValues)).toEqual(['Gate 2', 'Gate 10']);
    expect([null, 3, 1].sort(compareValues)).toEqual([1, 3, null]);
    expect([false, true].sort(compareValues)).toEqual([true, false]);
  });

  it('compares records field by field (nested objects by value)', () => {
    expect(sameRecord({ a: 1, s: { x: 1 } }, { a: 1, s: { x: 1 } })).toBe(true);
    expect(sameRecord({ a: 1, s: { x: 1 } }, { a: 1, s: { x: 2 } })).toBe(false);
    expect(sameRecord({ a: 1 }, { a: 1, b: 2 })).toBe(false);
  });
});
