/**
 * Scenes across several networks: each network planned with its own devices, SYNC only to
 * the scene's networks, the estimate's critical path, the scope check at save, and the
 * one-network plan left exactly as it was (golden comparison).
 */
import { describe, expect, it } from 'vitest';
import type { SceneAction } from '../../../src/domain/scenes/types.ts';
import { ValidationError } from '../../../src/errors.ts';
import { estimateCost, parallelAirtimeMs } from '../../../src/services/scenes/cost-estimator.ts';
import type { PlanContext, PlanDevice, PlannedAction } from '../../../src/services/scenes/plan/planner.ts';
import { checkScope } from '../../../src/services/scenes/scope.ts';
import { B, ctx, DEFAULT_LORA_INFO, devicesIn, G, plan, preset, range, wire } from './plan-helpers.ts';

const dev = (addr: string, groupId: number, network: number, brightness = 128): PlanDevice => ({
  addr,
  groupId,
  groupPending: false,
  brightness,
  startblock: null,
  network,
});

/** Network 1 "Track A": groups 1 and 2; network 2 "Track B": groups 2 and 3. */
const FLEET: PlanDevice[] = [
  dev('A00001', 1, 1),
  dev('A00002', 2, 1),
  dev('B00002', 2, 2),
  dev('B00003', 3, 2),
];
const NETS = [
  { id: 1, name: 'Track A' },
  { id: 2, name: 'Track B' },
];

function twoNets(scope: number[] | null = null, devices: PlanDevice[] = FLEET, optimize = true): PlanContext {
  return { ...ctx(devices, optimize, [P7]), networks: NETS, scope };
}

const P7 = preset(7, 'p7', { mode: 2, brightness: 90 });
const fx = (target: SceneAction extends infer A ? (A extends { target: infer T } ? T : never) : never) =>
  ({ kind: 'native_effect', target, params: { mode: 1, brightness: 50 }, flags_override: {} }) as SceneAction;
/** Every CONTROL field (the estimator's example E15: 21-byte body, 66.816 ms at SF7). */
const ALL14 = {
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
  color1: [255, 0, 0] as [number, number, number],
  color2: [0, 0, 0] as [number, number, number],
  color3: [0, 0, 0] as [number, number, number],
  brightness: 200,
};

const byNetwork = (p: readonly PlannedAction[]): Record<number, string[]> => {
  const out: Record<number, string[]> = {};
  for (const a of p)
    for (const f of a.frames) (out[f.network ?? 0] ??= []).push(wire([{ ...a, frames: [f] }])[0] ?? '?');
  return out;
};

