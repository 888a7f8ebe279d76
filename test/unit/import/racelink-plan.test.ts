import { describe, expect, it } from 'vitest';
import { emptyState, type StateModel } from '../../../src/domain/model.ts';
import { planImport, type ImportPlan } from '../../../src/domain/racelink/plan.ts';
import { formatReport } from '../../../src/domain/racelink/report.ts';
import { CLUB, folderFiles, LATER, LEGACY } from './racelink-files.ts';

const NOW = '2026-11-27T05:00:00Z';
const plan = (dir: string, current: StateModel = emptyState(), extra: { backup?: string } = {}): ImportPlan =>
  planImport(folderFiles(dir), current, [], { now: NOW, ...extra });

describe('RaceLink import: the v0.1.5 club fixture (written by the original host)', () => {
  const p = plan(CLUB);
  const s = p.state;

  it('brings every device, group, preset, scene and the LED file', () => {
    expect(s.devices).toHaveLength(24);
    expect(s.groups.map((g) => [g.id, g.name])).toEqual([
      [1, 'Start Gates'],
      [2, 'Back Straight'],
      [3, 'Finish Arch'],
      [4, 'Start Blocks'],
    ]);
    const perGroup = [0, 1, 2, 3, 4].map((g) => s.devices.filter((d) => d.groupId === g).length);
    expect(perGroup).toEqual([4, 4, 9, 5, 2]);
    expect(s.native_presets.map((x) => [x.id, x.label])).toEqual([
      [0, 'Start Red'],
      [1, 'Green Go'],
      [2, 'Rainbow Sweep'],
      [3, 'Amber Breathe'],
    ]);
    expect(s.scenes.map((x) => x.key)).toEqual([
      'race_start',
      'lap_sweep',
      'yellow_flag',
      'finish_celebration',
      'blackout',
    ]);
    expect(p.ledFiles.map((f) => f.name)).toEqual(['presets_20261127_032551.json']);
    expect(s.settings.led_presets_file).toBe('presets_20261127_032551.json');
    expect(p.report.counts.device).toMatchObject({ create: 24, skip: 0 });
    expect(p.report.source).toMatchObject({ state_schema: 1, state_encoding: 'string', presets_schema: 2 });
  });

  it('keeps names, addresses, types and start-block options; runtime fields start fresh', () => {
    const spare = s.devices.find((d) => d.name === 'Spare Gate');
    expect(spare).toMatchObject({ addr: '9471D0', full_mac: 'DC54759471D0', dev_type: 10, groupId: 0 });
    expect(s.devices.find((d) => d.full_mac === 'A0B76551D9EB')?.name).toBe('WLED A0B76551D9EB');
    const block = s.devices.find((d) => d.name === 'Start Block A');
    expect(block).toMatchObject({ dev_type: 50, groupId: 4, brightness: 255 });
    expect(block?.specials).toMatchObject({ startblock_slots: 1, startblock_first_slot: 1, led_fps: 75 });
    for (const d of s.devices) {
      expect(d).toMatchObject({
        online: false,
        last_seen_ts: 0,
        last_ack: null,
        host_rssi: 0,
        voltage_mV: 0,
      });
      // The node may still hold an older RaceLink group on air: ours is confirmed or pushed.
      expect(d.group_pending).toBe(true);
    }
  });

  it('keeps preset ids, parameters, colours and flags', () => {
    const [red, green, rainbow, amber] = s.native_presets;
    expect(red).toMatchObject({
      key: 'start_red',
      params: { mode: 0, color1: [255, 0, 0], brightness: 255 },
    });
    expect(red?.flags).toBe(0x02); // arm on sync
    expect(green?.flags).toBe(0x02 | 0x08); // arm on sync + force TT=0
    expect(rainbow?.params).toMatchObject({ mode: 9, palette: 11 });
    expect(rainbow?.flags).toBe(0x20); // offset mode
    expect(amber?.params).toMatchObject({ mode: 2, color1: [255, 150, 0], color2: [40, 0, 0], palette: 3 });
    expect(amber?.flags).toBe(0x10); // force reapply
    expect(s.next_ids?.native_presets).toBe(4);
  });

  it('maps the action kinds and keeps the references (groups as renumbered by the delete)', () => {
    const scene = (k: string) => s.scenes.find((x) => x.key === k)?.actions ?? [];
    expect(scene('race_start')).toEqual([
      {
        kind: 'native_preset',
        target: { kind: 'groups', value: [1, 4] },
        params: { presetId: '0', brightness: 255 },
        flags_override: { arm_on_sync: true },
      },
      {
        kind: 'startblock',
        target: { kind: 'groups', value: [4] },
        params: { fn_key: 'startblock_control' },
      },
      { kind: 'sync' },
      { kind: 'delay', duration_ms: 3000 },
      {
        kind: 'native_preset',
        target: { kind: 'groups', value: [1] },
        params: { presetId: '1', brightness: 255 },
        flags_override: {},
      },
    ]);
    const sweep = scene('lap_sweep')[0];
    expect(sweep).toMatchObject({
      kind: 'offset_group',
      target: { kind: 'groups', value: [0, 1, 2, 3] },
      offset: { mode: 'linear', base_ms: 0, step_ms: 150 },
    });
    // wled_control (v0.1.5's inline-effect ancestor) carried a native preset id.
    expect(scene('yellow_flag')[1]).toMatchObject({
      kind: 'native_preset',
      params: { presetId: '3', brightness: 160 },
    });
    const finish = scene('finish_celebration');
    expect(finish[2]).toMatchObject({ kind: 'led_preset', params: { presetId: 3 } }); // "03"
    expect(finish[3]).toMatchObject({ kind: 'native_preset', target: { kind: 'device', value: 'F62752' } });
    expect(s.scenes.find((x) => x.key === 'blackout')?.stop_on_error).toBe(false);
    expect(p.report.mapped).toEqual(
      expect.arrayContaining([
        { what: 'scene action kind', from: 'rl_preset', to: 'native_preset', count: 5 },
        { what: 'scene action kind', from: 'wled_preset', to: 'led_preset', count: 3 },
        { what: 'scene action kind', from: 'wled_control', to: 'native_preset', count: 1 },
      ]),
    );
  });

  it('lists what it does not bring over, with the reason', () => {
    const skipped = p.report.items.filter((i) => i.action === 'skip');
    expect(skipped.map((i) => i.name).sort()).toEqual(['README.md', 'debug', 'host', 'port']);
    expect(skipped.every((i) => i.detail)).toBe(true);
    const text = formatReport(p.report, 'dry-run');
    expect(text).toContain('Devices: 24 create');
    expect(text).toContain('wled_control → native_preset');
    expect(text).toContain('Dry run: nothing was written');
  });

  it('a second import changes nothing (devices by address, groups by name, presets and scenes by key)', () => {
    const again = planImport(folderFiles(CLUB), s, p.ledFiles, { now: '2030-01-01T00:00:00Z' });
    expect(again.report.changes).toBe(false);
    expect(again.ledFiles).toEqual([]);
    expect(again.state).toEqual(s);
    expect(again.report.counts.device).toMatchObject({ create: 0, update: 0, unchanged: 24 });
  });

  it('a device Lightnet already heard keeps its identity; only what the operator authored is imported', () => {
    const current = emptyState();
    const heard = structuredClone(s.devices.find((d) => d.name === 'Spare Gate')!);
    Object.assign(heard, {
      name: 'LED DC54759471D0',
      version: 9,
      brightness: 12,
      online: true,
      last_seen_ts: 1234,
    });
    heard.group_pending = false;
    current.devices.push(heard);
    const m = plan(CLUB, current);
    const d = m.state.devices.find((x) => x.addr === '9471D0');
    expect(d).toMatchObject({
      name: 'Spare Gate',
      version: 9,
      brightness: 12,
      online: true,
      last_seen_ts: 1234,
    });
    expect(m.report.items.find((i) => i.name === 'Spare Gate')).toMatchObject({
      action: 'update',
      detail: 'name',
    });
    const again = planImport(folderFiles(CLUB), m.state, m.ledFiles, { now: NOW });
    expect(again.report.changes).toBe(false);
  });

  it('merges into an existing setup: same names match, taken preset ids move and references follow', () => {
    const current = emptyState();
    current.groups.push({ id: 1, name: 'Pit', dev_type: 0 }, { id: 2, name: 'Finish Arch', dev_type: 0 });
    current.native_presets.push({
      id: 0,
      key: 'mine',
      label: 'Mine',
      created: NOW,
      updated: NOW,
      params: { ...s.native_presets[0]!.params },
      flags: 0,
    });
    current.next_ids = { native_presets: 1, scenes: 0 };
    const m = plan(CLUB, current);
    expect(m.state.groups.map((g) => g.name)).toEqual([
      'Pit',
      'Finish Arch',
      'Start Gates',
      'Back Straight',
      'Start Blocks',
    ]);
    // RaceLink group 3 "Finish Arch" is our group 2; 1 → 3, 2 → 4, 4 → 5.
    expect(m.state.devices.find((d) => d.name === 'Finish Left')?.groupId).toBe(2);
    expect(m.state.devices.find((d) => d.name === 'Start Block A')?.groupId).toBe(5);
    const red = m.state.native_presets.find((x) => x.key === 'start_red');
    expect(red?.id).toBe(1);
    const race = m.state.scenes.find((x) => x.key === 'race_start');
    expect(race?.actions[0]).toMatchObject({
      target: { value: [3, 5] },
      params: { presetId: String(red?.id) },
    });
    expect(m.report.mapped).toEqual(
      expect.arrayContaining([{ what: 'group id', from: '3 "Finish Arch"', to: '2', count: 1 }]),
    );
    // Formula offsets depend on group ids: the user is told to check them.
    expect(m.report.warnings.join('\n')).toMatch(/linear offsets .* check the timing/);
  });
});

