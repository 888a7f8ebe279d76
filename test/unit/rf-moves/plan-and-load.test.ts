import { describe, expect, it } from 'vitest';
import { findChannel } from '../../../src/domain/rf-channels.ts';
import { planChannels } from '../../../src/services/rf-moves/scan.ts';
import { migrateToCurrent, serializeState } from '../../../src/state/migrations.ts';

const ch = (id: number) => findChannel('EU868', id)!.rf;

describe('channel scan plan', () => {
  it('likeliest first: rf_seen, then the migration’s old channel, then the table; home only on request', () => {
    const plan = planChannels({ networkId: 1 }, ch(1), [ch(4)], ch(3));
    expect(plan.map((p) => [p.rf.freqHz, p.why])).toEqual([
      [ch(4).freqHz, 'rf_seen'],
      [ch(3).freqHz, 'migration'],
      [ch(2).freqHz, 'table'],
      [ch(5).freqHz, 'table'],
    ]);
    const withHome = planChannels({ networkId: 1, includeHome: true, channelIds: [1, 2] }, ch(1), [], null);
    expect(withHome.map((p) => p.why)).toEqual(['home', 'table']);
  });

  it('a custom rf_seen is scanned too; the region follows the home channel', () => {
    const custom = { ...ch(2), freqHz: 868_450_000 };
    const us = findChannel('US915', 2)!.rf;
    const plan = planChannels({ networkId: 1 }, us, [custom], null);
    expect(plan[0]!.rf).toEqual(custom);
    expect(plan.slice(1).every((p) => p.rf.freqHz > 900_000_000)).toBe(true);
    expect(plan).toHaveLength(5);
  });
});

describe('device rf_seen in the state file (schema 4)', () => {
  const device = (rf_seen: unknown) => ({
    addr: 'AABBCC',
    full_mac: '246F28AABBCC',
    name: 'Gate',
    dev_type: 12,
    groupId: 1,
    flags: 0,
    configByte: 0,
    presetId: 1,
    effectId: 0,
    brightness: 70,
    specials: {},
    voltage_mV: 0,
    node_rssi: 0,
    node_snr: 0,
    host_rssi: 0,
    host_snr: 0,
    version: 0,
    last_seen_ts: 0,
    last_ack: null,
    online: false,
    network_id: 1,
    ...(rf_seen === undefined ? {} : { rf_seen }),
  });
  const file = (rf_seen: unknown) => ({
    schema_version: 4,
    devices: [device(rf_seen)],
    groups: [{ id: 1, name: 'Gates', dev_type: 0 }],
    native_presets: [],
    scenes: [],
    settings: { led_presets_file: null },
    console: {},
    networks: [{ id: 1, name: 'Network 1', gateway_mac: null, rf: null, migration: null }],
  });

  it('kept when valid, absent or broken → none, and it round-trips', () => {
    const seen = { rf: ch(3), ts: 1_790_000_000, how: 'scan' };
    const ok = migrateToCurrent(file(seen));
    expect(ok.state.devices[0]!.rf_seen).toEqual(seen);
    expect(migrateToCurrent(JSON.parse(serializeState(ok.state))).state).toEqual(ok.state);
    expect(migrateToCurrent(file(undefined)).state.devices[0]!.rf_seen ?? null).toBeNull();
    expect(
      migrateToCurrent(file({ rf: { ...ch(3), freqHz: 5 }, ts: 1, how: 'scan' })).state.devices[0]!.rf_seen,
    ).toBeNull();
    expect(migrateToCurrent(file('nonsense')).state.devices[0]!.rf_seen).toBeNull();
  });
});
