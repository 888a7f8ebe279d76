import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { migrateToCurrent, serializeState, CURRENT_SCHEMA_VERSION } from '../../../src/state/migrations.ts';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../fixtures/state/${name}`, import.meta.url), 'utf8'));

describe('state migrations', () => {
  it('original-v1-combined-state-migrates-to-current', () => {
    const { state, fromVersion } = migrateToCurrent(fixture('original-v1.json'));
    expect(fromVersion).toBe(1);
    // Position 0 (all-nodes) and the reserved "Unconfigured" entry are dropped; ids become contiguous.
    expect(state.groups).toEqual([
      { id: 1, name: 'Pit Wall', dev_type: 0 },
      { id: 2, name: 'Start', dev_type: 50 },
    ]);
    expect(state.devices).toHaveLength(2);
    const [a, b] = state.devices;
    expect(a).toMatchObject({
      addr: '9EBFE4',
      full_mac: '3C84279EBFE4',
      name: 'Pit Wall Left',
      dev_type: 10,
      groupId: 1,
      presetId: 3,
      brightness: 90,
      online: false,
    });
    expect(a?.specials.led_seg0_stop).toBe(150);
    // Old group 3 ("Start") is new group 2; top-level specials are picked up.
    expect(b).toMatchObject({ addr: 'AABBCC', dev_type: 50, groupId: 2 });
    expect(b?.specials.startblock_slots).toBe(4);
  });

  it('current-format-round-trips', () => {
    const { state } = migrateToCurrent(fixture('original-v1.json'));
    const again = migrateToCurrent(JSON.parse(serializeState(state)));
    expect(again.fromVersion).toBe(CURRENT_SCHEMA_VERSION);
    expect(again.state).toEqual(state);
  });

  it('version-2-gets-the-default-console-settings-and-a-bad-console-field-falls-back', () => {
    const v2 = {
      schema_version: 2,
      devices: [],
      groups: [{ id: 1, name: 'Start', dev_type: 0 }],
      native_presets: [],
      scenes: [],
      settings: { led_presets_file: 'p.json' },
    };
    const { state, fromVersion, notes } = migrateToCurrent(v2);
    expect(fromVersion).toBe(2);
    expect(state.groups).toEqual(v2.groups);
    expect(state.settings).toEqual(v2.settings);
    expect(state.console).toEqual({
      race_mode: false,
      pinned_scenes: [],
      battery: { warnPerCell: 3.4 },
      acknowledged_alerts: [],
    });
    expect(notes).toEqual([]);
    const v3 = JSON.parse(serializeState(state)) as Record<string, unknown>;
    expect(v3.schema_version).toBe(CURRENT_SCHEMA_VERSION);
    // A hand-edited console section: each bad field falls back alone, with a note.
    const edited = migrateToCurrent({
      ...v3,
      console: { race_mode: 'on', pinned_scenes: ['a', 'a', 'b'], battery: { warnPerCell: 9 } },
    });
    expect(edited.state.console).toEqual({
      race_mode: false,
      pinned_scenes: ['a', 'b'],
      battery: { warnPerCell: 3.4 },
      acknowledged_alerts: [],
    });
    expect(edited.notes).toEqual([
      expect.stringMatching(/^console\.race_mode: invalid/),
      expect.stringMatching(/^console\.battery: invalid/),
    ]);
  });

  it('rejects-unknown-versions-and-invalid-content', () => {
    expect(() => migrateToCurrent({ schema_version: 99 })).toThrow(/unsupported/);
    expect(() => migrateToCurrent([])).toThrow(/not a JSON object/);
    // Another program's JSON (no version, no devices/groups) is not silently an empty state.
    expect(() => migrateToCurrent({ host: '127.0.0.1', port: 5077, options: {} })).toThrow(
      /not a Lightnet state file/,
    );
    const base = {
      schema_version: 2,
      devices: [],
      native_presets: [],
      scenes: [],
      settings: { led_presets_file: null },
    };
    expect(() => migrateToCurrent({ ...base, groups: [{ id: 3, name: 'X', dev_type: 0 }] })).toThrow(
      /groups\.0\.id/,
    );
    expect(() =>
      migrateToCurrent({
        schema_version: 2,
        devices: [{ addr: 'zz' }],
        groups: [],
        native_presets: [],
        scenes: [],
        settings: {},
      }),
    ).toThrow(/devices\.0/);
  });
});