describe('RaceLink import: later formats (rl_ names, schema 3 nested, networks, backups)', () => {
  const p = plan(LATER);
  const s = p.state;

  it('reads the rl_ names and the nested state; networks are reported, their devices join network 1', () => {
    expect(p.report.source).toMatchObject({
      config_file: 'rl_standalone_config.json',
      state_schema: 3,
      state_encoding: 'object',
    });
    const nets = p.report.items.filter((i) => i.kind === 'network');
    expect(nets.map((n) => n.name)).toEqual(['Default', 'Pit-Lane']);
    expect(nets[1]?.detail).toContain('gateway 112233445566');
    expect(nets[1]?.detail).toContain('channel 3');
    expect(p.report.warnings.join('\n')).toContain(
      "2 RaceLink networks: their devices all join Lightnet's network 1",
    );
    expect(p.report.warnings.join('\n')).toContain('Settings → Networks…');
    expect(JSON.stringify(p.report)).not.toContain('until multi-gateway support lands');
    expect(s.devices.find((d) => d.name === 'Pit Gate 🏁 1')?.groupId).toBe(1);
  });

  it('names survive exactly; long names are cut at a character boundary and reported', () => {
    expect(s.groups.map((g) => g.name).slice(0, 3)).toEqual([
      'Pit Lane 🏁',
      'Tribüne Nord',
      'スタートゲート',
    ]);
    expect(s.devices.map((d) => d.name)).toEqual(
      expect.arrayContaining(['門 ゲート', 'Tribüne Links', 'Startblock Ü']),
    );
    const long = s.devices.find((d) => d.name.startsWith('Gate '));
    expect(Array.from(long?.name ?? '')).toHaveLength(64);
    expect(long?.name).toBe('Gate ' + '😀'.repeat(59));
    expect(long?.name).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(p.report.mapped.some((m) => m.what === 'device name cut to 64 characters')).toBe(true);
    const g = s.groups[3];
    expect(Array.from(g?.name ?? '').length).toBeLessThanOrEqual(64);
    expect(g?.name.startsWith('Zielbereich Süd — die lange Gerade hinter der Boxengasse 🏁🏁')).toBe(true);
  });

  it('renumbers groups past a dropped reserved group, in devices and in scenes', () => {
    expect(s.groups.map((g) => g.id)).toEqual([1, 2, 3, 4]);
    expect(s.devices.find((d) => d.name.startsWith('Gate '))?.groupId).toBe(4);
    expect(s.devices.find((d) => d.name === 'Ersatz')?.groupId).toBe(0);
    const start = s.scenes.find((x) => x.key === 'start');
    expect(start?.actions[0]).toMatchObject({
      kind: 'native_preset',
      target: { value: [1, 4] },
      params: { presetId: '7' },
    });
    expect(start?.actions[3]).toMatchObject({
      kind: 'offset_group',
      target: { value: [2, 3, 4] },
      offset: { mode: 'explicit', values: [{ id: 2 }, { id: 3 }, { id: 4, offset_ms: 200 }] },
      actions: [{ params: { presetId: 'RL:rot_blitz' }, target: { value: [2, 3, 4] } }],
    });
    expect(start?.actions[1]).toMatchObject({
      kind: 'native_effect',
      params: { mode: 0, color1: [0, 0, 255], brightness: 128 },
    });
    expect(start?.actions[2]).toMatchObject({
      kind: 'led_preset',
      target: { kind: 'device', value: '000003' },
    });
  });

  it('devices: specials under their later names, at the top level, collisions and runtime fields', () => {
    expect(s.devices.find((d) => d.name === 'Tribüne Links')?.specials).toMatchObject({
      led_fps: 60,
      led_transition_ms: 300,
      led_seg0_stop: 60,
    });
    expect(s.devices.find((d) => d.name === 'Startblock Ü')?.specials).toMatchObject({
      startblock_slots: 4,
      startblock_first_slot: 5,
    });
    const skip = p.report.items.find((i) => i.name === 'Collides');
    expect(skip).toMatchObject({ action: 'skip' });
    expect(skip?.detail).toContain('same radio address 000001');
    expect(s.devices.every((d) => !d.online && d.last_seen_ts === 0 && d.host_rssi === 0)).toBe(true);
  });

  it('presets: ids with gaps kept, a value out of our range dropped and reported', () => {
    expect(s.native_presets.map((x) => [x.id, x.label])).toEqual([
      [3, 'Rot Blitz ⚡'],
      [7, '虹'],
    ]);
    expect(s.native_presets[1]?.params).toMatchObject({ mode: 9, palette: 11, custom3: null });
    expect(p.report.warnings.join('\n')).toContain('custom3: must be <= 31');
    expect(s.next_ids?.native_presets).toBe(8);
  });

  it('scenes: an unknown action kind is dropped and reported; network scope noted; stop_on_error strings', () => {
    const lauf = s.scenes.find((x) => x.key === 'lauf');
    expect(lauf?.actions).toEqual([{ kind: 'delay', duration_ms: 1500 }]);
    expect(lauf?.stop_on_error).toBe(false);
    expect(p.report.warnings.join('\n')).toMatch(/"Lauf": action 1 dropped .*fireworks/);
    expect(p.report.warnings.join('\n')).toContain('network scope');
    expect(s.scenes.find((x) => x.key === 'start')?.id).toBe(2);
  });

  it('LED files from rl_wled_presets/, the current selection, settings and backups reported', () => {
    expect(p.ledFiles.map((f) => f.name)).toEqual(['presets_20260601_101500.json']);
    expect(s.settings.led_presets_file).toBe('presets_20260601_101500.json');
    const names = p.report.items.filter((i) => i.action === 'skip').map((i) => i.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'options.rl_comms_port',
        'options.battery_threshold_2s_mV',
        'state_20260601_120000',
      ]),
    );
  });

  it('imports a snapshot from rl_state_backups/ when asked', () => {
    const b = plan(LATER, emptyState(), { backup: 'state_20260601_120000' });
    expect(b.report.source.backup).toBe('rl_state_backups/state_20260601_120000.json');
    expect(b.state.devices.map((d) => d.name)).toEqual(['Backup Gate A', 'Backup Gate B']);
    expect(b.state.groups.map((g) => g.name)).toEqual(['Old Track']);
    expect(() => plan(LATER, emptyState(), { backup: 'nope' })).toThrow(
      'rl_state_backups/nope: no such backup',
    );
  });

  it('is idempotent too', () => {
    const again = planImport(folderFiles(LATER), s, p.ledFiles, { now: NOW });
    expect(again.report.changes).toBe(false);
    expect(again.state).toEqual(s);
  });
});

