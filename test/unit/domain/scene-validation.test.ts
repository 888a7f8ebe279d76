import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/errors.ts';
import { validateSceneActions, type SceneAction } from '../../../src/domain/scenes/validation.ts';

const err = (input: unknown, ctx = {}): string => {
  try {
    validateSceneActions(input, ctx);
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as Error).message;
  }
  throw new Error(`no error for ${JSON.stringify(input)}`);
};
const one = (a: unknown): SceneAction => validateSceneActions([a])[0] as SceneAction;

describe('scene action validation', () => {
  it('canonicalises every kind', () => {
    const out = validateSceneActions([
      { kind: 'native_preset', target: { kind: 'groups', value: [3, '1'] }, params: { presetId: 7 } },
      { kind: 'led_preset', target: { kind: 'device', value: 'aa:bb:cc:dd:ee:ff' } },
      {
        kind: 'native_effect',
        target: { kind: 'broadcast', value: 'ignored' },
        params: { mode: '2', color1: '#00ff00', check1: 1, speed: null },
        flags_override: { arm_on_sync: 'true' },
      },
      { kind: 'startblock', target: { kind: 'groups', value: [1] }, flags_override: { arm_on_sync: true } },
      { kind: 'sync' },
      { kind: 'delay', duration_ms: '1500' },
      {
        kind: 'offset_group',
        target: { kind: 'groups', value: [5, 1, 3] },
        offset: {
          mode: 'explicit',
          values: [
            { id: 5, offset_ms: 0 },
            { id: 1, offset_ms: 200 },
            { id: 3, offset_ms: 100 },
          ],
        },
        actions: [
          { kind: 'native_effect', target: { kind: 'groups', value: [3] }, params: { brightness: 9 } },
        ],
      },
    ]);
    expect(out).toEqual([
      {
        kind: 'native_preset',
        target: { kind: 'groups', value: [1, 3] },
        params: { presetId: '7' },
        flags_override: {},
      },
      {
        kind: 'led_preset',
        target: { kind: 'device', value: 'DDEEFF' },
        params: { presetId: 1 },
        flags_override: {},
      },
      {
        kind: 'native_effect',
        target: { kind: 'broadcast' },
        params: { mode: 2, color1: [0, 255, 0], check1: true },
        flags_override: { arm_on_sync: true },
      },
      {
        kind: 'startblock',
        target: { kind: 'groups', value: [1] },
        params: { fn_key: 'startblock_control' },
      },
      { kind: 'sync' },
      { kind: 'delay', duration_ms: 1500 },
      {
        kind: 'offset_group',
        target: { kind: 'groups', value: [1, 3, 5] },
        offset: {
          mode: 'explicit',
          values: [
            { id: 1, offset_ms: 200 },
            { id: 3, offset_ms: 100 },
            { id: 5, offset_ms: 0 },
          ],
        },
        actions: [
          {
            kind: 'native_effect',
            target: { kind: 'groups', value: [3] },
            params: { brightness: 9 },
            flags_override: {},
          },
        ],
      },
    ]);
    // Canonical output validates to itself.
    expect(validateSceneActions(out)).toEqual(out);
  });

  it('formula offset modes get their defaults and drop nothing they need', () => {
    const og = (offset: unknown) =>
      one({ kind: 'offset_group', target: { kind: 'broadcast' }, offset, actions: [] }) as {
        offset: unknown;
      };
    expect(og({ mode: 'linear' }).offset).toEqual({ mode: 'linear', base_ms: 0, step_ms: 0 });
    expect(og({ mode: 'vshape', step_ms: -5, center: 4 }).offset).toEqual({
      mode: 'vshape',
      base_ms: 0,
      step_ms: -5,
      center: 4,
    });
    expect(og({ mode: 'modulo', base_ms: 10 }).offset).toEqual({
      mode: 'modulo',
      base_ms: 10,
      step_ms: 0,
      cycle: 1,
    });
    expect(og({ mode: 'NONE' }).offset).toEqual({ mode: 'none' });
  });

  it('accepts the legacy shapes of the original host', () => {
    expect(one({ kind: 'rl_preset', target: { kind: 'scope' }, params: { presetId: 'RL:red' } })).toEqual({
      kind: 'native_preset',
      target: { kind: 'broadcast' },
      params: { presetId: 'RL:red' },
      flags_override: {},
    });
    expect(
      one({ kind: 'wled_preset', target: { kind: 'group', value: 4 }, params: { presetId: '01' } }),
    ).toEqual({
      kind: 'led_preset',
      target: { kind: 'groups', value: [4] },
      params: { presetId: 1 },
      flags_override: {},
    });
    expect(one({ kind: 'delay', ms: 20 })).toEqual({ kind: 'delay', duration_ms: 20 });
    expect(one({ kind: 'delay', params: { duration_ms: 30 } })).toEqual({ kind: 'delay', duration_ms: 30 });
    expect(one({ kind: 'delay' })).toEqual({ kind: 'delay', duration_ms: 0 });
    expect(one({ kind: 'offset_group', groups: [2, 1], offset: { mode: 'none' }, children: [] })).toEqual({
      kind: 'offset_group',
      target: { kind: 'groups', value: [1, 2] },
      offset: { mode: 'none' },
      actions: [],
    });
    expect(one({ kind: 'offset_group', groups: 'all', offset: { mode: 'none' } })).toMatchObject({
      target: { kind: 'broadcast' },
      actions: [],
    });
    expect(
      one({
        kind: 'rl_effect',
        target: { kind: 'groups_offset', groups: [1, 2], offset: { mode: 'linear', step_ms: 100 } },
        params: { mode: 0, brightness: 50 },
      }),
    ).toEqual({
      kind: 'offset_group',
      target: { kind: 'groups', value: [1, 2] },
      offset: { mode: 'linear', base_ms: 0, step_ms: 100 },
      actions: [
        {
          kind: 'native_effect',
          target: { kind: 'broadcast' },
          params: { mode: 0, brightness: 50 },
          flags_override: {},
        },
      ],
    });
  });

  it('names the action index and field in every refusal', () => {
    const cases: [unknown, RegExp][] = [
      [{}, /^actions: must be a list$/],
      [Array.from({ length: 21 }, () => ({ kind: 'sync' })), /^actions: too many actions: 21 > 20$/],
      [[1], /^actions\[0\]: must be an object$/],
      [
        [{ kind: 'dance' }],
        /^actions\[0\]\.kind: invalid action kind "dance"; expected one of native_preset/,
      ],
      [[{}], /^actions\[0\]\.kind: is required$/],
      [
        [{ kind: 'sync', target: { kind: 'broadcast' } }],
        /^actions\[0\]\.target: a sync action must not carry 'target'$/,
      ],
      [[{ kind: 'sync', foo: 1 }], /^actions\[0\]\.foo: unknown field/],
      [[{ kind: 'delay', duration_ms: 60001 }], /^actions\[0\]\.duration_ms: must be <= 60000$/],
      [[{ kind: 'delay', duration_ms: 1.5 }], /^actions\[0\]\.duration_ms: must be an integer$/],
      [
        [{ kind: 'delay', duration_ms: 5, target: {} }],
        /^actions\[0\]\.target: a delay action must not carry/,
      ],
      [[{ kind: 'led_preset' }], /^actions\[0\]\.target: a led_preset action requires a target$/],
      [[{ kind: 'led_preset', target: 'all' }], /^actions\[0\]\.target: must be an object with 'kind'$/],
      [
        [{ kind: 'led_preset', target: { kind: 'planet' } }],
        /^actions\[0\]\.target\.kind: invalid target kind "planet"/,
      ],
      [
        [{ kind: 'led_preset', target: { kind: 'groups', value: [] } }],
        /^actions\[0\]\.target\.value: must be a non-empty list/,
      ],
      [
        [{ kind: 'led_preset', target: { kind: 'groups', value: [1, 255] } }],
        /^actions\[0\]\.target\.value\[1\]: group id 255 out of range \[0\.\.254\]$/,
      ],
      [
        [{ kind: 'led_preset', target: { kind: 'groups', value: [2, 2] } }],
        /^actions\[0\]\.target\.value\[1\]: duplicate group id 2$/,
      ],
      [
        [{ kind: 'led_preset', target: { kind: 'groups', value: ['x'] } }],
        /^actions\[0\]\.target\.value\[0\]: must be an integer$/,
      ],
      [
        [{ kind: 'led_preset', target: { kind: 'device', value: 'xyz' } }],
        /^actions\[0\]\.target\.value: must be a device address/,
      ],
      [
        [{ kind: 'led_preset', target: { kind: 'broadcast' }, params: 3 }],
        /^actions\[0\]\.params: must be an object$/,
      ],
      [
        [{ kind: 'led_preset', target: { kind: 'broadcast' }, params: { brightness: 256 } }],
        /^actions\[0\]\.params\.brightness: must be <= 255$/,
      ],
      [
        [{ kind: 'led_preset', target: { kind: 'broadcast' }, params: { presetId: -1 } }],
        /^actions\[0\]\.params\.presetId: must be >= 0$/,
      ],
      [
        [{ kind: 'led_preset', target: { kind: 'broadcast' }, params: { bri: 1 } }],
        /^actions\[0\]\.params\.bri: unknown field/,
      ],
      [
        [{ kind: 'native_effect', target: { kind: 'broadcast' }, params: { speed: 300 } }],
        /^actions\[0\]\.params\.speed: must be <= 255$/,
      ],
      [
        [{ kind: 'native_effect', target: { kind: 'broadcast' }, params: { custom3: 32 } }],
        /^actions\[0\]\.params\.custom3: must be <= 31$/,
      ],
      [
        [{ kind: 'native_effect', target: { kind: 'broadcast' }, params: { mode: 11 } }],
        /^actions\[0\]\.params\.mode: unknown effect id 11$/,
      ],
      [
        [{ kind: 'native_effect', target: { kind: 'broadcast' }, params: { palette: 90 } }],
        /^actions\[0\]\.params\.palette: unknown palette id 90$/,
      ],
      [
        [{ kind: 'native_effect', target: { kind: 'broadcast' }, params: { color2: [1, 2] } }],
        /^actions\[0\]\.params\.color2: must be \[r,g,b\]/,
      ],
      [
        [{ kind: 'native_effect', target: { kind: 'broadcast' }, params: { color2: [1, 2, 999] } }],
        /^actions\[0\]\.params\.color2\[2\]: must be <= 255$/,
      ],
      [
        [{ kind: 'native_effect', target: { kind: 'broadcast' }, params: { check1: 'maybe' } }],
        /^actions\[0\]\.params\.check1: must be a boolean$/,
      ],
      [
        [{ kind: 'native_effect', target: { kind: 'broadcast' }, flags_override: { arm: true } }],
        /^actions\[0\]\.flags_override\.arm: unknown field/,
      ],
      [
        [{ kind: 'native_effect', target: { kind: 'broadcast' }, flags_override: 'yes' }],
        /^actions\[0\]\.flags_override: must be an object of booleans$/,
      ],
      [
        [{ kind: 'native_preset', target: { kind: 'broadcast' }, params: { presetId: {} } }],
        /^actions\[0\]\.params\.presetId: must be a preset id or key$/,
      ],
      [
        [{ kind: 'startblock', target: { kind: 'broadcast' }, params: { fn_key: 'x' } }],
        /^actions\[0\]\.params\.fn_key: must be 'startblock_control'$/,
      ],
      [
        [
          {
            kind: 'startblock',
            target: { kind: 'broadcast' },
            params: { startblock_slot_list: [[9, 'A', 'R1']] },
          },
        ],
        /^actions\[0\]\.params\.startblock_slot_list\[0\]\.slot: must be <= 8$/,
      ],
    ];
    for (const [input, re] of cases) expect(err(input), JSON.stringify(input)).toMatch(re);
  });

  it('refuses bad offset groups naming the field', () => {
    const og = (o: Record<string, unknown>) => [
      { kind: 'sync' },
      {
        kind: 'offset_group',
        target: { kind: 'groups', value: [1, 2] },
        offset: { mode: 'none' },
        actions: [],
        ...o,
      },
    ];
    const child = { kind: 'native_effect', target: { kind: 'broadcast' } };
    const cases: [unknown, RegExp][] = [
      [og({ params: {} }), /^actions\[1\]\.params: an offset_group action must not carry 'params'$/],
      [og({ target: undefined }), /^actions\[1\]\.target: is required/],
      [
        og({ target: { kind: 'device', value: 'AABBCC' } }),
        /^actions\[1\]\.target\.kind: an offset_group target cannot be 'device'/,
      ],
      [
        og({ target: { kind: 'groups', value: Array.from({ length: 65 }, (_, i) => i) } }),
        /^actions\[1\]\.target\.value: offset_group has 65 groups; max is 64$/,
      ],
      [og({ offset: undefined }), /^actions\[1\]\.offset: is required$/],
      [og({ offset: 'linear' }), /^actions\[1\]\.offset: must be an object$/],
      [
        og({ offset: { mode: 'zigzag' } }),
        /^actions\[1\]\.offset\.mode: "zigzag" is not one of none, linear, vshape, modulo, explicit$/,
      ],
      [
        og({ offset: { mode: 'linear', base_ms: 40000 } }),
        /^actions\[1\]\.offset\.base_ms: must be <= 32767$/,
      ],
      [
        og({ offset: { mode: 'linear', step_ms: -40000 } }),
        /^actions\[1\]\.offset\.step_ms: must be >= -32768$/,
      ],
      [og({ offset: { mode: 'vshape', center: 255 } }), /^actions\[1\]\.offset\.center: must be <= 254$/],
      [og({ offset: { mode: 'modulo', cycle: 0 } }), /^actions\[1\]\.offset\.cycle: must be >= 1$/],
      [
        og({ offset: { mode: 'explicit', values: [{ id: 1, offset_ms: 0 }] } }),
        /^actions\[1\]\.offset\.values: missing offsets for groups 2/,
      ],
      [
        og({
          offset: {
            mode: 'explicit',
            values: [
              { id: 1, offset_ms: 0 },
              { id: 1, offset_ms: 5 },
            ],
          },
        }),
        /^actions\[1\]\.offset\.values\[1\]\.id: duplicate group id 1$/,
      ],
      [
        og({ offset: { mode: 'explicit', values: [{ id: 3, offset_ms: 0 }] } }),
        /^actions\[1\]\.offset\.values\[0\]\.id: group 3 is not one of/,
      ],
      [
        og({
          offset: {
            mode: 'explicit',
            values: [
              { id: 1, offset_ms: 70000 },
              { id: 2, offset_ms: 0 },
            ],
          },
        }),
        /^actions\[1\]\.offset\.values\[0\]\.offset_ms: must be <= 65535$/,
      ],
      [og({ offset: { mode: 'explicit', values: {} } }), /^actions\[1\]\.offset\.values: must be a list/],
      [
        og({ target: { kind: 'broadcast' }, offset: { mode: 'explicit', values: [] } }),
        /^actions\[1\]\.offset\.values: explicit offsets need a groups target/,
      ],
      [og({ actions: {} }), /^actions\[1\]\.actions: must be a list$/],
      [
        og({ actions: Array.from({ length: 17 }, () => child) }),
        /^actions\[1\]\.actions: offset_group has 17 children; max is 16$/,
      ],
      [
        og({ actions: [{ kind: 'sync' }] }),
        /^actions\[1\]\.actions\[0\]\.kind: invalid action kind "sync"; expected one of native_preset, led_preset, native_effect$/,
      ],
      [
        og({ actions: [{ kind: 'led_preset' }] }),
        /^actions\[1\]\.actions\[0\]\.target: a led_preset action requires a target$/,
      ],
      [
        og({ actions: [{ ...child, target: { kind: 'groups', value: [2, 3] } }] }),
        /^actions\[1\]\.actions\[0\]\.target\.value: group 3 is not one of the offset_group's groups \[1, 2\]$/,
      ],
      [
        og({ actions: [{ ...child, params: { speed: -1 } }] }),
        /^actions\[1\]\.actions\[0\]\.params\.speed: must be >= 0$/,
      ],
    ];
    for (const [input, re] of cases) expect(err(input), JSON.stringify(input)).toMatch(re);
  });

  it('checks preset references only when asked, and drops unknown keys when lenient', () => {
    const a = [{ kind: 'native_preset', target: { kind: 'broadcast' }, params: { presetId: 'ghost' } }];
    expect(validateSceneActions(a)).toHaveLength(1);
    expect(err(a, { presetExists: (r: string) => r === '0' })).toBe(
      'actions[0].params.presetId: native preset "ghost" not found',
    );
    const stored = [
      { kind: 'led_preset', target: { kind: 'broadcast' }, params: { presetId: 2, extra: 1 }, x: 1 },
    ];
    expect(validateSceneActions(stored, { lenient: true })).toEqual([
      { kind: 'led_preset', target: { kind: 'broadcast' }, params: { presetId: 2 }, flags_override: {} },
    ]);
  });
});