describe('planner across networks', () => {
  it('one network plans exactly as before (golden): same frames, same bytes, same estimate', () => {
    const scenes: SceneAction[][] = [
      [fx(B), { kind: 'sync' }],
      [fx(G(1, 2, 3)), { kind: 'delay', duration_ms: 250 }, fx({ kind: 'device', value: '000002' })],
      [
        {
          kind: 'offset_group',
          target: G(...range(1, 5)),
          offset: { mode: 'linear', base_ms: 0, step_ms: 100 },
          actions: [{ kind: 'native_preset', target: B, params: { presetId: '7' }, flags_override: {} }],
        },
        { kind: 'led_preset', target: G(2), params: { presetId: 3 }, flags_override: {} },
        { kind: 'sync' },
      ],
    ];
    const devices = devicesIn(range(1, 5));
    for (const actions of scenes) {
      const today = plan(actions, ctx(devices, true, [P7]));
      // A Radio with one network hands the planner one network (or none): no fan-out.
      const one = plan(actions, {
        ...ctx(
          devices.map((d) => ({ ...d, network: 1 })),
          true,
          [P7],
        ),
        networks: [NETS[0]!],
      });
      expect(JSON.stringify(one)).toBe(JSON.stringify(today));
      expect(
        today.every((a) => a.parts === undefined && a.frames.every((f) => f.network === undefined)),
      ).toBe(true);
      const e = estimateCost(today, DEFAULT_LORA_INFO);
      expect(e.per_network).toBeUndefined();
      expect(estimateCost(one, DEFAULT_LORA_INFO)).toEqual(e);
    }
  });

  it('a group spanning two networks is one frame per network; a group on one network stays there', () => {
    const p = plan([fx(G(2)), fx(G(1))], twoNets());
    expect(p[0]?.parts?.map((x) => [x.network, x.frames.length])).toEqual([
      [1, 1],
      [2, 1],
    ]);
    expect(p[1]?.parts?.map((x) => x.network)).toEqual([1]);
    // Groups 1+2 on network 1 are all of its known groups: one broadcast there; network 2
    // holds only group 2 of the target, addressed as group 2.
    const q = plan([fx(G(1, 2))], twoNets());
    expect(byNetwork(q)).toEqual({ 1: ['CONTROL@255:5'], 2: ['CONTROL@2:5'] });
  });

  it('SYNC goes only to the scene networks: auto from its targets, explicit, all for sync-only', () => {
    const onB: SceneAction[] = [fx({ kind: 'device', value: 'B00003' }), { kind: 'sync' }];
    expect(plan(onB, twoNets())[1]?.frames.map((f) => f.network)).toEqual([2]);
    // Broadcast target: every network.
    expect(plan([fx(B), { kind: 'sync' }], twoNets())[1]?.frames.map((f) => f.network)).toEqual([1, 2]);
    // The explicit scope restricts broadcasts and SYNC.
    const scoped = plan([fx(B), { kind: 'sync' }], twoNets([1]));
    expect(scoped.map((a) => a.frames.map((f) => f.network))).toEqual([[1], [1]]);
    // A sync-only scene with no explicit scope: every network; with one: only those.
    expect(plan([{ kind: 'sync' }], twoNets())[0]?.frames.map((f) => f.network)).toEqual([1, 2]);
    expect(plan([{ kind: 'sync' }], twoNets([2]))[0]?.frames.map((f) => f.network)).toEqual([2]);
  });

  it('an explicit scope naming no active network reaches none (never widened to all)', () => {
    const p = plan([fx(B), { kind: 'sync' }, { kind: 'delay', duration_ms: 5 }], twoNets([7]));
    expect(p.map((x) => [x.degraded, x.frames.length])).toEqual([
      ['no_network_in_scope', 0],
      ['no_network_in_scope', 0],
      [null, 0],
    ]);
  });

  it('each network keeps its own autosync brightness for the SYNC', () => {
    const p = plan(
      [
        { kind: 'led_preset', target: G(1), params: { presetId: 3, brightness: 40 }, flags_override: {} },
        { kind: 'led_preset', target: G(3), params: { presetId: 3, brightness: 200 }, flags_override: {} },
        { kind: 'sync' },
      ],
      twoNets(),
    );
    const sync = p[2]?.frames.map((f) => [f.network, f.request.op === 'SYNC' ? f.request.brightness : -1]);
    expect(sync).toEqual([
      [1, 40],
      [2, 200],
    ]);
  });

  it('an offset cascade continues across networks with the global group ids; a child device stays on its network', () => {
    const p = plan(
      [
        {
          kind: 'offset_group',
          target: G(1, 2, 3),
          offset: { mode: 'linear', base_ms: 0, step_ms: 100 },
          actions: [
            { kind: 'native_preset', target: G(1, 2, 3), params: { presetId: '7' }, flags_override: {} },
            {
              kind: 'native_effect',
              target: { kind: 'device', value: 'B00003' },
              params: { mode: 1 },
              flags_override: {},
            },
          ],
        },
      ],
      twoNets(),
    );
    const a = p[0]!;
    expect(a.degraded).toBeNull();
    expect(a.parts?.map((x) => x.network)).toEqual([1, 2]);
    const unicasts = a.frames.filter((f) => f.receiver === 'B00003');
    expect(unicasts.map((f) => f.network)).toEqual([2]);
    // The formula's OFFSET packets name the same groups' global ids on each network.
    const offsets = a.frames.filter((f) => f.request.op === 'OFFSET');
    expect(new Set(offsets.map((f) => f.network))).toEqual(new Set([1, 2]));
  });

  it('an unknown device is degraded once; a missing preset degrades the whole action', () => {
    const p = plan(
      [
        fx({ kind: 'device', value: 'FFFF00' }),
        { kind: 'native_preset', target: B, params: { presetId: 'nope' }, flags_override: {} },
      ],
      twoNets(),
    );
    expect(p.map((a) => a.degraded)).toEqual(['target_not_found', 'preset_not_found: nope']);
    expect(p.every((a) => a.frames.length === 0)).toBe(true);
  });
});