describe('RaceLink import: the oldest formats (legacy keys, presets schema 1, the docs spelling of scenes)', () => {
  const p = plan(LEGACY);
  const s = p.state;

  it('reads the pre-combined device and group lists', () => {
    expect(p.report.source).toMatchObject({
      state_schema: 0,
      state_encoding: 'legacy-keys',
      scenes_spelling: 'version',
    });
    expect(s.devices.map((d) => [d.name, d.addr, d.full_mac, d.dev_type, d.groupId])).toEqual([
      ['Alt Tor', '445566', '112233445566', 10, 1],
      ['Alt Block', '445577', '112233445577', 50, 2],
    ]);
    expect(s.groups.map((g) => g.name)).toEqual(['Gates', 'Blocks']);
  });

  it('gives schema-1 presets their positions as ids and reads hex colours', () => {
    expect(s.native_presets.map((x) => [x.id, x.key])).toEqual([
      [0, 'fast_rainbow'],
      [1, 'red'],
    ]);
    expect(s.native_presets[1]?.params.color1).toEqual([255, 0, 0]);
  });

  it('reads preset_key, preset_id, top-level brightness, ms and children', () => {
    expect(s.scenes[0]?.actions).toEqual([
      {
        kind: 'native_preset',
        target: { kind: 'groups', value: [2] },
        params: { presetId: 'RL:fast_rainbow' },
        flags_override: {},
      },
      {
        kind: 'led_preset',
        target: { kind: 'broadcast' },
        params: { presetId: 3, brightness: 100 },
        flags_override: {},
      },
      { kind: 'delay', duration_ms: 250 },
      {
        kind: 'offset_group',
        target: { kind: 'groups', value: [1, 2] },
        offset: { mode: 'linear', base_ms: 0, step_ms: 100 },
        actions: [
          {
            kind: 'native_preset',
            target: { kind: 'groups', value: [1, 2] },
            params: { presetId: 'RL:red' },
            flags_override: {},
          },
        ],
      },
    ]);
  });
});
