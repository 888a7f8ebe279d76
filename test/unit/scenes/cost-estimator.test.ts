/**
 * The worked examples of the scenes reference (§8.3), priced from the planner's frame
 * list. With optimizations off the planner reproduces the original host's plan, so every
 * number must match the reference exactly; where ours differs, the test says how.
 */
import { describe, expect, it } from 'vitest';
import type { NativeEffectParams } from '../../../src/domain/scenes/native-preset.ts';
import type { ActionTarget, NativeEffectAction, SceneAction } from '../../../src/domain/scenes/types.ts';
import { estimateCost, exactActionCost, loraInfo } from '../../../src/services/scenes/cost-estimator.ts';
import { DEFAULT_RF } from '../../../src/protocol/types.ts';
import { B, ctx, DEFAULT_LORA_INFO, devicesIn, G, plan, preset, range, wire } from './plan-helpers.ts';

const fx = (params: NativeEffectParams, target: ActionTarget = B): NativeEffectAction => ({
  kind: 'native_effect',
  target,
  params,
  flags_override: {},
});

interface Example {
  id: string;
  actions: SceneAction[];
  known: number[];
  packets: number;
  bytes: number;
  airtime: number;
  wall: number;
  wire: string[];
}

const P42 = preset(42, 'p42', {
  mode: 5,
  speed: 200,
  intensity: 180,
  brightness: 220,
  palette: 4,
  color1: [255, 0, 0],
  color2: [0, 255, 0],
  color3: [0, 0, 255],
});
const RACE = preset(
  7,
  'race',
  { mode: 2, speed: 128, intensity: 100, palette: 0, color1: [0, 255, 0], brightness: 200 },
  0x02,
);
const ALL14: NativeEffectParams = {
  mode: 2,
  speed: 128,
  intensity: 128,
  custom1: 1,
  custom2: 2,
  custom3: 3,
  check1: true,
  check2: false,
  check3: false,
  palette: 0,
  color1: [255, 0, 0],
  color2: [0, 0, 0],
  color3: [0, 0, 0],
  brightness: 200,
};

