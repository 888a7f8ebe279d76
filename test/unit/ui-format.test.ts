import { describe, expect, it } from 'vitest';
import { batteryLevel, cellCount } from '../../ui/src/common/battery-cells.ts';
import {
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

  it('judges batteries per cell: 3.4 V per cell warns, 0.1 V lower is bad', () => {
    expect(batteryLevel(0)).toBe('none');
    expect(batteryLevel(7400)).toBe('good');
    expect(batteryLevel(6700)).toBe('warn');
    expect(batteryLevel(6000)).toBe('bad');
    expect(batteryLevel(22_000)).toBe('good');
    expect(batteryLevel(20_000)).toBe('warn');
    expect(batteryLevel(18_000)).toBe('bad');
    expect(batteryLevel(7000, { warnPerCell: 3.6 })).toBe('warn');
  });

  it('judges the pack size from the voltage so single cells are not flagged', () => {
    expect([3300, 3700, 4170, 4350].map(cellCount)).toEqual([1, 1, 1, 1]);
    expect([6200, 7600, 8400].map(cellCount)).toEqual([2, 2, 2]);
    expect([9900, 12_600].map(cellCount)).toEqual([3, 3]);
    expect([13_200, 16_800].map(cellCount)).toEqual([4, 4]);
    expect([19_800, 20_400, 25_200].map(cellCount)).toEqual([6, 6, 6]);
    // The simulator's single cells read 3.30–4.20 V: healthy ones are not low.
    expect(batteryLevel(3700)).toBe('good');
    expect(batteryLevel(4170)).toBe('good');
    expect(batteryLevel(3350)).toBe('warn');
    expect(batteryLevel(3200)).toBe('bad');
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

describe('scene editor model', () => {
  it('previews offsets for every formula, clamped to the wire range', async () => {
    const { offsetFor, changeOffsetMode, stickyOffsetWarnings, timeline } =
      await import('../../ui/src/scenes/scene-model.ts');
    expect(offsetFor({ mode: 'linear', base_ms: 100, step_ms: 250 }, 2)).toBe(600);
    expect(offsetFor({ mode: 'linear', base_ms: 0, step_ms: -100 }, 3)).toBe(0);
    expect(offsetFor({ mode: 'vshape', base_ms: 0, step_ms: 100, center: 3 }, 1)).toBe(200);
    expect(offsetFor({ mode: 'modulo', base_ms: 10, step_ms: 100, cycle: 2 }, 3)).toBe(110);
    expect(offsetFor({ mode: 'explicit', values: [{ id: 4, offset_ms: 70 }] }, 4)).toBe(70);
    expect(offsetFor({ mode: 'none' }, 4)).toBeNull();
    expect(changeOffsetMode({ mode: 'linear', base_ms: 0, step_ms: 100 }, 'explicit', [1, 2])).toEqual({
      mode: 'explicit',
      values: [
        { id: 1, offset_ms: 100 },
        { id: 2, offset_ms: 200 },
      ],
    });
    expect(
      stickyOffsetWarnings([
        { kind: 'offset_group', offset: { mode: 'linear' } },
        { kind: 'native_effect' },
        { kind: 'offset_group', offset: { mode: 'none' } },
        { kind: 'native_effect' },
      ]),
    ).toEqual([1]);
    const est = (ms: number) => ({ packets: 1, bytes: 1, airtime_ms: 1, wall_clock_ms: ms });
    const t = timeline(
      [
        { kind: 'delay' },
        {
          kind: 'offset_group',
          target: { kind: 'groups', value: [1, 2] },
          offset: { mode: 'linear', base_ms: 0, step_ms: 300 },
        },
      ],
      [est(500), est(100)],
    );
    expect(t.bars.map((b) => [b.start, b.end])).toEqual([
      [0, 500],
      [500, 600],
    ]);
    expect(t.bars[1]?.lanes).toEqual([
      { gid: 1, at: 900 },
      { gid: 2, at: 1200 },
    ]);
    expect(t.total).toBe(1200);
  });

  it('shows a delay as waiting time and keeps airtime for radio packets', async () => {
    const { formatCost, formatTotal, delayTotalMs } = await import('../../ui/src/scenes/scene-model.ts');
    const delay = { packets: 0, bytes: 0, airtime_ms: 1500, wall_clock_ms: 1500 };
    expect(formatCost(delay, 'delay')).toBe('wait 1,500 ms · no radio');
    expect(formatCost({ packets: 3, bytes: 54, airtime_ms: 155, wall_clock_ms: 191 }, 'native_effect')).toBe(
      '3p · 54B · 155 ms air · ~191 ms run',
    );
    const actions = [{ kind: 'native_effect' }, { kind: 'delay', duration_ms: 1500 }, { kind: 'sync' }];
    expect(delayTotalMs(actions)).toBe(1500);
    // The host's total counts the delay as airtime; the UI takes it out again.
    expect(formatTotal({ packets: 4, bytes: 68, airtime_ms: 1697, wall_clock_ms: 1745 }, 1500)).toBe(
      '4p · 68B · 197 ms air · 1,500 ms waiting · ~1,745 ms run',
    );
    expect(formatTotal({ packets: 1, bytes: 14, airtime_ms: 42, wall_clock_ms: 54 }, 0)).toBe(
      '1p · 14B · 42 ms air · ~54 ms run',
    );
    expect(formatCost(undefined)).toBe('…');
  });

  it('shows only the fields the effect uses, plus palette-forced colours', async () => {
    const { visibleFields } = await import('../../ui/src/effect-fields.ts');
    const slot = (used: boolean, label?: string) => ({ used, ...(label ? { label } : {}) });
    const schema = {
      vars: ['mode', 'speed', 'intensity', 'palette', 'color1', 'color2', 'color3', 'brightness'],
      ui: {
        mode: {
          widget: 'select',
          options: [
            {
              value: '0',
              label: 'Solid',
              slots: {
                speed: slot(false),
                intensity: slot(false),
                palette: slot(true),
                color1: slot(true),
                color2: slot(false),
                color3: slot(false),
              },
            },
            {
              value: '1',
              label: 'Blink',
              slots: {
                speed: slot(true),
                intensity: slot(true, 'Duty cycle'),
                palette: slot(false),
                color1: slot(false),
                color2: slot(false),
                color3: slot(false),
              },
            },
          ],
        },
        speed: { widget: 'slider' },
        intensity: { widget: 'slider' },
        palette: { widget: 'select' },
        color1: { widget: 'color', caption: 'Fx' },
        color2: { widget: 'color', caption: 'Bg' },
        color3: { widget: 'color', caption: 'Cs' },
        brightness: { widget: 'slider' },
      },
      flags: [],
      palette_color_rules: { force_slot_min_palette: [2, 3, 4], max_palette_id: 5 },
    };
    const names = (p: Record<string, number>) =>
      visibleFields(schema, p).map((f) => `${f.name}:${f.caption}`);
    expect(names({ mode: 0, palette: 0 })).toEqual([
      'mode:Effect',
      'palette:Palette',
      'color1:Fx',
      'brightness:Brightness',
    ]);
    expect(names({ mode: 1, palette: 0 })).toEqual([
      'mode:Effect',
      'speed:Speed',
      'intensity:Duty cycle',
      'brightness:Brightness',
    ]);
    // Palette 3 forces colour slots 1-2 (captions 1/2 where the effect does not use them).
    expect(names({ mode: 0, palette: 3 })).toEqual([
      'mode:Effect',
      'palette:Palette',
      'color1:Fx',
      'color2:2',
      'brightness:Brightness',
    ]);
    expect(names({ mode: 0, palette: 6 })).toEqual([
      'mode:Effect',
      'palette:Palette',
      'color1:Fx',
      'brightness:Brightness',
    ]);
  });
});
