/** MQTT's pure parts: topic names, set payloads, the repeat rule, Home Assistant discovery. */
import { describe, expect, it } from 'vitest';
import {
  discoveryEntries,
  groupState,
  parseIncoming,
  parseSet,
  Repeats,
  toCommand,
  topicLevels,
  Topics,
  usableLevel,
  deviceState,
  type DeviceRow,
} from '../../../src/services/mqtt/index.ts';

const t = new Topics('lightnet');
const names = {
  preset: (n: string) => (n.toLowerCase() === 'start gate' ? 4 : null),
  effect: (n: string) => (n.toLowerCase() === 'solid' ? 0 : n.toLowerCase() === 'blink' ? 1 : null),
};
const cur = { brightness: 120, presetId: 0, effectId: 1, color: undefined };
const row = (o: Partial<DeviceRow> = {}): DeviceRow => ({
  addr: 'AABBCC',
  name: 'Gate 1',
  groupId: 1,
  online: true,
  brightness: 100,
  powerOn: true,
  presetId: 0,
  effectId: 0,
  voltage_mV: 7412,
  host_rssi: -71,
  host_snr: 8.5,
  node_rssi: -69,
  node_snr: 9,
  last_seen_ts: 1000,
  ...o,
});
const catalog = { effectName: (id: number) => (id === 0 ? 'Solid' : null), presetName: () => null };

describe('mqtt topics', () => {
  it('a-name-is-the-topic-unless-unusable-reserved-or-shared', () => {
    const levels = topicLevels([
      { key: 'AA0001', name: 'Gate 1' },
      { key: 'AA0002', name: 'Dup' },
      { key: 'AA0003', name: 'dup' },
      { key: 'AA0004', name: 'a/b' },
      { key: 'AA0005', name: 'bridge' },
      { key: 'AA0006', name: 'x+' },
      { key: 'AA0007', name: ' padded' },
      { key: 'AA0008', name: 'AA0001' },
    ]);
    expect([...levels.values()]).toEqual([
      'Gate 1',
      'AA0002',
      'AA0003',
      'AA0004',
      'AA0005',
      'AA0006',
      'AA0007',
      'AA0008',
    ]);
    expect(usableLevel('$SYS')).toBe(false);
    expect(usableLevel('a\u0000b')).toBe(false);
  });

  it('incoming-topics-map-to-sets-and-requests-and-nothing-else', () => {
    expect(parseIncoming(t, 'lightnet/Gate 1/set')).toEqual({ kind: 'device_set', level: 'Gate 1' });
    expect(parseIncoming(t, 'lightnet/group/Gates/set')).toEqual({ kind: 'group_set', level: 'Gates' });
    expect(parseIncoming(t, 'lightnet/bridge/request/flag/red')).toEqual({
      kind: 'request',
      name: 'flag/red',
    });
    for (const bad of [
      'lightnet/bridge/set',
      'lightnet/a/b/set',
      'other/x/set',
      'lightnet/x',
      'lightnet/bridge/request/',
    ])
      expect(parseIncoming(t, bad), bad).toBeNull();
  });
});

describe('mqtt set payloads', () => {
  it('valid-payloads-become-one-command', () => {
    const cmd = (raw: string) => {
      const p = parseSet(raw);
      if (!p.ok) throw new Error(p.error);
      return toCommand(p.payload, cur, names);
    };
    expect(cmd('OFF')).toEqual({ ok: true, command: { kind: 'off' } });
    expect(cmd('{"brightness":0}')).toEqual({ ok: true, command: { kind: 'off' } });
    expect(cmd('{"state":"ON","effect":"Start Gate"}')).toEqual({
      ok: true,
      command: { kind: 'preset', presetId: 4, brightness: 120 },
    });
    expect(cmd('{"color":{"r":1,"g":2,"b":3},"brightness":9}')).toEqual({
      ok: true,
      command: { kind: 'effect', mode: 1, color: { r: 1, g: 2, b: 3 }, brightness: 9 },
    });
    expect(cmd('{"state":"ON","effect":"solid","transition":2}')).toEqual({
      ok: true,
      command: { kind: 'effect', mode: 0, color: { r: 255, g: 255, b: 255 }, brightness: 120 },
    });
    expect(cmd('{"effect":"Nope"}')).toEqual({
      ok: false,
      error: "effect: no LED preset or WLED effect is called 'Nope'",
    });
  });

  it('malformed-payloads-name-the-field', () => {
    const err = (raw: string) => {
      const p = parseSet(raw);
      return p.ok ? null : p.error;
    };
    expect(err('nope')).toMatch(/not JSON/);
    expect(err('[1]')).toMatch(/JSON object/);
    expect(err('{}')).toMatch(/nothing to set/);
    expect(err('{"state":"TOGGLE"}')).toMatch(/state must be "ON" or "OFF"/);
    expect(err('{"brightness":256}')).toMatch(/brightness must be 0\.\.255/);
    expect(err('{"brightness":1.5}')).toMatch(/brightness must be an integer/);
    expect(err('{"color":{"r":1,"g":2}}')).toMatch(/color\.b/);
    expect(err('{"state":"ON","hue":3}')).toMatch(/unknown field hue/);
  });
});