const EXAMPLES: Example[] = [
  {
    id: 'E1',
    actions: [{ kind: 'sync' }],
    known: [],
    packets: 1,
    bytes: 14,
    airtime: 41.216,
    wall: 53.216,
    wire: ['SYNC@255:5'],
  },
  {
    id: 'E2',
    actions: [{ kind: 'delay', duration_ms: 250 }],
    known: [],
    packets: 0,
    bytes: 0,
    airtime: 250,
    wall: 250,
    wire: [],
  },
  {
    id: 'E3',
    actions: [
      { kind: 'led_preset', target: G(1), params: { presetId: 7, brightness: 128 }, flags_override: {} },
    ],
    known: [],
    packets: 1,
    bytes: 13,
    airtime: 41.216,
    wall: 53.216,
    wire: ['PRESET@1:4'],
  },
  {
    id: 'E4a',
    actions: [fx({}, G(1))],
    known: [],
    packets: 1,
    bytes: 12,
    airtime: 41.216,
    wall: 53.216,
    wire: ['CONTROL@1:3'],
  },
  {
    id: 'E4b',
    actions: [fx({ mode: 5, brightness: 200, color1: [255, 0, 0] }, G(1))],
    known: [],
    packets: 1,
    bytes: 18,
    airtime: 51.456,
    wall: 63.456,
    wire: ['CONTROL@1:9'],
  },
  {
    id: 'E5b',
    actions: [{ kind: 'native_preset', target: G(1), params: { presetId: '42' }, flags_override: {} }],
    known: [],
    packets: 1,
    bytes: 27,
    airtime: 61.696,
    wall: 73.696,
    wire: ['CONTROL@1:18'],
  },
  {
    id: 'E6',
    actions: [
      {
        kind: 'offset_group',
        target: B,
        offset: { mode: 'linear', base_ms: 0, step_ms: 100 },
        actions: [
          { kind: 'native_effect', target: B, params: { mode: 5 }, flags_override: {} },
          { kind: 'led_preset', target: B, params: { presetId: 3, brightness: 100 }, flags_override: {} },
        ],
      },
    ],
    known: range(1, 4),
    packets: 3,
    bytes: 41,
    airtime: 128.768,
    wall: 164.768,
    wire: ['OFFSET@255:6', 'CONTROL@255:4', 'PRESET@255:4'],
  },
  {
    id: 'E7',
    actions: [
      {
        kind: 'offset_group',
        target: G(1, 3, 5),
        offset: {
          mode: 'explicit',
          values: [
            { id: 1, offset_ms: 0 },
            { id: 3, offset_ms: 100 },
            { id: 5, offset_ms: 250 },
          ],
        },
        actions: [fx({ mode: 5 })],
      },
    ],
    known: [],
    packets: 4,
    bytes: 52,
    airtime: 164.864,
    wall: 212.864,
    wire: ['OFFSET@1:4', 'OFFSET@3:4', 'OFFSET@5:4', 'CONTROL@255:4'],
  },
  {
    id: 'E8',
    actions: [{ kind: 'offset_group', target: B, offset: { mode: 'none' }, actions: [] }],
    known: range(0, 9),
    packets: 1,
    bytes: 11,
    airtime: 41.216,
    wall: 53.216,
    wire: ['OFFSET@255:2'],
  },
  {
    id: 'E9',
    actions: [fx({}, G(1, 3, 5))],
    known: [],
    packets: 3,
    bytes: 36,
    airtime: 123.648,
    wall: 159.648,
    wire: ['CONTROL@1:3', 'CONTROL@3:3', 'CONTROL@5:3'],
  },
  {
    id: 'E10',
    actions: [
      { kind: 'led_preset', target: G(1), params: { presetId: 7, brightness: 128 }, flags_override: {} },
      { kind: 'delay', duration_ms: 100 },
      { kind: 'sync' },
    ],
    known: [],
    packets: 2,
    bytes: 27,
    airtime: 182.432,
    wall: 206.432,
    wire: ['PRESET@1:4', 'SYNC@255:5'],
  },
  {
    id: 'E11',
    actions: [
      {
        kind: 'offset_group',
        target: G(...range(1, 7)),
        offset: { mode: 'linear', base_ms: 0, step_ms: 100 },
        actions: [fx({ mode: 5 })],
      },
    ],
    known: range(1, 10),
    packets: 5,
    bytes: 61,
    airtime: 211.2,
    wall: 271.2,
    wire: ['OFFSET@255:6', 'OFFSET@8:2', 'OFFSET@9:2', 'OFFSET@10:2', 'CONTROL@255:4'],
  },
  {
    id: 'E12',
    actions: [
      {
        kind: 'offset_group',
        target: G(1, 2, 3),
        offset: { mode: 'linear', base_ms: 0, step_ms: 100 },
        actions: [],
      },
    ],
    known: range(1, 5),
    packets: 3,
    bytes: 37,
    airtime: 128.768,
    wall: 164.768,
    wire: ['OFFSET@255:6', 'OFFSET@4:2', 'OFFSET@5:2'],
  },
  {
    id: 'E13',
    actions: [
      {
        kind: 'offset_group',
        target: G(1, 5),
        offset: { mode: 'linear', base_ms: 0, step_ms: 100 },
        actions: [],
      },
    ],
    known: range(1, 6),
    packets: 2,
    bytes: 26,
    airtime: 82.432,
    wall: 106.432,
    wire: ['OFFSET@1:4', 'OFFSET@5:4'],
  },
  {
    id: 'E14',
    actions: [
      {
        kind: 'offset_group',
        target: G(...range(1, 5)),
        offset: { mode: 'linear', base_ms: 0, step_ms: 100 },
        actions: [],
      },
    ],
    known: range(1, 6),
    packets: 2,
    bytes: 26,
    airtime: 87.552,
    wall: 111.552,
    wire: ['OFFSET@255:6', 'OFFSET@6:2'],
  },
  {
    id: 'E15',
    actions: [fx(ALL14)],
    known: [],
    packets: 1,
    bytes: 30,
    airtime: 66.816,
    wall: 78.816,
    wire: ['CONTROL@255:21'],
  },
  {
    id: 'E16',
    actions: [
      {
        kind: 'offset_group',
        target: B,
        offset: { mode: 'linear', base_ms: 0, step_ms: 200 },
        actions: [{ kind: 'native_preset', target: B, params: { presetId: '7' }, flags_override: {} }],
      },
      { kind: 'delay', duration_ms: 1000 },
      { kind: 'sync' },
    ],
    known: range(1, 3),
    packets: 3,
    bytes: 50,
    airtime: 1139.008,
    wall: 1175.008,
    wire: ['OFFSET@255:6', 'CONTROL@255:12', 'SYNC@255:5'],
  },
  {
    id: 'E17',
    actions: [
      {
        kind: 'offset_group',
        target: G(...range(2, 9)),
        offset: { mode: 'vshape', base_ms: 0, step_ms: 150, center: 5 },
        actions: [
          {
            kind: 'native_effect',
            target: { kind: 'device', value: 'AABBCC' },
            params: { mode: 35, brightness: 255 },
            flags_override: {},
          },
        ],
      },
    ],
    known: range(1, 10),
    packets: 4,
    bytes: 52,
    airtime: 169.984,
    wall: 217.984,
    wire: ['OFFSET@255:7', 'OFFSET@1:2', 'OFFSET@10:2', 'CONTROL@4:5'],
  },
];

