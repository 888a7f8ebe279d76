import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withHost } from '../harness.ts';
import { call, refused } from './library-helpers.ts';
import { testTempDir } from '../../temp-dir.ts';

interface Scene {
  id: number;
  key: string;
  label: string;
  created: string;
  updated: string;
  actions: Record<string, unknown>[];
  stop_on_error: boolean;
}
type SceneRes = { ok: boolean; scene: Scene };

const START_SEQUENCE = [
  {
    kind: 'led_preset',
    target: { kind: 'groups', value: [2, 1] },
    params: { presetId: '3', brightness: 90 },
  },
  {
    kind: 'offset_group',
    target: { kind: 'groups', value: [1, 2, 3] },
    offset: { mode: 'linear', base_ms: 0, step_ms: 100 },
    actions: [
      {
        kind: 'native_effect',
        target: { kind: 'broadcast' },
        params: { mode: 2, brightness: 200 },
        flags_override: { arm_on_sync: true },
      },
    ],
  },
  { kind: 'delay', duration_ms: 500 },
  { kind: 'sync' },
];

describe('scenes library', () => {
  it('operator-authors-a-start-sequence-and-manages-it', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      const sse = await h.sse();
      const c = await call<SceneRes>(h, 'POST', '/api/scenes', {
        label: 'Race Start!',
        actions: START_SEQUENCE,
      });
      expect(c.status, JSON.stringify(c.body)).toBe(200);
      const s = c.body.scene;
      expect(Object.keys(s).sort()).toEqual([
        'actions',
        'created',
        'id',
        'key',
        'label',
        'stop_on_error',
        'updated',
      ]);
      expect(s).toMatchObject({ id: 0, key: 'race_start', label: 'Race Start!', stop_on_error: true });
      // Canonical: groups sorted, presetId a number, params/flags_override present.
      expect(s.actions[0]).toEqual({
        kind: 'led_preset',
        target: { kind: 'groups', value: [1, 2] },
        params: { presetId: 3, brightness: 90 },
        flags_override: {},
      });
      expect(s.actions[1]).toMatchObject({ offset: { mode: 'linear', base_ms: 0, step_ms: 100 } });
      await sse.waitFor('refresh', (d) => (d as { what: string[] }).what.includes('scenes'));

      expect((await call(h, 'GET', '/api/scenes/race_start')).body).toEqual({ ok: true, scene: s });
      const k2 = await call<SceneRes>(h, 'POST', '/api/scenes', {
        label: 'race-start',
        stop_on_error: 'off',
      });
      expect(k2.body.scene).toMatchObject({ id: 1, key: 'race_start_2', actions: [], stop_on_error: false });

      // PUT changes only what is given; `actions` replaces the whole list.
      const u = await call<SceneRes>(h, 'PUT', '/api/scenes/race_start', { label: 'Heat 1 start' });
      expect(u.body.scene).toMatchObject({ key: 'race_start', label: 'Heat 1 start', actions: s.actions });
      const u2 = await call<SceneRes>(h, 'PUT', '/api/scenes/race_start', {
        actions: [{ kind: 'sync' }],
        stop_on_error: false,
      });
      expect(u2.body.scene).toMatchObject({
        actions: [{ kind: 'sync' }],
        stop_on_error: false,
        label: 'Heat 1 start',
      });

      const d = await call<SceneRes>(h, 'POST', '/api/scenes/race_start/duplicate', {});
      expect(d.body.scene).toMatchObject({
        id: 2,
        key: 'heat_1_start_copy',
        label: 'Heat 1 start copy',
        actions: [{ kind: 'sync' }],
        stop_on_error: false,
      });
      const list = await call<{ scenes: Scene[] }>(h, 'GET', '/api/scenes');
      expect(list.body.scenes.map((x) => x.key)).toEqual(['race_start', 'race_start_2', 'heat_1_start_copy']);

      expect((await call(h, 'DELETE', '/api/scenes/race_start_2')).body).toEqual({ ok: true });
      expect(await refused(h, 'GET', '/api/scenes/race_start_2', undefined, 404)).toBe('scene not found');
      expect(await refused(h, 'PUT', '/api/scenes/race_start_2', { label: 'x' }, 404)).toBe(
        'scene not found',
      );
      expect(await refused(h, 'DELETE', '/api/scenes/race_start_2', undefined, 404)).toBe('scene not found');
      expect(await refused(h, 'POST', '/api/scenes/race_start_2/duplicate', {}, 404)).toBe('scene not found');
      expect((await call<SceneRes>(h, 'POST', '/api/scenes', { label: 'Next' })).body.scene.id).toBe(3);
    });
  });

  it('invalid-scenes-are-refused-naming-action-index-and-field', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      await call(h, 'POST', '/api/native-presets', {
        label: 'Red',
        params: { mode: 0, color1: [255, 0, 0] },
      });
      await call(h, 'POST', '/api/scenes', { label: 'Keep', actions: [{ kind: 'sync' }] });
      const before = (await call(h, 'GET', '/api/scenes')).body;
      const og = {
        kind: 'offset_group',
        target: { kind: 'groups', value: [1, 2] },
        offset: { mode: 'none' },
      };
      const eff = { kind: 'native_effect', target: { kind: 'broadcast' } };
      const post = (actions: unknown) => ({ label: 'x', actions });
      const cases: [string, string, unknown, RegExp][] = [
        ['POST', '/api/scenes', { actions: [] }, /^label: is required$/],
        ['POST', '/api/scenes', { label: 'a', key: [] }, /^key: must be a string$/],
        ['POST', '/api/scenes', { label: 'a', stop_on_error: 'maybe' }, /^stop_on_error: must be a boolean$/],
        ['POST', '/api/scenes', post({ kind: 'sync' }), /^actions: must be a list$/],
        [
          'POST',
          '/api/scenes',
          post(Array(21).fill({ kind: 'sync' })),
          /^actions: too many actions: 21 > 20$/,
        ],
        ['POST', '/api/scenes', post(['sync']), /^actions\[0\]: must be an object$/],
        [
          'POST',
          '/api/scenes',
          post([{ kind: 'sync' }, { kind: 'party' }]),
          /^actions\[1\]\.kind: invalid action kind "party"/,
        ],
        [
          'POST',
          '/api/scenes',
          post([{ kind: 'sync', params: {} }]),
          /^actions\[0\]\.params: a sync action must not carry 'params'$/,
        ],
        [
          'POST',
          '/api/scenes',
          post([{ kind: 'delay', duration_ms: 61000 }]),
          /^actions\[0\]\.duration_ms: must be <= 60000$/,
        ],
        [
          'POST',
          '/api/scenes',
          post([{ kind: 'led_preset' }]),
          /^actions\[0\]\.target: a led_preset action requires a target$/,
        ],
        [
          'POST',
          '/api/scenes',
          post([{ ...eff, target: { kind: 'groups', value: [300] } }]),
          /^actions\[0\]\.target\.value\[0\]: group id 300 out of range \[0\.\.254\]$/,
        ],
        [
          'POST',
          '/api/scenes',
          post([{ ...eff, target: { kind: 'device', value: 'zz' } }]),
          /^actions\[0\]\.target\.value: must be a device address/,
        ],
        [
          'POST',
          '/api/scenes',
          post([{ ...eff, target: { kind: 'everyone' } }]),
          /^actions\[0\]\.target\.kind: invalid target kind/,
        ],
        [
          'POST',
          '/api/scenes',
          post([{ ...eff, params: { intensity: 256 } }]),
          /^actions\[0\]\.params\.intensity: must be <= 255$/,
        ],
        [
          'POST',
          '/api/scenes',
          post([{ ...eff, flags_override: { force: true } }]),
          /^actions\[0\]\.flags_override\.force: unknown field/,
        ],
        [
          'POST',
          '/api/scenes',
          post([{ kind: 'native_preset', target: { kind: 'broadcast' }, params: { presetId: '9' } }]),
          /^actions\[0\]\.params\.presetId: native preset "9" not found$/,
        ],
        [
          'POST',
          '/api/scenes',
          post([{ kind: 'led_preset', target: { kind: 'broadcast' }, params: { presetId: 256 } }]),
          /^actions\[0\]\.params\.presetId: must be <= 255$/,
        ],
        [
          'POST',
          '/api/scenes',
          post([{ kind: 'startblock', target: { kind: 'broadcast' }, params: { fn_key: 'go' } }]),
          /^actions\[0\]\.params\.fn_key/,
        ],
        [
          'POST',
          '/api/scenes',
          post([{ ...og, target: { kind: 'device', value: 'AABBCC' } }]),
          /^actions\[0\]\.target\.kind: an offset_group target cannot be 'device'/,
        ],
        [
          'POST',
          '/api/scenes',
          post([{ ...og, target: { kind: 'groups', value: [...Array(65).keys()] } }]),
          /^actions\[0\]\.target\.value: offset_group has 65 groups; max is 64$/,
        ],
        [
          'POST',
          '/api/scenes',
          post([{ ...og, offset: { mode: 'spiral' } }]),
          /^actions\[0\]\.offset\.mode: "spiral" is not one of/,
        ],
        [
          'POST',
          '/api/scenes',
          post([{ ...og, offset: { mode: 'modulo', cycle: 256 } }]),
          /^actions\[0\]\.offset\.cycle: must be <= 255$/,
        ],
        [
          'POST',
          '/api/scenes',
          post([{ ...og, offset: { mode: 'explicit', values: [{ id: 1, offset_ms: 5 }] } }]),
          /^actions\[0\]\.offset\.values: missing offsets for groups 2/,
        ],
        [
          'POST',
          '/api/scenes',
          post([{ ...og, actions: Array(17).fill(eff) }]),
          /^actions\[0\]\.actions: offset_group has 17 children; max is 16$/,
        ],
        [
          'POST',
          '/api/scenes',
          post([{ ...og, actions: [{ kind: 'delay' }] }]),
          /^actions\[0\]\.actions\[0\]\.kind: invalid action kind "delay"/,
        ],
        [
          'POST',
          '/api/scenes',
          post([{ ...og, actions: [{ ...eff, target: { kind: 'groups', value: [7] } }] }]),
          /^actions\[0\]\.actions\[0\]\.target\.value: group 7 is not one of the offset_group's groups \[1, 2\]$/,
        ],
        ['PUT', '/api/scenes/keep', { label: ' ' }, /^label: must not be empty$/],
        [
          'PUT',
          '/api/scenes/keep',
          { label: 'ok', actions: [{ kind: 'delay', duration_ms: -1 }] },
          /^actions\[0\]\.duration_ms: must be >= 0$/,
        ],
        ['POST', '/api/scenes/keep/duplicate', { label: '\t' }, /^label: is required$/],
        ['POST', '/api/scenes', { label: 'a', action: [] }, /^action: unknown field/],
        ['PUT', '/api/scenes/keep', { key: 'renamed' }, /^key: cannot be changed/],
      ];
      for (const [method, path, body, re] of cases) {
        const msg = await refused(h, method as 'POST', path, body, 400);
        expect(msg, `${method} ${path} ${JSON.stringify(body).slice(0, 200)}`).toMatch(re);
      }
      expect((await call(h, 'GET', '/api/scenes')).body).toEqual(before);
      // A reference by id, by RL:key and by key all resolve.
      const ok = await call<SceneRes>(h, 'POST', '/api/scenes', {
        label: 'refs',
        actions: ['0', 'RL:red', 'red', 0].map((presetId) => ({
          kind: 'native_preset',
          target: { kind: 'broadcast' },
          params: { presetId },
        })),
      });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(ok.body.scene.actions.map((a) => (a.params as { presetId: string }).presetId)).toEqual([
        '0',
        'RL:red',
        'red',
        '0',
      ]);
    });
  });

  it('editor-schema-has-the-contract-contents-and-valid-defaults', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      type Kind = { kind: string; defaults: Record<string, unknown>; target_kinds: string[]; ui: unknown };
      const get = async () =>
        (
          await call<{ ok: boolean; kinds: Kind[] } & Record<string, unknown>>(
            h,
            'GET',
            '/api/scenes/editor-schema',
          )
        ).body;
      const check = async () => {
        const s = await get();
        expect(Object.keys(s)).toEqual([
          'ok',
          'kinds',
          'flags',
          'target_kinds',
          'container_target_kinds',
          'offset_group',
          'lora',
        ]);
        expect(s.kinds.map((k) => k.kind)).toEqual([
          'native_preset',
          'led_preset',
          'native_effect',
          'startblock',
          'sync',
          'delay',
          'offset_group',
        ]);
        // Every default is itself a valid action, stored unchanged.
        const defaults = s.kinds.map((k) => k.defaults);
        const r = await call<SceneRes>(h, 'POST', '/api/scenes', { label: 'defaults', actions: defaults });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        expect(r.body.scene.actions).toEqual(defaults);
        return s;
      };
      const s = await check();
      expect(s.kinds[0]?.defaults).toEqual({
        kind: 'native_preset',
        target: { kind: 'broadcast' },
        params: { brightness: 128 },
        flags_override: {},
      });
      expect(s.kinds.map((k) => k.target_kinds)).toEqual([
        ['broadcast', 'groups', 'device'],
        ['broadcast', 'groups', 'device'],
        ['broadcast', 'groups', 'device'],
        ['broadcast', 'groups', 'device'],
        [],
        [],
        ['broadcast', 'groups'],
      ]);
      expect(s.flags).toEqual([
        { key: 'arm_on_sync', label: 'Arm on SYNC' },
        { key: 'force_tt0', label: 'Force TT=0' },
        { key: 'force_reapply', label: 'Force reapply' },
        { key: 'offset_mode', label: 'Offset mode' },
      ]);
      expect(s.target_kinds).toEqual([
        { value: 'broadcast', label: 'Broadcast' },
        { value: 'groups', label: 'Group' },
        { value: 'device', label: 'Device' },
      ]);
      expect(s.container_target_kinds).toEqual([
        { value: 'broadcast', label: 'Broadcast' },
        { value: 'groups', label: 'Group' },
      ]);
      expect(s.offset_group).toMatchObject({
        max_groups: 64,
        max_children: 16,
        group_id: { min: 0, max: 254 },
        offset_ms: { min: 0, max: 65535 },
        base_ms: { min: -32768, max: 32767 },
        step_ms: { min: -32768, max: 32767 },
        center: { min: 0, max: 254 },
        cycle: { min: 1, max: 255 },
        supports_broadcast_target: true,
        child_kinds: ['native_preset', 'led_preset', 'native_effect'],
      });
      const modes = (s.offset_group as { modes: { value: string; description: string }[] }).modes;
      expect(modes.map((m) => m.value)).toEqual(['none', 'linear', 'vshape', 'modulo', 'explicit']);
      expect(modes[1]?.description).toBe('base + gid * step');
      expect(s.lora).toMatchObject({ sf: 7, bw_hz: 125000, cr: 5, preamble_sym: 8, sync_word: 0x12 });

      // With presets the native_preset picker lists them and the default picks the first.
      await call(h, 'POST', '/api/native-presets', { label: 'Amber', params: { mode: 0, brightness: 99 } });
      const s2 = await check();
      const np = s2.kinds[0] as Kind & { ui: { presetId: { options: unknown[] } } };
      expect(np.ui.presetId.options).toEqual([{ value: '0', label: 'Amber' }]);
      expect(np.defaults.params).toEqual({ presetId: '0', brightness: 128 });
    });
  });

  it('group-delete-renumbers-scene-actions-and-reports-it', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      for (const name of ['G1', 'G2', 'G3', 'G4', 'G5']) await h.post('/api/groups/create', { name });
      const eff = {
        kind: 'native_effect',
        target: { kind: 'broadcast' },
        params: { mode: 0, brightness: 9 },
      };
      await call(h, 'POST', '/api/scenes', {
        label: 'Sweep',
        actions: [
          { ...eff, target: { kind: 'groups', value: [5] } },
          {
            kind: 'offset_group',
            target: { kind: 'groups', value: [1, 3, 5] },
            offset: {
              mode: 'explicit',
              values: [
                { id: 1, offset_ms: 10 },
                { id: 3, offset_ms: 100 },
                { id: 5, offset_ms: 250 },
              ],
            },
            actions: [{ ...eff, target: { kind: 'groups', value: [3, 5] } }],
          },
          { ...eff, target: { kind: 'device', value: 'AABBCC' } },
        ],
      });
      await call(h, 'POST', '/api/scenes', {
        label: 'Low',
        actions: [{ ...eff, target: { kind: 'groups', value: [1, 2] } }],
      });
      const before = (await call<SceneRes>(h, 'GET', '/api/scenes/low')).body.scene;
      const sse = await h.sse();
      const del = await h.post('/api/groups/delete', { id: 3 });
      expect(del.body).toMatchObject({ ok: true, renumbered_scenes: 1 });
      await sse.waitFor('refresh', (d) => (d as { what: string[] }).what.includes('scenes'));
      const sweep = (await call<SceneRes>(h, 'GET', '/api/scenes/sweep')).body.scene;
      expect(sweep.actions[0]?.target).toEqual({ kind: 'groups', value: [4] });
      expect(sweep.actions[1]).toMatchObject({
        target: { kind: 'groups', value: [0, 1, 4] },
        offset: {
          mode: 'explicit',
          values: [
            { id: 0, offset_ms: 100 },
            { id: 1, offset_ms: 10 },
            { id: 4, offset_ms: 250 },
          ],
        },
        actions: [{ target: { kind: 'groups', value: [0, 4] } }],
      });
      expect(sweep.actions[2]?.target).toEqual({ kind: 'device', value: 'AABBCC' });
      // Untouched scene: not counted, not re-stamped.
      expect((await call<SceneRes>(h, 'GET', '/api/scenes/low')).body.scene).toEqual(before);
      const again = await h.post('/api/groups/delete', { id: 4 });
      expect(again.body).toMatchObject({ ok: true, renumbered_scenes: 1 });
    });
  });

  it('scenes-persist-and-bad-stored-records-never-stop-the-host', async () => {
    const dataDir = await testTempDir('lightnet-scenes-');
    await withHost({ nodes: 1, dataDir }, async (h) => {
      await call(h, 'POST', '/api/scenes', { label: 'Finish', actions: START_SEQUENCE });
      expect((await call(h, 'POST', '/api/save')).status).toBe(200);
    });
    const path = join(dataDir, 'state.json');
    const file = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown[]>;
    const good = file.scenes?.[0] as Scene;
    file.scenes = [
      good,
      'junk',
      { key: 'nolabel' },
      { ...good, key: 'finish' },
      {
        key: 'half',
        label: 'Half',
        actions: [
          { kind: 'sync' },
          { kind: 'warp' },
          { kind: 'delay', ms: 5 },
          { kind: 'rl_effect', target: { kind: 'scope' }, params: { mode: 1, speed: 300 }, extra: 1 },
        ],
      },
      { id: 0, key: 'old', label: 'Old', actions: 'none', stop_on_error: 'yes' },
    ];
    file.native_presets = [{ key: 'p', label: 'P', params: { speed: 999, mode: 1 }, flags: 7 }, 42];
    await writeFile(path, JSON.stringify(file));
    await withHost({ nodes: 1, dataDir }, async (h) => {
      expect((await call(h, 'GET', '/api/health')).body).toMatchObject({ ok: true });
      const list = (await call<{ scenes: Scene[] }>(h, 'GET', '/api/scenes')).body.scenes;
      expect(list.map((s) => [s.id, s.key])).toEqual([
        [0, 'finish'],
        [1, 'half'],
        [2, 'old'],
      ]);
      expect(list[0]?.actions).toEqual(good.actions);
      expect(list[1]?.actions).toEqual([
        { kind: 'sync' },
        { kind: 'delay', duration_ms: 5 },
        { kind: 'native_effect', target: { kind: 'broadcast' }, params: { mode: 1 }, flags_override: {} },
      ]);
      expect(list[2]).toMatchObject({ actions: [], stop_on_error: true });
      const presets = (
        await call<{ presets: { params: Record<string, unknown>; flags: number }[] }>(
          h,
          'GET',
          '/api/native-presets',
        )
      ).body.presets;
      expect(presets).toHaveLength(1);
      expect(presets[0]?.flags).toBe(2);
      // Only the out-of-range field is dropped.
      expect(presets[0]?.params).toMatchObject({ mode: 1, speed: null });
      expect((await call<SceneRes>(h, 'POST', '/api/scenes', { label: 'New' })).body.scene.id).toBe(3);
    });
  });
});
