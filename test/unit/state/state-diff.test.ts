import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { defaultConsoleSettings } from '../../../src/domain/console-settings.ts';
import { newDevice, type StateModel } from '../../../src/domain/model.ts';
import { DirtyTracker } from '../../../src/state/dirty.ts';
import { applyOps, diffState, jsonCopy, jsonEqual } from '../../../src/state/state-diff.ts';

const addr = (i: number): string => (0x100000 + i).toString(16).toUpperCase().slice(-6);

function state(n: number): StateModel {
  return {
    devices: Array.from({ length: n }, (_, i) => newDevice(addr(i), null, 12)),
    groups: [{ id: 1, name: 'A', dev_type: 0 }],
    native_presets: [],
    scenes: [],
    settings: { led_presets_file: null },
    console: defaultConsoleSettings(),
    networks: [],
  };
}

describe('state diff (journal records)', () => {
  it('a-renamed-device-is-one-put-and-replays-to-the-same-state', () => {
    const image = jsonCopy(state(50));
    const model = jsonCopy(image);
    (model.devices[7] as { name: string }).name = 'renamed';
    const ops = diffState(image, model);
    expect(ops).toEqual([{ s: 'devices', put: [model.devices[7]] }]);
    expect(jsonEqual(applyOps(image, ops), model)).toBe(true);
  });

  it('the-hinted-path-sees-the-hinted-device-and-new-ones-at-the-end', () => {
    const image = jsonCopy(state(20));
    const model = jsonCopy(image);
    const d = model.devices[3] as { name: string };
    d.name = 'x';
    const fresh = newDevice('ABCDEF', null, 12);
    model.devices.push(fresh);
    const t = new DirtyTracker();
    t.mark(['DEVICES'], [d, fresh]);
    const ops = diffState(image, model, t.take(false));
    expect(ops).toEqual([{ s: 'devices', put: [model.devices[3], fresh] }]);
    expect(jsonEqual(applyOps(image, ops), model)).toBe(true);
  });

  it('deletes-reorders-and-whole-sections-replay-exactly', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat(30), { maxLength: 12 }),
        fc.array(fc.nat(30), { maxLength: 12 }),
        fc.string(),
        (a, b, name) => {
          const mk = (ids: number[]): StateModel => {
            const s = state(0);
            for (const i of new Set(ids)) s.devices.push(newDevice(addr(i), null, i % 3));
            s.groups[0] = { id: 1, name: name || 'A', dev_type: 0 };
            return s;
          };
          const image = jsonCopy(mk(a));
          const model = mk(b);
          const out = applyOps(image, diffState(image, model));
          expect(jsonEqual(out, model)).toBe(true);
          // The image itself was not touched (copy-on-write).
          expect(jsonEqual(image, mk(a))).toBe(true);
        },
      ),
    );
  });

  it('undefined-fields-count-as-absent', () => {
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 2 })).toBe(false);
    expect(jsonEqual([1, { x: [2] }], [1, { x: [2] }])).toBe(true);
  });
});
