/** The planner's savings over the original plan (decisions §11), and what stays exact. */
import { describe, expect, it } from 'vitest';
import type { ActionTarget, OffsetChildAction, SceneAction } from '../../../src/domain/scenes/types.ts';
import { FLAG } from '../../../src/protocol/flags.ts';
import { B, ctx, devicesIn, G, plan, preset, range, wire } from './plan-helpers.ts';

const armed = (target: ActionTarget): OffsetChildAction => ({
  kind: 'native_effect',
  target,
  params: { mode: 2, brightness: 200 },
  flags_override: { arm_on_sync: true },
});

const cascade = (groups: number[], children: OffsetChildAction[]): SceneAction => ({
  kind: 'offset_group',
  target: G(...groups),
  offset: { mode: 'linear', base_ms: 0, step_ms: 100 },
  actions: children,
});

describe('dispatch planner: fewer packets than the original', () => {
  it('children covering every participant go out once as a broadcast (11 → 5 packets)', () => {
    const scene = [cascade(range(1, 7), [armed(G(...range(1, 7)))])];
    const devices = devicesIn(range(1, 10));
    const orig = plan(scene, ctx(devices, false));
    const ours = plan(scene, ctx(devices, true));
    expect(orig[0]?.frames).toHaveLength(11);
    expect(wire(ours)).toEqual(['OFFSET@255:6', 'OFFSET@8:2', 'OFFSET@9:2', 'OFFSET@10:2', 'CONTROL@255:5']);
    const flags = ours[0]?.frames[4]?.body[1] ?? 0;
    expect(flags & FLAG.OFFSET_MODE).toBe(FLAG.OFFSET_MODE);
    expect(flags & FLAG.ARM_ON_SYNC).toBe(FLAG.ARM_ON_SYNC);
  });

  it('phase 1 is chosen together with the children: C plus one broadcast child beats B', () => {
    // Groups 1-6 of 12: B alone is cheaper (6 < 7 packets), but B keeps 6 child packets.
    const scene = [cascade(range(1, 6), [armed(G(...range(1, 6)))])];
    const devices = devicesIn(range(1, 12));
    expect(plan(scene, ctx(devices, false))[0]?.frames).toHaveLength(12);
    const ours = plan(scene, ctx(devices, true));
    expect(ours[0]?.frames).toHaveLength(8);
    expect(ours[0]?.detail.wire_path).toBe('C_formula_plus_overrides');
  });

  it('a child covering only part of the participants stays per group', () => {
    const ours = plan([cascade(range(1, 7), [armed(G(1, 2))])], ctx(devicesIn(range(1, 10)), true));
    expect(wire(ours).slice(4)).toEqual(['CONTROL@1:5', 'CONTROL@2:5']);
  });

  it('no child collapse after per-group offsets (other groups may still be in offset mode)', () => {
    const ours = plan([cascade([1, 5], [armed(G(1, 5))])], ctx(devicesIn(range(1, 6)), true));
    expect(wire(ours)).toEqual(['OFFSET@1:4', 'OFFSET@5:4', 'CONTROL@1:5', 'CONTROL@5:5']);
  });

  it('an all-known-groups target becomes one broadcast, unless a group change is unconfirmed', () => {
    const scene: SceneAction[] = [
      {
        kind: 'led_preset',
        target: G(...range(1, 4)),
        params: { presetId: 3, brightness: 90 },
        flags_override: {},
      },
    ];
    expect(wire(plan(scene, ctx(devicesIn(range(1, 4)), true)))).toEqual(['PRESET@255:4']);
    expect(wire(plan(scene, ctx(devicesIn(range(1, 4)), false)))).toHaveLength(4);
    const pending = devicesIn(range(1, 4)).map((d, i) => ({ ...d, groupPending: i === 0 }));
    expect(wire(plan(scene, ctx(pending, true)))).toHaveLength(4);
    // Group 0 (unconfigured devices) is a known group too: not covered → per group.
    expect(wire(plan(scene, ctx(devicesIn(range(0, 4)), true)))).toHaveLength(4);
  });

  it('fields the effect ignores are left out: a full Breathe preset shrinks from 21 to 14 bytes', () => {
    const full = preset(1, 'breathe', {
      mode: 2,
      speed: 100,
      intensity: 50,
      custom1: 1,
      custom2: 2,
      custom3: 3,
      check1: true,
      check2: true,
      check3: true,
      palette: 0,
      color1: [0, 255, 0],
      color2: [0, 0, 0],
      color3: [9, 9, 9],
      brightness: 200,
    });
    const scene: SceneAction[] = [
      { kind: 'native_preset', target: B, params: { presetId: '1' }, flags_override: {} },
    ];
    expect(wire(plan(scene, ctx([], false, [full])))).toEqual(['CONTROL@255:21']);
    expect(wire(plan(scene, ctx([], true, [full])))).toEqual(['CONTROL@255:14']);
    // A colour-derived palette (4: colours 1-3) keeps color3 although Breathe does not use it.
    const pal4 = { ...full, params: { ...full.params, palette: 4 } };
    expect(wire(plan(scene, ctx([], true, [pal4])))).toEqual(['CONTROL@255:17']);
  });

  it('without a mode the node effect is unknown: nothing is pruned', () => {
    const scene: SceneAction[] = [
      { kind: 'native_effect', target: B, params: { speed: 5, custom1: 9 }, flags_override: {} },
    ];
    expect(wire(plan(scene, ctx([], true)))).toEqual(['CONTROL@255:5']);
  });
});

