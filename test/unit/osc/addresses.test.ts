/** The OSC address space: each documented address, presses and releases, and refusals naming the problem. */
import { describe, expect, it } from 'vitest';
import { parseOsc } from '../../../src/services/osc/addresses.ts';
import { Coalescer } from '../../../src/util/coalesce.ts';

describe('osc addresses', () => {
  it('maps-every-documented-address', () => {
    expect(parseOsc('/lightnet/blackout', [])).toEqual({ ok: true, command: { kind: 'blackout' } });
    expect(parseOsc('/lightnet/flag/red', [1])).toEqual({
      ok: true,
      command: { kind: 'flag', action: 'red' },
    });
    expect(parseOsc('/lightnet/flag/clear', [])).toEqual({
      ok: true,
      command: { kind: 'flag', action: 'clear' },
    });
    expect(parseOsc('/lightnet/scene/warm-up/run', [])).toEqual({
      ok: true,
      command: { kind: 'scene_run', key: 'warm-up' },
    });
    expect(parseOsc('/lightnet/scene/stop', [])).toEqual({ ok: true, command: { kind: 'scene_stop' } });
    expect(parseOsc('/lightnet/group/3/preset', [7])).toEqual({
      ok: true,
      command: { kind: 'group_preset', group: 3, preset: 7, brightness: 255 },
    });
    expect(parseOsc('/lightnet/group/3/color', [255, 0.4, '10', 128])).toEqual({
      ok: true,
      command: { kind: 'group_color', group: 3, rgb: [255, 0, 10], brightness: 128 },
    });
    expect(parseOsc('/lightnet/group/0/off', [])).toEqual({
      ok: true,
      command: { kind: 'group_off', group: 0 },
    });
    expect(parseOsc('/lightnet/subscribe', [9000])).toEqual({
      ok: true,
      command: { kind: 'subscribe', port: 9000 },
    });
    expect(parseOsc('/lightnet/refresh', [])).toEqual({ ok: true, command: { kind: 'refresh' } });
  });

  it('a-release-does-nothing', () => {
    for (const v of [0, false, '0']) {
      expect(parseOsc('/lightnet/blackout', [v])).toEqual({ ok: true, command: null });
      expect(parseOsc('/lightnet/flag/red', [v])).toEqual({ ok: true, command: null });
    }
  });

  it('refuses-unknown-addresses-and-bad-arguments-naming-them', () => {
    const no = (a: string, args: unknown[], reason: string, re: RegExp) => {
      const r = parseOsc(a, args as never);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.reason).toBe(reason);
        expect(r.detail).toMatch(re);
      }
    };
    no('/other', [], 'unknown_address', /not under \/lightnet/);
    no('/lightnet/flag/blue', [], 'unknown_address', /flag must be one of green, yellow, red, clear/);
    no('/lightnet/group/3/dance', [], 'unknown_address', /unknown address/);
    no('/lightnet/group/255/off', [], 'bad_args', /group must be a number 0..254/);
    no('/lightnet/group/x/off', [], 'bad_args', /group must be/);
    no('/lightnet/group/1/color', [1, 2], 'bad_args', /b: must be a number/);
    no('/lightnet/group/1/color', [1, 2, 256], 'bad_args', /b: must be between 0 and 255/);
    no('/lightnet/group/1/preset', ['abc'], 'bad_args', /preset: must be a number/);
    no('/lightnet/scene/a b/run', [], 'bad_args', /not a scene key/);
    no('/lightnet/subscribe', [70000], 'bad_args', /port: must be between 1 and 65535/);
  });
});

describe('coalescer', () => {
  it('latest-value-per-key-wins-and-one-job-runs-at-a-time', async () => {
    const q = new Coalescer<string>();
    const ran: string[] = [];
    let running = 0;
    let release: () => void = () => {};
    const job = (v: string) => async () => {
      running++;
      expect(running).toBe(1);
      ran.push(v);
      if (v === 'a1') await new Promise<void>((r) => (release = r));
      running--;
      return v;
    };
    const first = q.submit('a', job('a1'));
    const results = [q.submit('a', job('a2')), q.submit('b', job('b1')), q.submit('a', job('a3'))];
    release();
    expect(await first).toBe('a1');
    expect(await Promise.all(results)).toEqual(['superseded', 'b1', 'a3']);
    expect(ran).toEqual(['a1', 'b1', 'a3']);
    expect(q.supersededCount()).toBe(1);
  });
});
