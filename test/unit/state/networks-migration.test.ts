import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { newDevice } from '../../../src/domain/model.ts';
import { CURRENT_SCHEMA_VERSION, migrateToCurrent, serializeState } from '../../../src/state/migrations.ts';

const RF = {
  freqHz: 868_100_000,
  bwKhzX10: 1250,
  sf: 7,
  crDen: 5,
  syncWord: 0x12,
  txPowerDbm: 14,
  preamble: 8,
};

/** A version 3 file as today's build writes it: devices without network_id, no networks section. */
function v3File(devices: number): Record<string, unknown> {
  const devs = Array.from({ length: devices }, (_, i) => {
    const { network_id: _n, ...d } = newDevice((0xa00000 + i).toString(16).toUpperCase(), null, 10);
    return { ...d, groupId: i % 2 };
  });
  return {
    schema_version: 3,
    devices: devs,
    groups: [{ id: 1, name: 'Start', dev_type: 0 }],
    native_presets: [],
    scenes: [],
    next_ids: { native_presets: 0, scenes: 0 },
    settings: { led_presets_file: null },
    console: {},
  };
}

describe('state schema 4: networks', () => {
  it('a-version-3-install-becomes-network-1-unbound-with-every-device-on-it', () => {
    const { state, fromVersion, notes } = migrateToCurrent(v3File(3));
    expect(fromVersion).toBe(3);
    expect(notes).toEqual([]);
    expect(state.networks).toEqual([
      { id: 1, name: 'Network 1', gateway_mac: null, rf: null, migration: null },
    ]);
    expect(state.devices.map((d) => d.network_id)).toEqual([1, 1, 1]);
    // Nothing else of a device changes.
    expect(state.devices.map((d) => d.groupId)).toEqual([0, 1, 0]);
    expect(state.next_ids?.networks).toBe(2);
    const file = JSON.parse(serializeState(state)) as Record<string, unknown>;
    expect(file.schema_version).toBe(4);
    expect(CURRENT_SCHEMA_VERSION).toBe(4);
  });

  it('the-migration-is-idempotent-and-loading-a-current-file-is-a-fixed-point', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20 }), (n) => {
        const once = migrateToCurrent(v3File(n)).state;
        const twice = migrateToCurrent(JSON.parse(serializeState(once))).state;
        expect(twice).toEqual(once);
        const thrice = migrateToCurrent(JSON.parse(serializeState(twice)));
        expect(thrice.state).toEqual(once);
        expect(thrice.notes).toEqual([]);
      }),
      { numRuns: 25 },
    );
  });

  it('versions-1-and-2-chain-into-network-1', () => {
    const v1 = migrateToCurrent({ devices: [{ addr: '3C84279EBFE4', name: 'X' }], groups: [{}] }).state;
    expect(v1.networks.map((n) => n.id)).toEqual([1]);
    expect(v1.devices[0]?.network_id).toBe(1);
    const { schema_version: _v, console: _c, ...rest } = v3File(1);
    const v2 = migrateToCurrent({ ...rest, schema_version: 2 }).state;
    expect(v2.networks.map((n) => n.id)).toEqual([1]);
    expect(v2.devices[0]?.network_id).toBe(1);
  });

  it('stored-networks-and-bindings-survive-and-bad-records-are-repaired-with-notes', () => {
    const base = migrateToCurrent(v3File(3)).state;
    const file = JSON.parse(serializeState(base)) as { devices: { network_id: number }[] } & Record<
      string,
      unknown
    >;
    file.networks = [
      { id: 1, name: 'Track A', gateway_mac: 'aa:bb:cc:dd:ee:01', rf: RF },
      { id: 2, name: 'Track B', gateway_mac: 'AABBCCDDEE02', rf: null },
      { id: 2, name: 'dup id', gateway_mac: null, rf: null },
      { id: 3, name: 'track a', gateway_mac: 'AABBCCDDEE02', rf: { ...RF, sf: 99 } },
    ];
    file.devices[1]!.network_id = 2;
    file.devices[2]!.network_id = 9;
    const { state, notes } = migrateToCurrent(file);
    expect(state.networks).toEqual([
      { id: 1, name: 'Track A', gateway_mac: 'AABBCCDDEE01', rf: RF, migration: null },
      { id: 2, name: 'Track B', gateway_mac: 'AABBCCDDEE02', rf: null, migration: null },
      { id: 3, name: 'Network 3', gateway_mac: null, rf: null, migration: null },
    ]);
    expect(state.devices.map((d) => d.network_id)).toEqual([1, 2, 1]);
    expect(notes).toEqual([
      expect.stringMatching(/^networks\.2: .*dropped/),
      expect.stringMatching(/^networks\.3\.name: /),
      expect.stringMatching(/^networks\.3\.gateway_mac: .*another network/),
      expect.stringMatching(/^networks\.3\.rf: invalid/),
      expect.stringMatching(/^devices\.2\.network_id: no network 9, moved to 1/),
    ]);
    expect(state.next_ids?.networks).toBe(4);
  });

  it('a-version-4-journal-record-from-an-older-build-gets-network-1', () => {
    // A device record without network_id (journal written by a v3 build, replayed on v4).
    const base = migrateToCurrent(v3File(1)).state;
    const file = JSON.parse(serializeState(base)) as { devices: Record<string, unknown>[] };
    delete file.devices[0]!.network_id;
    expect(migrateToCurrent(file).state.devices[0]?.network_id).toBe(1);
  });
});