describe('dispatch planner: exact frames', () => {
  it('flags: override beats the preset, offset_mode is forced inside a container, brightness-less keeps power on', () => {
    const p = preset(3, 'p', { mode: 0, brightness: 0 }, 0x02 | 0x08);
    const scene: SceneAction[] = [
      {
        kind: 'native_preset',
        target: B,
        params: { presetId: 'RL:p' },
        flags_override: { arm_on_sync: false },
      },
      {
        kind: 'offset_group',
        target: B,
        offset: { mode: 'none' },
        actions: [
          { kind: 'native_effect', target: B, params: { mode: 1 }, flags_override: { offset_mode: true } },
        ],
      },
    ];
    const out = plan(scene, ctx([], true, [p]));
    expect(out[0]?.frames[0]?.body[1]).toBe(FLAG.HAS_BRI | FLAG.FORCE_TT0); // brightness 0: power off
    expect(out[0]?.detail).toMatchObject({ preset_key: 'p', preset_id: 3 });
    expect(out[1]?.frames[1]?.body[1]).toBe(FLAG.HAS_BRI | FLAG.POWER_ON);
  });

  it('warns when an earlier offset_group left the target groups in offset mode', () => {
    const out = plan(
      [
        cascade([1, 2], [armed(G(1, 2))]),
        { kind: 'sync' },
        { kind: 'native_effect', target: G(2, 3), params: { mode: 0 }, flags_override: {} },
        { kind: 'native_effect', target: G(1), params: { mode: 0 }, flags_override: { offset_mode: true } },
      ],
      ctx(devicesIn(range(1, 3)), true),
    );
    expect(out[2]?.detail.warning).toMatch(/^groups 2 are left in the other offset mode/);
    expect(out[3]?.detail.warning).toBeUndefined();
  });

  it('unknown device, missing and unknown presets degrade the action (nothing sent)', () => {
    const scene: SceneAction[] = [
      { kind: 'native_effect', target: { kind: 'device', value: 'ABCDEF' }, params: {}, flags_override: {} },
      { kind: 'native_preset', target: B, params: {}, flags_override: {} },
      { kind: 'native_preset', target: B, params: { presetId: 'ghost' }, flags_override: {} },
    ];
    const out = plan(scene, ctx([], true));
    expect(out.map((a) => a.degraded)).toEqual([
      'target_not_found',
      'missing_preset_id',
      'preset_not_found: ghost',
    ]);
    expect(out.every((a) => a.frames.length === 0)).toBe(true);
  });

  it('a device target carries the device stored group and is unicast', () => {
    const devices = devicesIn(
      [3],
      [{ addr: 'ABCDEF', groupId: 7, groupPending: false, brightness: 5, startblock: null }],
    );
    const out = plan(
      [
        {
          kind: 'led_preset',
          target: { kind: 'device', value: 'ABCDEF' },
          params: { presetId: 2 },
          flags_override: {},
        },
      ],
      ctx(devices, true),
    );
    expect(out[0]?.frames[0]?.receiver).toBe('ABCDEF');
    // No brightness in the action: the device's own (5) is sent, so it stays as bright as it is.
    expect([...(out[0]?.frames[0]?.body ?? [])]).toEqual([7, FLAG.HAS_BRI | FLAG.POWER_ON, 2, 5]);
  });

  it('SYNC: 5-byte trigger form, brightness of the last PRESET of the scene', () => {
    const out = plan(
      [
        { kind: 'led_preset', target: B, params: { presetId: 2, brightness: 77 }, flags_override: {} },
        { kind: 'sync' },
      ],
      ctx([], true),
    );
    expect([...(out[1]?.frames[0]?.body ?? [])]).toEqual([0, 0, 0, 77, 1]);
  });

  it('startblock: one STREAM record per covered slot of every start-block device reached', () => {
    const devices = devicesIn(
      [1],
      [
        {
          addr: 'ABC001',
          groupId: 2,
          groupPending: false,
          brightness: 1,
          startblock: { first: 3, slots: 2 },
        },
      ],
    );
    const out = plan(
      [
        {
          kind: 'startblock',
          target: G(1, 2),
          params: {
            fn_key: 'startblock_control',
            startblock_use_current_heat: false,
            startblock_slot_list: [{ slot: 3, callsign: 'Ace ü', racechannel: 'r1' }],
          },
        },
      ],
      ctx(devices, true),
    );
    const frames = out[0]?.frames ?? [];
    expect(frames.map((f) => f.receiver)).toEqual(['ABC001', 'ABC001']);
    expect([...(frames[0]?.body ?? [])]).toEqual([1, 3, 0x52, 0x31, 5, 0x41, 0x43, 0x45, 0x20, 0x20]);
    expect([...(frames[1]?.body ?? [])]).toEqual([1, 4, 0x2d, 0x2d, 0]);
  });
});
