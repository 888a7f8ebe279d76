import { describe, expect, it } from 'vitest';
import {
  batteryState,
  cellCount,
  DEFAULT_BATTERY,
  warnPerCellOf,
} from '../../../ui/src/common/battery-cells.ts';
import { computeAlerts, fleetFirmware, pruneAcks } from '../../../ui/src/health/alerts.ts';
import { csvCell, toCsv } from '../../../ui/src/health/csv.ts';
import type { Device } from '../../../ui/src/types.ts';

const dev = (o: Partial<Device>): Device => ({
  addr: 'AAAAAA',
  full_mac: null,
  name: 'n',
  dev_type: 12,
  dev_type_name: 'LED',
  dev_type_caps: [],
  caps: 12,
  groupId: 0,
  flags: 1,
  configByte: 0,
  presetId: 1,
  effectId: 0,
  brightness: 70,
  specials: {},
  voltage_mV: 0,
  node_rssi: -50,
  node_snr: 9,
  host_rssi: -50,
  host_snr: 9,
  version: 2,
  last_seen_ts: 100,
  online: true,
  ...o,
});

/** The per-cell warning level of the default thresholds (2S 6.8 V → 3.4 V/cell). */
const W = warnPerCellOf(DEFAULT_BATTERY);

describe('battery per cell', () => {
  it('the default thresholds warn below 3.4 V per cell', () => {
    expect(W).toBe(3.4);
  });

  it('infers the pack size from the voltage', () => {
    expect(cellCount(0)).toBe(0);
    expect(cellCount(3300)).toBe(1);
    expect(cellCount(4170)).toBe(1);
    expect(cellCount(7400)).toBe(2);
    expect(cellCount(11_100)).toBe(3);
    expect(cellCount(16_000)).toBe(4);
    expect(cellCount(18_000)).toBe(6); // an empty 6S is never read as a 5S
    expect(cellCount(25_200)).toBe(6);
  });

  it('single cells at 3.5-4.2 V are fine, a 6S at 3.3 V/cell is low, none is none', () => {
    for (const mV of [3500, 3800, 4170]) expect(batteryState(mV, W).level).toBe('good');
    expect(batteryState(3350, W).level).toBe('warn');
    expect(batteryState(3200, W).level).toBe('bad');
    expect(batteryState(7900, W).level).toBe('good');
    expect(batteryState(19_900, W)).toMatchObject({ cells: 6, level: 'warn' });
    expect(batteryState(0, W)).toEqual({ cells: 0, perCellV: 0, level: 'none' });
  });
});

describe('alerts', () => {
  it('flags offline, low battery, weak link, odd firmware and an open AP; never-heard devices are not alerts', () => {
    const devs = [
      dev({ addr: 'A00001', online: false }),
      dev({ addr: 'A00002', online: false, last_seen_ts: 0 }),
      dev({ addr: 'A00003', voltage_mV: 3200 }),
      dev({ addr: 'A00004', host_rssi: -115 }),
      dev({ addr: 'A00005', version: 1 }),
      dev({ addr: 'A00006', configByte: 0x04 }),
      dev({ addr: 'A00007', voltage_mV: 3900 }),
    ];
    const keys = computeAlerts(devs, W).map((a) => a.key);
    expect(keys.sort()).toEqual(
      ['offline:A00001', 'battery:A00003', 'weak_link:A00004', 'firmware:A00005', 'ap_open:A00006'].sort(),
    );
    expect(fleetFirmware(devs).get(12)).toBe(2);
  });

  it('an offline device with an old low reading alerts as offline only', () => {
    const keys = computeAlerts([dev({ online: false, voltage_mV: 3000 })], W).map((a) => a.kind);
    expect(keys).toEqual(['offline']);
  });

  it('acknowledgements are forgotten once their condition clears', () => {
    const alerts = computeAlerts([dev({ addr: 'A00001', online: false })], W);
    expect(pruneAcks(['offline:A00001', 'battery:A00009'], alerts)).toEqual(['offline:A00001']);
  });
});

describe('csv', () => {
  it('quotes, escapes and defuses formulas', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('=cmd()')).toBe("'=cmd()");
    expect(csvCell(-80)).toBe('-80');
    expect(csvCell(null)).toBe('');
    expect(toCsv(['a', 'b'], [[1, 'x']])).toBe('a,b\r\n1,x\r\n');
  });
});