describe('estimate across networks', () => {
  it('worst-case broadcast CONTROL on two networks: 2 packets, summed airtime, wall of one frame', () => {
    const p = plan(
      [{ kind: 'native_effect', target: B, params: { ...ALL14 }, flags_override: {} }],
      twoNets(null, FLEET, false),
    );
    const e = estimateCost(p, DEFAULT_LORA_INFO, () => DEFAULT_LORA_INFO);
    // One network: 1 packet, 66.816 ms air, 78.816 wall (estimator example E15).
    expect(e.total).toMatchObject({ packets: 2, bytes: 60, airtime_ms: 134, wall_clock_ms: 79 });
    // A race start's lead: one SYNC's air (they go out in parallel), not the sum.
    expect(parallelAirtimeMs(e)).toBe(67);
    expect(e.per_network).toEqual([
      { network_id: 1, packets: 1, bytes: 30, airtime_ms: 67, wall_clock_ms: 79, lora: DEFAULT_LORA_INFO },
      { network_id: 2, packets: 1, bytes: 30, airtime_ms: 67, wall_clock_ms: 79, lora: DEFAULT_LORA_INFO },
    ]);
  });

  it('wall clock = Σ over actions of the slowest network; each network priced with its own RF', () => {
    const slow = { ...DEFAULT_LORA_INFO, sf: 9, low_dr_opt: false };
    const p = plan(
      [fx(G(1, 2)), { kind: 'delay', duration_ms: 100 }, fx({ kind: 'device', value: 'B00003' })],
      twoNets(),
    );
    const e = estimateCost(p, DEFAULT_LORA_INFO, (id) => (id === 2 ? slow : DEFAULT_LORA_INFO));
    const [a0, a1, a2] = e.per_action;
    // Action 0: network 1 one frame at SF7, network 2 one frame at SF9 (slower): its wall.
    const alone = (lora: typeof DEFAULT_LORA_INFO, actions: SceneAction[], devices: PlanDevice[]) =>
      estimateCost(plan(actions, ctx(devices, true)), lora).total;
    const b = alone(slow, [fx(G(2))], [dev('B00002', 2, 2), dev('B00003', 3, 2)]);
    expect(a0?.wall_clock_ms).toBe(b.wall_clock_ms);
    expect(a0?.packets).toBe(2);
    expect(a1?.wall_clock_ms).toBe(100);
    expect(a2?.packets).toBe(1);
    const n2 = e.per_network?.find((n) => n.network_id === 2);
    expect(n2?.packets).toBe(2);
    expect(n2?.lora.sf).toBe(9);
    // Network 1's own path includes the delay (the barrier) but not network 2's frames.
    const n1 = e.per_network?.find((n) => n.network_id === 1);
    expect(n1?.packets).toBe(1);
    expect(n1!.wall_clock_ms).toBeLessThan(e.total.wall_clock_ms);
  });
});

describe('explicit scope at save', () => {
  it('accepts automatic and valid lists, refuses unknown ids and targets outside the scope naming the field', () => {
    const c = twoNets();
    expect(checkScope(undefined, [], c)).toBeNull();
    expect(checkScope([2, 1, 2], [fx(B)], c)).toEqual([1, 2]);
    expect(() => checkScope([], [], c)).toThrow(ValidationError);
    expect(() => checkScope([3], [], c)).toThrow(/networks\[0\]: no network 3/);
    expect(() => checkScope(['x'], [], c)).toThrow(/networks\[0\]/);
    expect(() => checkScope([1], [fx({ kind: 'device', value: 'B00003' })], c)).toThrow(
      /actions\[0\]\.target: device B00003 is on Track B/,
    );
    expect(() => checkScope([1], [fx(G(3))], c)).toThrow(/actions\[0\]\.target: group 3/);
    // A group with members on both networks is allowed (the scope restricts it).
    expect(checkScope([1], [fx(G(2))], c)).toEqual([1]);
    const nested: SceneAction = {
      kind: 'offset_group',
      target: G(2),
      offset: { mode: 'none' },
      actions: [fx({ kind: 'device', value: 'B00002' }) as never],
    };
    expect(() => checkScope([1], [nested], c)).toThrow(/actions\[0\]\.actions\[0\]\.target/);
  });
});
