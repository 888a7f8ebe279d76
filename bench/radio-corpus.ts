/**
 * Race-day scenes for the radio benchmark (fleet: groups 1..12). Written as an operator's
 * editor would send them; the benchmark validates them like a save.
 */
const range = (a: number, b: number): number[] => Array.from({ length: b - a + 1 }, (_, i) => a + i);
const G = (...value: number[]) => ({ kind: 'groups', value });
const ALL = G(...range(1, 12));
const B = { kind: 'broadcast' };
const preset = (target: unknown, presetId: string, flags: Record<string, boolean> = {}) => ({
  kind: 'native_preset',
  target,
  params: { presetId },
  flags_override: flags,
});
const effect = (target: unknown, params: Record<string, unknown>, flags: Record<string, boolean> = {}) => ({
  kind: 'native_effect',
  target,
  params,
  flags_override: flags,
});
const FULL_STROBE = {
  mode: 23,
  speed: 200,
  intensity: 128,
  custom1: 0,
  custom2: 0,
  custom3: 0,
  check1: false,
  check2: false,
  check3: false,
  palette: 0,
  color1: [255, 255, 255],
  color2: [0, 0, 0],
  color3: [0, 0, 0],
  brightness: 255,
};
const OFF = { mode: 0, brightness: 0 };
const group = (target: unknown, offset: unknown, actions: unknown[]) => ({
  kind: 'offset_group',
  target,
  offset,
  actions,
});
const linear = (base_ms: number, step_ms: number) => ({ mode: 'linear', base_ms, step_ms });
const explicit = (groups: number[], f: (g: number) => number) => ({
  mode: 'explicit',
  values: groups.map((id) => ({ id, offset_ms: f(id) })),
});
const delay = (ms: number) => ({ kind: 'delay', duration_ms: ms });
const sync = { kind: 'sync' };

export const CORPUS: [string, unknown[]][] = [
  ['start: broadcast cascade', [group(B, linear(0, 200), [preset(B, '0')]), delay(3000), sync]],
  ['start: all 12 groups listed', [group(ALL, linear(0, 200), [preset(ALL, '0')]), delay(3000), sync]],
  [
    'start: gates 1-8 of 12',
    [group(G(...range(1, 8)), linear(0, 150), [preset(G(...range(1, 8)), '0')]), delay(3000), sync],
  ],
  [
    'start: 3-2-1 lights + go',
    [
      preset(ALL, '1'),
      delay(1000),
      effect(ALL, { mode: 0, color1: [255, 160, 0], brightness: 255 }),
      delay(1000),
      group(ALL, linear(0, 0), [preset(ALL, '0')]),
      sync,
    ],
  ],
  [
    'sweep: linear 1-12',
    [group(ALL, linear(0, 50), [effect(ALL, { mode: 3, brightness: 200 }, { arm_on_sync: true })]), sync],
  ],
  [
    'sweep: vshape centre 6',
    [
      group(G(...range(1, 11)), { mode: 'vshape', base_ms: 0, step_ms: 120, center: 6 }, [
        preset(G(...range(1, 11)), '3'),
      ]),
      sync,
    ],
  ],
  [
    'sweep: modulo cycle 3',
    [group(ALL, { mode: 'modulo', base_ms: 0, step_ms: 300, cycle: 3 }, [preset(ALL, '3')]), sync],
  ],
  [
    'sweep: explicit, linear-shaped 1-10',
    [
      group(
        G(...range(1, 10)),
        explicit(range(1, 10), (g) => 100 * g),
        [preset(G(...range(1, 10)), '0')],
      ),
      sync,
    ],
  ],
  [
    'sweep: explicit, vshape-shaped 2-9',
    [
      group(
        G(...range(2, 9)),
        explicit(range(2, 9), (g) => 80 * Math.abs(g - 5)),
        [preset(G(...range(2, 9)), '0')],
      ),
      sync,
    ],
  ],
  [
    'sweep: explicit, modulo-shaped 1-12',
    [
      group(
        ALL,
        explicit(range(1, 12), (g) => 250 * (g % 4)),
        [preset(ALL, '3')],
      ),
      sync,
    ],
  ],
  [
    'sweep: explicit irregular [1,4,7,10]',
    [
      group(
        G(1, 4, 7, 10),
        explicit([1, 4, 7, 10], (g) => [0, 90, 400, 30][(g - 1) / 3] ?? 0),
        [preset(G(1, 4, 7, 10), '0')],
      ),
      sync,
    ],
  ],
  ['reset: offsets off, all groups', [group(ALL, { mode: 'none' }, [effect(ALL, OFF)])]],
  ['reset: offsets off, groups 2+5', [group(G(2, 5), { mode: 'none' }, [effect(G(2, 5), OFF)])]],
  [
    'mixed: LED preset all + effect 1-3 + one gate',
    [
      { kind: 'led_preset', target: ALL, params: { presetId: 4, brightness: 150 }, flags_override: {} },
      effect(G(1, 2, 3), { mode: 2, speed: 60, brightness: 200 }),
      effect({ kind: 'device', value: 'A00100' }, { mode: 0, color1: [255, 0, 0], brightness: 255 }),
    ],
  ],
  ['finish: strobe all, then off', [effect(ALL, FULL_STROBE), delay(5000), effect(ALL, OFF)]],
  [
    'finish: podium P1 P2 P3',
    [
      effect({ kind: 'device', value: 'A00100' }, { mode: 0, color1: [255, 215, 0], brightness: 255 }),
      effect({ kind: 'device', value: 'A00200' }, { mode: 0, color1: [192, 192, 192], brightness: 255 }),
      effect({ kind: 'device', value: 'A00300' }, { mode: 0, color1: [205, 127, 50], brightness: 255 }),
    ],
  ],
  [
    'sweep then reset',
    [
      group(ALL, linear(0, 100), [preset(ALL, '0')]),
      sync,
      delay(2000),
      group(ALL, { mode: 'none' }, [preset(ALL, '1')]),
    ],
  ],
  [
    'two cascades back to back',
    [
      group(G(...range(1, 6)), linear(0, 100), [preset(G(...range(1, 6)), '0')]),
      group(G(...range(7, 12)), linear(-700, 100), [preset(G(...range(7, 12)), '3')]),
      sync,
    ],
  ],
  ['all gates one full preset', [preset(ALL, '4'), sync]],
  [
    'sparse explicit, child per subset',
    [
      group(
        G(2, 4, 6, 8),
        explicit([2, 4, 6, 8], (g) => 50 * g),
        [preset(G(2, 4), '0'), preset(G(6, 8), '3')],
      ),
      sync,
    ],
  ],
  [
    'broadcast vshape, two children',
    [
      group(B, { mode: 'vshape', base_ms: 0, step_ms: 100, center: 6 }, [
        preset(B, '0'),
        { kind: 'led_preset', target: B, params: { presetId: 2, brightness: 100 }, flags_override: {} },
      ]),
      sync,
    ],
  ],
  [
    'halves: 1-6 red, 7-12 blue',
    [
      preset(G(...range(1, 6)), '1'),
      effect(G(...range(7, 12)), { ...FULL_STROBE, mode: 0, color1: [0, 0, 255] }),
    ],
  ],
  [
    'heat intro: wipe 1-12 armed + sync',
    [
      effect(ALL, { mode: 3, speed: 150, brightness: 220, color1: [0, 128, 255] }, { arm_on_sync: true }),
      sync,
    ],
  ],
];
