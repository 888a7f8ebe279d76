import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withHost } from '../harness.ts';
import { call, refused } from './library-helpers.ts';
import { testTempDir } from '../../temp-dir.ts';

interface Preset {
  id: number;
  key: string;
  label: string;
  created: string;
  updated: string;
  params: Record<string, unknown>;
  flags: number;
}
type PresetRes = { ok: boolean; preset: Preset };

const BREATHE = { mode: 2, speed: 128, brightness: 200, palette: 0, color1: [0, 255, 0] };

describe('native presets', () => {
  it('operator-creates-reads-updates-duplicates-and-deletes-a-preset', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      const sse = await h.sse();
      const c = await call<PresetRes>(h, 'POST', '/api/native-presets', {
        label: '  Breathe Green ',
        params: BREATHE,
        flags: { arm_on_sync: true },
      });
      expect(c.status).toBe(200);
      const p = c.body.preset;
      expect(p).toMatchObject({ id: 0, key: 'breathe_green', label: 'Breathe Green', flags: 0x02 });
      expect(p.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(p.params).toEqual({
        mode: 2,
        speed: 128,
        intensity: null,
        custom1: null,
        custom2: null,
        custom3: null,
        check1: null,
        check2: null,
        check3: null,
        palette: 0,
        color1: [0, 255, 0],
        color2: null,
        color3: null,
        brightness: 200,
      });
      await sse.waitFor('refresh', (d) => (d as { what: string[] }).what.includes('native_presets'));

      // Keys: slug of the client key or label, unique with _2, _3 …
      const k = await call<PresetRes>(h, 'POST', '/api/native-presets', { label: 'x', key: 'My Key!' });
      expect(k.body.preset.key).toBe('my_key');
      const again = await call<PresetRes>(h, 'POST', '/api/native-presets', {
        label: 'Breathe-Green',
        flags: 0x30,
      });
      expect(again.body.preset).toMatchObject({ id: 2, key: 'breathe_green_2', flags: 0x30 });
      expect(
        (await call<PresetRes>(h, 'POST', '/api/native-presets', { label: '---' })).body.preset.key,
      ).toBe('preset');

      expect((await call(h, 'GET', '/api/native-presets/breathe_green')).body).toEqual({
        ok: true,
        preset: p,
      });
      const list = await call<{ presets: Preset[] }>(h, 'GET', '/api/native-presets');
      expect(list.body.presets.map((x) => x.key)).toEqual([
        'breathe_green',
        'my_key',
        'breathe_green_2',
        'preset',
      ]);

      // PUT: only given fields change; params replace all 14 (absent → null); key stays.
      const u1 = await call<PresetRes>(h, 'PUT', '/api/native-presets/breathe_green', { label: 'Renamed' });
      expect(u1.body.preset).toMatchObject({
        key: 'breathe_green',
        label: 'Renamed',
        flags: 2,
        params: p.params,
      });
      const u2 = await call<PresetRes>(h, 'PUT', '/api/native-presets/breathe_green', {
        params: { mode: 0, brightness: 10 },
        flags: 0,
      });
      expect(u2.body.preset.params).toMatchObject({ mode: 0, brightness: 10, speed: null, color1: null });
      expect(u2.body.preset.flags).toBe(0);

      const d1 = await call<PresetRes>(h, 'POST', '/api/native-presets/breathe_green/duplicate', {});
      expect(d1.body.preset).toMatchObject({ id: 4, key: 'renamed_copy', label: 'Renamed copy' });
      expect(d1.body.preset.params).toEqual(u2.body.preset.params);
      const d2 = await call<PresetRes>(h, 'POST', '/api/native-presets/breathe_green/duplicate', {
        label: 'Twin',
      });
      expect(d2.body.preset).toMatchObject({ id: 5, key: 'twin' });

      expect((await call(h, 'DELETE', '/api/native-presets/twin')).body).toEqual({
        ok: true,
        referenced_by: [],
      });
      expect(await refused(h, 'GET', '/api/native-presets/twin', undefined, 404)).toBe('preset not found');
      // Ids are never reused after a delete.
      expect(
        (await call<PresetRes>(h, 'POST', '/api/native-presets', { label: 'Late' })).body.preset.id,
      ).toBe(6);
    });
  });

  it('bad-preset-input-is-refused-naming-the-field-and-changes-nothing', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      await call(h, 'POST', '/api/native-presets', { label: 'Keep', params: BREATHE });
      const before = (await call(h, 'GET', '/api/native-presets')).body;
      const cases: [string, string, unknown, number, RegExp][] = [
        ['POST', '/api/native-presets', {}, 400, /^label: is required$/],
        ['POST', '/api/native-presets', { label: '   ' }, 400, /^label: is required$/],
        ['POST', '/api/native-presets', { label: 7 }, 400, /^label: is required$/],
        ['POST', '/api/native-presets', { label: 'a', key: 5 }, 400, /^key: must be a string$/],
        ['POST', '/api/native-presets', { label: 'a', params: [] }, 400, /^params: must be an object$/],
        [
          'POST',
          '/api/native-presets',
          { label: 'a', params: { speed: 300 } },
          400,
          /^params\.speed: must be <= 255$/,
        ],
        [
          'POST',
          '/api/native-presets',
          { label: 'a', params: { custom3: 40 } },
          400,
          /^params\.custom3: must be <= 31$/,
        ],
        [
          'POST',
          '/api/native-presets',
          { label: 'a', params: { mode: 14 } },
          400,
          /^params\.mode: unknown effect id 14$/,
        ],
        [
          'POST',
          '/api/native-presets',
          { label: 'a', params: { palette: 72 } },
          400,
          /^params\.palette: unknown palette id 72$/,
        ],
        [
          'POST',
          '/api/native-presets',
          { label: 'a', params: { color3: 'blue' } },
          400,
          /^params\.color3: must be \[r,g,b\]/,
        ],
        [
          'POST',
          '/api/native-presets',
          { label: 'a', params: { check2: 'x' } },
          400,
          /^params\.check2: must be a boolean$/,
        ],
        [
          'POST',
          '/api/native-presets',
          { label: 'a', params: { sped: 1 } },
          400,
          /^params\.sped: unknown field/,
        ],
        ['POST', '/api/native-presets', { label: 'a', flags: 0x100 }, 400, /^flags: must be <= 255$/],
        ['POST', '/api/native-presets', { label: 'a', flags: 'all' }, 400, /^flags: must be an integer$/],
        [
          'POST',
          '/api/native-presets',
          { label: 'a', flags: { arm: true } },
          400,
          /^flags\.arm: unknown field/,
        ],
        ['PUT', '/api/native-presets/keep', { label: '' }, 400, /^label: must not be empty$/],
        ['PUT', '/api/native-presets/keep', { label: 3 }, 400, /^label: must be a string$/],
        [
          'PUT',
          '/api/native-presets/keep',
          { label: 'New', params: { brightness: -1 } },
          400,
          /^params\.brightness: must be >= 0$/,
        ],
        ['PUT', '/api/native-presets/nope', { label: 'x' }, 404, /^preset not found$/],
        ['DELETE', '/api/native-presets/nope', undefined, 404, /^preset not found$/],
        ['POST', '/api/native-presets/nope/duplicate', {}, 404, /^preset not found$/],
        ['POST', '/api/native-presets/keep/duplicate', { label: '  ' }, 400, /^label: is required$/],
        ['POST', '/api/native-presets/keep/duplicate', { lable: 'x' }, 400, /^lable: unknown field/],
        ['POST', '/api/native-presets', { label: 'a', flag: 2 }, 400, /^flag: unknown field/],
        ['PUT', '/api/native-presets/keep', { key: 'other' }, 400, /^key: cannot be changed/],
      ];
      for (const [method, path, body, status, re] of cases) {
        const msg = await refused(h, method as 'POST', path, body, status);
        expect(msg, `${method} ${path} ${JSON.stringify(body)}`).toMatch(re);
      }
      expect((await call(h, 'GET', '/api/native-presets')).body).toEqual(before);
      // A whole record read with GET can be sent back with PUT.
      const rec = (await call<PresetRes>(h, 'GET', '/api/native-presets/keep')).body.preset;
      const back = await call<PresetRes>(h, 'PUT', '/api/native-presets/keep', { ...rec, label: 'Kept' });
      expect(back.status, JSON.stringify(back.body)).toBe(200);
      expect(back.body.preset).toMatchObject({ ...rec, label: 'Kept', updated: expect.any(String) });
    });
  });

  it('deleting-a-preset-tells-which-scenes-still-use-it', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      await call(h, 'POST', '/api/native-presets', { label: 'Red', params: { mode: 0, brightness: 50 } });
      await call(h, 'POST', '/api/native-presets', { label: 'Blue', params: { mode: 0, brightness: 50 } });
      const use = (presetId: string) => ({
        kind: 'native_preset',
        target: { kind: 'broadcast' },
        params: { presetId },
      });
      await call(h, 'POST', '/api/scenes', { label: 'By id', actions: [use('0')] });
      await call(h, 'POST', '/api/scenes', {
        label: 'Nested',
        actions: [
          {
            kind: 'offset_group',
            target: { kind: 'broadcast' },
            offset: { mode: 'none' },
            actions: [use('RL:red')],
          },
        ],
      });
      await call(h, 'POST', '/api/scenes', { label: 'Other', actions: [use('blue')] });
      const del = await call(h, 'DELETE', '/api/native-presets/red');
      expect(del.body).toEqual({ ok: true, referenced_by: ['by_id', 'nested'] });
      // The scenes stay as they are; saving one again now names the missing preset.
      const again = await refused(h, 'PUT', '/api/scenes/by_id', { actions: [use('0')] }, 400);
      expect(again).toBe('actions[0].params.presetId: native preset "0" not found');
    });
  });

  it('editor-schema-lists-the-14-fields-with-effects-palettes-and-colour-rules', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      const r = await call<{ ok: boolean; schema: Record<string, unknown> }>(
        h,
        'GET',
        '/api/native-presets/schema',
      );
      const s = r.body.schema as {
        vars: string[];
        ui: Record<
          string,
          { widget: string; min?: number; max?: number; options?: Record<string, unknown>[] }
        >;
        flags: { key: string; label: string }[];
        palette_color_rules: unknown;
      };
      expect(Object.keys(s)).toEqual(['vars', 'ui', 'flags', 'palette_color_rules']);
      expect(s.vars).toHaveLength(14);
      expect(Object.keys(s.ui)).toEqual(s.vars);
      expect(s.ui.custom3).toEqual({ widget: 'slider', min: 0, max: 31 });
      expect(s.ui.check1).toEqual({ widget: 'toggle' });
      expect(s.ui.color2).toEqual({ widget: 'color', caption: 'Bg' });
      const modes = s.ui.mode?.options ?? [];
      expect(modes).toHaveLength(188);
      expect(modes[0]).toMatchObject({ value: '0', label: 'Solid', deterministic: true });
      expect((modes[0] as { slots: Record<string, unknown> }).slots.palette).toEqual({ used: true });
      expect(s.ui.palette?.options).toHaveLength(72);
      expect(s.flags.map((f) => f.key)).toEqual(['arm_on_sync', 'force_tt0', 'force_reapply', 'offset_mode']);
      expect(s.palette_color_rules).toEqual({ force_slot_min_palette: [2, 3, 4], max_palette_id: 5 });
    });
  });

  it('presets-survive-a-restart-and-ids-keep-counting', async () => {
    const dataDir = await testTempDir('lightnet-presets-');
    await withHost({ nodes: 1, dataDir }, async (h) => {
      await call(h, 'POST', '/api/native-presets', { label: 'A', params: BREATHE, flags: 2 });
      await call(h, 'POST', '/api/native-presets', { label: 'B' });
      await call(h, 'DELETE', '/api/native-presets/b');
      expect((await call(h, 'POST', '/api/save')).status).toBe(200);
    });
    const file = JSON.parse(await readFile(join(dataDir, 'state.json'), 'utf8')) as Record<string, unknown>;
    expect(file.native_presets).toHaveLength(1);
    expect(file.next_ids).toMatchObject({ native_presets: 2 });
    await withHost({ nodes: 1, dataDir }, async (h) => {
      const a = await call<PresetRes>(h, 'GET', '/api/native-presets/a');
      expect(a.body.preset).toMatchObject({ id: 0, flags: 2, params: { mode: 2, color1: [0, 255, 0] } });
      expect((await call<PresetRes>(h, 'POST', '/api/native-presets', { label: 'C' })).body.preset.id).toBe(
        2,
      );
    });
  });
});
