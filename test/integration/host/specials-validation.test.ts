import { describe, expect, it } from 'vitest';
import { withHost } from '../harness.ts';
import { devices, discoverAll } from './helpers.ts';

type Case = [path: string, body: unknown, status: number, error: string | RegExp];

describe('specials validation', () => {
  it('every-bad-request-is-a-clear-4xx-and-changes-nothing', async () => {
    // Seed 2, 3 nodes: LED-only nodes (no STARTBLOCK capability).
    await withHost({ nodes: 3, seed: 2 }, async (h) => {
      const rows = await discoverAll(h);
      const led = rows[0]?.addr ?? '';
      const before = JSON.stringify((await devices(h)).map((d) => d.specials));
      const cfg = '/api/specials/config';
      const get = '/api/specials/get';
      const imp = '/api/specials/config/import';
      const act = '/api/specials/action';
      const cases: Case[] = [
        [cfg, {}, 400, 'mac: is required'],
        [cfg, { mac: led }, 400, 'key: is required'],
        [cfg, { mac: '', key: 'led_fps', value: 1 }, 400, 'mac: is required'],
        [cfg, { mac: 12, key: 'led_fps', value: 1 }, 400, 'mac: must be a string of 6 or 12 hex characters'],
        [cfg, { mac: 'zz', key: 'led_fps', value: 1 }, 400, 'mac: must be 6 or 12 hex characters, got "zz"'],
        [cfg, { mac: 'ff:ff:ff', key: 'led_fps', value: 1 }, 400, 'mac: broadcast address not allowed'],
        [cfg, { mac: 'ABCDEF', key: 'led_fps', value: 1 }, 404, 'device not found: ABCDEF'],
        [cfg, { mac: led, key: 'led_bogus', value: 1 }, 400, 'key: unknown option "led_bogus"'],
        [
          cfg,
          { mac: led, key: 'startblock_slots', value: 2 },
          400,
          new RegExp(
            `^key: option startblock_slots not supported for device ${led} \\(LED_Rev1, capabilities: LED\\)$`,
          ),
        ],
        [cfg, { mac: led, key: 'led_fps' }, 400, 'value: is required'],
        [cfg, { mac: led, key: 'led_fps', value: 251 }, 400, 'value: must be <= 250'],
        [cfg, { mac: led, key: 'led_fps', value: -1 }, 400, 'value: must be >= 0'],
        [cfg, { mac: led, key: 'led_fps', value: 'abc' }, 400, 'value: must be an integer'],
        [cfg, { mac: led, key: 'led_fps', value: 1.5 }, 400, 'value: must be an integer'],
        [
          cfg,
          { mac: led, key: 'led_fps', value: { start: 1, stop: 2 } },
          400,
          'value: must be an integer for led_fps, not an object',
        ],
        [cfg, { mac: led, key: 'led_abl_max_ma', value: 65536 }, 400, 'value: must be <= 65535'],
        [
          cfg,
          { mac: led, key: 'led_seg0', value: 5 },
          400,
          'value: must be an object {start, stop} for led_seg0',
        ],
        [
          cfg,
          { mac: led, key: 'led_seg0', value: [1, 2] },
          400,
          'value: must be an object {start, stop} for led_seg0',
        ],
        [cfg, { mac: led, key: 'led_seg0', value: { start: 1 } }, 400, 'value.stop: is required'],
        [
          cfg,
          { mac: led, key: 'led_seg0', value: { start: 'x', stop: 1 } },
          400,
          'value.start: must be an integer',
        ],
        [
          cfg,
          { mac: led, key: 'led_seg0', value: { start: 1, stop: 70000 } },
          400,
          'value.stop: must be <= 65535',
        ],
        [cfg, { mac: led, key: 'led_seg0', value: { start: -1, stop: 7 } }, 400, 'value.start: must be >= 0'],
        [
          cfg,
          { mac: led, key: 'led_seg0', value: { start: 10, stop: 5 } },
          400,
          'value: start must be <= stop',
        ],
        [
          cfg,
          { mac: led, key: 'led_seg1', value: { start: 1, stop: 5, len: 3 } },
          400,
          'value.len: unknown field (expected start and stop)',
        ],
        [cfg, { mac: led, key: 'wifi_ap' }, 400, 'value: is required (0 or 1) for wifi_ap'],

        [get, { mac: led }, 400, 'key: is required'],
        [get, { key: 'led_fps' }, 400, 'mac: is required'],
        [get, { mac: 'FFFFFF', key: 'led_fps' }, 400, 'mac: broadcast address not allowed'],
        [get, { mac: '0A0B0C', key: 'led_fps' }, 404, 'device not found: 0A0B0C'],
        [
          get,
          { mac: led, key: 'startblock_first_slot' },
          400,
          /^key: option startblock_first_slot not supported for device/,
        ],
        [get, { mac: led, key: 7 }, 400, 'key: must be a string'],

        [imp, { mac: led, key: 'led_fps' }, 400, 'value: is required'],
        [
          imp,
          { mac: led, key: 'reboot', value: 1 },
          400,
          'key: reboot is a method (Reboot) and has no stored value',
        ],
        [imp, { mac: led, key: 'led_briS', value: 256 }, 400, 'value: must be <= 255'],
        [imp, { mac: led, key: 'led_seg1', value: { start: 3 } }, 400, 'value.stop: is required'],
        [imp, { mac: 'ABCDEF', key: 'led_fps', value: 3 }, 404, 'device not found: ABCDEF'],
        [imp, { mac: led, key: 'startblock_slots', value: 3 }, 400, /not supported for device/],

        [act, { function: 'led_preset' }, 400, 'mac: is required'],
        [act, { mac: led }, 400, 'function: is required'],
        [act, { mac: 'FFFFFF', function: 'led_preset' }, 400, 'mac: broadcast address not allowed'],
        [act, { mac: 'ABCDEF', function: 'led_preset' }, 404, 'device not found: ABCDEF'],
        [
          act,
          { mac: led, function: 'fireworks' },
          400,
          /^function: unknown function "fireworks" \(known: startblock_control, led_preset/,
        ],
        [
          act,
          { mac: led, function: 'startblock_control' },
          400,
          /^function: startblock_control not supported for device/,
        ],
        [act, { mac: led, function: 'led_preset', params: [1] }, 400, 'params: must be an object'],
        [act, { mac: led, function: 'led_preset', params: 'x' }, 400, 'params: must be an object'],
        [
          act,
          { mac: led, function: 'led_preset', params: { brightness: 300 } },
          400,
          'params.brightness: must be <= 255',
        ],
        [
          act,
          { mac: led, function: 'led_preset', params: { presetId: 'abc' } },
          400,
          'params.presetId: must be an integer',
        ],
        [
          act,
          { mac: led, function: 'led_preset', params: { presetId: 0 } },
          400,
          'params.presetId: must be >= 1',
        ],
      ];
      for (const [path, body, status, error] of cases) {
        const r = await h.post<{ ok: boolean; error: string }>(path, body);
        const what = `${path} ${JSON.stringify(body)} → ${JSON.stringify(r.body)}`;
        expect(r.status, what).toBe(status);
        expect(r.body.ok, what).toBe(false);
        if (typeof error === 'string') expect(r.body.error, what).toBe(error);
        else expect(r.body.error, what).toMatch(error);
      }
      // Nothing started, nothing stored.
      expect(h.host.services.tasks.current()?.name).toBe('discover');
      expect(JSON.stringify((await devices(h)).map((d) => d.specials))).toBe(before);
    });
  });
});