describe('cost estimate: worked examples of the reference (original plan)', () => {
  it.each(EXAMPLES)('$id', (ex) => {
    // E17's device child sits in group 4, inside K = 1..10.
    const extra =
      ex.id === 'E17'
        ? [{ addr: 'AABBCC', groupId: 4, groupPending: false, brightness: 128, startblock: null }]
        : [];
    const c = ctx(devicesIn(ex.known, extra), false, [P42, RACE]);
    const p = plan(ex.actions, c);
    expect(wire(p)).toEqual(ex.wire);
    const est = estimateCost(p, DEFAULT_LORA_INFO);
    expect(est.total.packets).toBe(ex.packets);
    expect(est.total.bytes).toBe(ex.bytes);
    const exact = p.map((a) => exactActionCost(a, DEFAULT_LORA_INFO));
    expect(exact.reduce((n, e) => n + e.airtime, 0)).toBeCloseTo(ex.airtime, 9);
    expect(exact.reduce((n, e) => n + e.wall, 0)).toBeCloseTo(ex.wall, 9);
    // decisions §10: integers, rounded up once for the total.
    expect(est.total.airtime_ms).toBe(Math.ceil(ex.airtime - 1e-9));
    expect(est.total.wall_clock_ms).toBe(Math.ceil(ex.wall - 1e-9));
    expect(est.per_action).toHaveLength(ex.actions.length);
  });

  it('E10 per action: 53.216 / 100 / 53.216 → 54, 100, 54; the total 206.432 → 207', () => {
    const ex = EXAMPLES.find((e) => e.id === 'E10');
    const est = estimateCost(plan(ex?.actions ?? [], ctx([], false)), DEFAULT_LORA_INFO);
    expect(est.per_action.map((a) => a.wall_clock_ms)).toEqual([54, 100, 54]);
    expect(est.per_action.map((a) => a.airtime_ms)).toEqual([42, 100, 42]);
    expect(est.total.wall_clock_ms).toBe(207);
    expect(est.total.link_bytes).toBe(4 + 6 + 5 + 6);
    expect(est.total.radio_bytes).toBe(4 + 7 + 5 + 7);
  });

  it('E19: a degraded child makes the whole container send nothing, and the estimate says so', () => {
    const ex = EXAMPLES.find((e) => e.id === 'E17');
    const p = plan(ex?.actions ?? [], ctx(devicesIn(range(1, 10)), false));
    expect(p[0]?.degraded).toBe('degraded');
    const est = estimateCost(p, DEFAULT_LORA_INFO);
    expect(est.total.packets).toBe(0);
    expect(est.per_action[0]?.detail.degraded).toBe('degraded');
  });

  it('lora object: the gateway settings, and airtime follows them (SF9 is slower)', () => {
    expect(DEFAULT_LORA_INFO).toMatchObject({
      sf: 7,
      bw_hz: 125000,
      cr: 5,
      preamble_sym: 8,
      sync_word: 0x12,
      source: 'default',
    });
    const sf9 = loraInfo({ ...DEFAULT_RF, sf: 9, syncWord: 0x34 }, 'gateway');
    expect(sf9).toMatchObject({ sf: 9, sync_word: 0x34, source: 'gateway', low_dr_opt: false });
    const p = plan([{ kind: 'sync' }], ctx([], true));
    expect(estimateCost(p, sf9).total.airtime_ms).toBeGreaterThan(
      estimateCost(p, DEFAULT_LORA_INFO).total.airtime_ms * 3,
    );
    expect(loraInfo({ ...DEFAULT_RF, sf: 12 }, 'gateway').low_dr_opt).toBe(true);
  });
});
