import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renumberActions } from '../../../src/domain/scenes/renumber.ts';
import { validateSceneActions } from '../../../src/domain/scenes/validation.ts';

const gid = fc.integer({ min: 0, max: 254 });
const groupList = fc.uniqueArray(gid, { minLength: 1, maxLength: 8 });
const target = fc.oneof(
  fc.constant({ kind: 'broadcast' }),
  groupList.map((value) => ({ kind: 'groups', value })),
  fc.constantFrom('AABBCC', 'aa:bb:cc:dd:ee:ff').map((value) => ({ kind: 'device', value })),
);
const flags = fc.record(
  { arm_on_sync: fc.boolean(), force_tt0: fc.boolean(), offset_mode: fc.boolean() },
  { requiredKeys: [] },
);
const effectParams = fc.record(
  {
    mode: fc.constantFrom(0, 1, 2, 3, 65),
    speed: fc.integer({ min: 0, max: 255 }),
    custom3: fc.integer({ min: 0, max: 31 }),
    check2: fc.boolean(),
    palette: fc.integer({ min: 0, max: 71 }),
    color1: fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)),
    brightness: fc.integer({ min: 0, max: 255 }),
  },
  { requiredKeys: [] },
);
const effect = (t: fc.Arbitrary<unknown>) =>
  fc.oneof(
    fc.record({ kind: fc.constant('native_effect'), target: t, params: effectParams, flags_override: flags }),
    fc.record({
      kind: fc.constant('led_preset'),
      target: t,
      params: fc.record({ presetId: fc.nat(255), brightness: fc.nat(255) }, { requiredKeys: [] }),
      flags_override: flags,
    }),
    fc.record({
      kind: fc.constant('native_preset'),
      target: t,
      params: fc.record({ presetId: fc.nat(20).map(String) }),
    }),
  );
const offsetGroup = groupList.chain((groups) =>
  fc.record({
    kind: fc.constant('offset_group'),
    target: fc.constant({ kind: 'groups', value: groups }),
    offset: fc.oneof(
      fc.constant({ mode: 'none' }),
      fc.record({
        mode: fc.constant('linear'),
        base_ms: fc.integer({ min: -500, max: 500 }),
        step_ms: fc.nat(500),
      }),
      fc.record({ mode: fc.constant('vshape'), step_ms: fc.nat(500), center: gid }),
      fc.record({
        mode: fc.constant('modulo'),
        step_ms: fc.nat(500),
        cycle: fc.integer({ min: 1, max: 255 }),
      }),
      fc.array(fc.nat(65535), { minLength: groups.length, maxLength: groups.length }).map((ms) => ({
        mode: 'explicit',
        values: groups.map((id, i) => ({ id, offset_ms: ms[i] })).reverse(),
      })),
    ),
    actions: fc.array(
      effect(
        fc.oneof(
          fc.constant({ kind: 'broadcast' }),
          fc.subarray(groups, { minLength: 1 }).map((value) => ({ kind: 'groups', value })),
        ),
      ),
      { maxLength: 4 },
    ),
  }),
);
const action = fc.oneof(
  effect(target),
  fc.constant({ kind: 'sync' }),
  fc.nat(60000).map((duration_ms) => ({ kind: 'delay', duration_ms })),
  target.map((t) => ({ kind: 'startblock', target: t })),
  offsetGroup,
);
const scene = fc.array(action, { maxLength: 20 });

describe('scene validation properties', () => {
  it('canonical output is a fixed point', () => {
    fc.assert(
      fc.property(scene, (input) => {
        const canon = validateSceneActions(input);
        expect(validateSceneActions(JSON.parse(JSON.stringify(canon)))).toEqual(canon);
      }),
      { numRuns: 300 },
    );
  });

  it('renumbering a valid scene for any deleted group stays valid', () => {
    fc.assert(
      fc.property(scene, fc.integer({ min: 1, max: 254 }), (input, deleted) => {
        const canon = validateSceneActions(input);
        const next = renumberActions(canon, deleted);
        if (next) expect(() => validateSceneActions(next)).not.toThrow();
      }),
      { numRuns: 300 },
    );
  });
});