describe('mqtt repeats', () => {
  it('an-identical-set-within-the-window-acts-once-and-a-transaction-is-answered-again', () => {
    let now = 0;
    const r = new Repeats(() => now, 2000, 60_000);
    expect(r.repeatOfSet('a/set', '{"state":"ON"}')).toBe(false);
    expect(r.repeatOfSet('a/set', '{"state":"ON"}')).toBe(true);
    expect(r.repeatOfSet('b/set', '{"state":"ON"}')).toBe(false);
    expect(r.repeatOfSet('a/set', '{"state":"OFF"}')).toBe(false);
    expect(r.repeatOfSet('a/set', '{"state":"ON"}')).toBe(false);
    now = 2500;
    expect(r.repeatOfSet('a/set', '{"state":"ON"}')).toBe(false);
    r.remember('req/blackout', '7', '{"status":"ok"}');
    expect(r.answer('req/blackout', '7')).toBe('{"status":"ok"}');
    expect(r.answer('req/blackout', '8')).toBeNull();
    now = 70_000;
    expect(r.answer('req/blackout', '7')).toBeNull();
  });
});

describe('mqtt state and discovery', () => {
  it('device-and-group-state-follow-the-rows', () => {
    const s = deviceState(row(), 'Gates', { r: 1, g: 2, b: 3 }, catalog);
    expect(s).toMatchObject({
      state: 'ON',
      brightness: 100,
      color_mode: 'rgb',
      color: { r: 1, g: 2, b: 3 },
      effect: 'Solid',
      battery_v: 7.41,
      rssi: -71,
      snr: 8.5,
      online: true,
      group: 'Gates',
    });
    const unheard = deviceState(row({ last_seen_ts: 0, voltage_mV: 0 }), null, undefined, catalog);
    expect(unheard).toMatchObject({ battery_v: null, rssi: null });
    // No colour known: none reported (and no colour mode, so Home Assistant keeps its own).
    expect('color' in unheard || 'color_mode' in unheard).toBe(false);
    const g = groupState(
      { id: 1, name: 'Gates' },
      [row(), row({ addr: 'B', powerOn: false, brightness: 0, online: false })],
      undefined,
      catalog,
    );
    expect(g).toMatchObject({ state: 'ON', brightness: 100, members: 2, online: 1, effect: 'Solid' });
  });

  it('discovery-has-stable-ids-a-device-block-and-availability', () => {
    const entries = discoveryEntries({
      prefix: 'homeassistant',
      topics: t,
      nodeId: 'lightnet',
      version: '1',
      effects: ['Solid'],
      devices: [{ addr: 'AABBCC', name: 'Gate 1', level: 'Gate 1', devType: 'WLED' }],
      groups: [{ name: 'Start Gates', level: 'Start Gates' }],
    });
    const by = new Map(entries.map((e) => [e.topic, JSON.parse(e.payload) as Record<string, unknown>]));
    expect(by.get('homeassistant/light/lightnet_aabbcc/light/config')).toMatchObject({
      unique_id: 'lightnet_aabbcc_light',
      command_topic: 'lightnet/Gate 1/set',
      device: { identifiers: ['lightnet_aabbcc'], via_device: 'lightnet_bridge' },
      availability_mode: 'all',
      effect_list: ['Solid'],
    });
    expect(by.get('homeassistant/sensor/lightnet_aabbcc/battery_v/config')).toMatchObject({
      device_class: 'voltage',
      value_template: '{{ value_json.battery_v }}',
    });
    expect(by.get('homeassistant/light/lightnet_group_start_gates/light/config')).toMatchObject({
      unique_id: 'lightnet_group_start_gates_light',
      command_topic: 'lightnet/group/Start Gates/set',
    });
    expect(by.get('homeassistant/button/lightnet_bridge/blackout/config')).toMatchObject({
      command_topic: 'lightnet/bridge/request/blackout',
    });
    expect(by.has('homeassistant/button/lightnet_bridge/flag_red/config')).toBe(true);
    const ids = [...by.values()].map((c) => c.unique_id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
