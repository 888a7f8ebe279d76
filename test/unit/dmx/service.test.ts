/**
 * The DMX service on a fake clock: a 44 Hz fade becomes a few paced commands whose last one
 * carries the last value; sources merge by sACN priority (HTP on a tie); a stream that stops
 * is held for the live timeout, then released; a refusal is counted and sends nothing.
 */
import { describe, expect, it } from 'vitest';
import { CommandRefusedError } from '../../../src/errors.ts';
import { silentLogger } from '../../../src/logger.ts';
import type { GroupCommand } from '../../../src/services/dmx/channel-map.ts';
import { DmxService, type DmxOutput } from '../../../src/services/dmx/service.ts';

class FakeClock {
  t = 1_000_000;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private ids = 0;
  now = (): number => this.t;
  setTimer = (fn: () => void, ms: number): { clear(): void } => {
    const id = ++this.ids;
    this.timers.push({ at: this.t + ms, fn, id });
    return { clear: () => (this.timers = this.timers.filter((x) => x.id !== id)) };
  };
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.t = next.at;
      next.fn();
      await flush();
    }
    this.t = end;
    await flush();
  }
}
const flush = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

interface Sent {
  group: number;
  cmd: GroupCommand;
  at: number;
}

function setup(opts: { refuse?: (g: number) => CommandRefusedError | null } = {}) {
  const clock = new FakeClock();
  const sent: Sent[] = [];
  const admitted: number[] = [];
  const released: number[] = [];
  const output: DmxOutput = {
    admit: (groups) => {
      for (const g of groups) {
        const r = opts.refuse?.(g);
        if (r) throw r;
      }
      admitted.push(...groups);
    },
    release: (g) => released.push(g),
    // The radio takes 50 ms to put a frame on air.
    send: async (group, cmd) => {
      const at = clock.t;
      await new Promise<void>((r) => clock.setTimer(r, 50));
      sent.push({ group, cmd, at });
      return { ok: true };
    },
    networkOf: () => 'net1',
    airtimeMs: () => 50,
    effectExists: () => true,
    groupExists: () => true,
    groupLabel: (id) => (id === 1 ? 'Gates' : `group ${id}`),
    liveTimeoutMs: () => 3000,
  };
  const svc = new DmxService({
    universes: [{ key: 'sacn:1', protocol: 'sacn', number: 1 }],
    output,
    log: silentLogger(),
    now: clock.now,
    setTimer: clock.setTimer,
  });
  return { clock, svc, sent, admitted, released };
}

const values = (start: number, ch: number[]): Uint8Array => {
  const v = new Uint8Array(512);
  v.set(ch, start - 1);
  return v;
};
const src = (id: string, priority: number, v: Uint8Array) => ({ id, name: id, priority, values: v, at: 0 });

describe('dmx service', () => {
  it('a 44 Hz fade on 4 fixtures becomes paced commands within the air share; the last value lands', async () => {
    const { clock, svc, sent } = setup();
    await svc.setPatch(
      [1, 2, 3, 4].map((g) => ({
        group: g,
        universe: 'sacn:1',
        address: (g - 1) * 8 + 1,
        fixture: 'full' as const,
      })),
    );
    const frames = 88; // 2 s at 44 Hz
    for (let i = 0; i <= frames; i++) {
      const v = new Uint8Array(512);
      for (let g = 0; g < 4; g++) v.set([Math.round((255 * i) / frames), 255, 0, 0, 0, 128, 128, 0], g * 8);
      svc.frame('sacn:1', src('desk', 100, v));
      await clock.advance(1000 / 44);
    }
    await clock.advance(5000);
    const u = svc.view().universes[0]!;
    expect(u.packets).toBe(frames + 1);
    expect(u.frames_changed).toBe(frames + 1);
    // Within 30 % of the air (300 ms/s, 50 ms each): ≤ 6/s plus the 300 ms burst, over ~2 s + the tail.
    expect(sent.length).toBeLessThan(30);
    expect(u.commands_sent).toBe(sent.length);
    expect(u.dropped_for_rate).toBeGreaterThan(100);
    for (let g = 1; g <= 4; g++) {
      const last = sent.filter((s) => s.group === g).at(-1);
      expect(last?.cmd).toEqual({ kind: 'control', fields: { brightness: 255 } });
    }
    // Never more than one frame in flight, and the share holds over any second.
    for (const s of sent)
      expect(sent.filter((o) => o.at > s.at - 1000 && o.at <= s.at).length).toBeLessThanOrEqual(12);
  });

  it('unchanged frames send nothing; a change sends only the changed fields', async () => {
    const { clock, svc, sent } = setup();
    await svc.setPatch([{ group: 2, universe: 'sacn:1', address: 10, fixture: 'full' }]);
    for (let i = 0; i < 44; i++) {
      svc.frame('sacn:1', src('desk', 100, values(10, [100, 0, 0, 255, 0, 0, 0, 0])));
      await clock.advance(23);
    }
    await clock.advance(500);
    expect(sent).toHaveLength(1);
    svc.frame('sacn:1', src('desk', 100, values(10, [100, 0, 255, 255, 0, 0, 0, 0])));
    await clock.advance(500);
    expect(sent.at(-1)?.cmd).toEqual({ kind: 'control', fields: { color1: [0, 255, 255] } });
    expect(svc.view().universes[0]?.frames_changed).toBe(2);
  });

  it('merges by sACN priority: the highest wins, a tie is HTP, a lost source falls away', async () => {
    const { clock, svc } = setup();
    await svc.setPatch([{ group: 1, universe: 'sacn:1', address: 1, fixture: 'rgb' }]);
    svc.frame('sacn:1', src('a', 100, values(1, [50, 10, 0, 0])));
    svc.frame('sacn:1', src('b', 150, values(1, [20, 0, 0, 0])));
    expect(svc.view().universes[0]?.values.slice(0, 4)).toEqual([20, 0, 0, 0]);
    svc.frame('sacn:1', src('c', 150, values(1, [10, 0, 99, 0])));
    expect(svc.view().universes[0]?.values.slice(0, 4)).toEqual([20, 0, 99, 0]);
    // b and c stop; a keeps sending: after the 2.5 s loss time a is the look again.
    for (let i = 0; i < 30; i++) {
      await clock.advance(100);
      svc.frame('sacn:1', src('a', 100, values(1, [50, 10, 0, 0])));
    }
    expect(svc.view().universes[0]?.values.slice(0, 4)).toEqual([50, 10, 0, 0]);
  });

  it('a stopped stream holds its groups for the live timeout, then releases them', async () => {
    const { clock, svc, released, admitted } = setup();
    await svc.setPatch([{ group: 3, universe: 'sacn:1', address: 1, fixture: 'rgb' }]);
    svc.frame('sacn:1', src('desk', 100, values(1, [255, 1, 2, 3])));
    await clock.advance(100);
    expect(admitted).toEqual([3]);
    expect(svc.view().universes[0]).toMatchObject({ state: 'live', sources: 1 });
    await clock.advance(1500);
    expect(svc.view().universes[0]?.state).toBe('holding');
    expect(released).toEqual([]);
    await clock.advance(1350); // 2950 ms after the last packet
    expect(released).toEqual([]);
    await clock.advance(100);
    expect(released).toEqual([3]);
    // The console is gone: no live source, its name kept as the last one heard.
    expect(svc.view().universes[0]).toMatchObject({
      state: 'released',
      sources: 0,
      last_source: { name: 'desk', priority: 100 },
      last_packet_ms_ago: 3050,
    });
    expect(svc.view().fixtures[0]?.holding).toBe(false);
  });

  it('a refusal that already names the group by its name is kept as the path wrote it', async () => {
    const { clock, svc } = setup({
      refuse: () =>
        new CommandRefusedError(409, 'Gates (group 1) is held by Race flag (90) for the last 2 s'),
    });
    await svc.setPatch([{ group: 1, universe: 'sacn:1', address: 1, fixture: 'rgb' }]);
    svc.frame('sacn:1', src('desk', 100, values(1, [255, 1, 2, 3])));
    await clock.advance(200);
    expect(svc.view().universes[0]?.last_error).toBe(
      'Gates (group 1) is held by Race flag (90) for the last 2 s',
    );
  });

  it('a refused command is counted and sends nothing; the next change tries again', async () => {
    let flag = true;
    const { clock, svc, sent } = setup({
      refuse: () => (flag ? new CommandRefusedError(409, 'group 1 is held by Race flag (90)') : null),
    });
    await svc.setPatch([{ group: 1, universe: 'sacn:1', address: 1, fixture: 'rgb' }]);
    svc.frame('sacn:1', src('desk', 100, values(1, [255, 1, 2, 3])));
    await clock.advance(200);
    expect(sent).toHaveLength(0);
    const u = svc.view().universes[0]!;
    expect(u.refused.held).toBe(1);
    // Named once, by the group's name (the path's text begins with `group 1` already).
    expect(u.last_error).toBe('Gates is held by Race flag (90)');
    expect(u).toMatchObject({ last_error_ms_ago: 200, last_error_past: false });
    await clock.advance(1000);
    expect(svc.view().universes[0]).toMatchObject({ last_error_ms_ago: 1200, last_error_past: false });
    flag = false;
    svc.frame('sacn:1', src('desk', 100, values(1, [255, 1, 2, 3])));
    await clock.advance(200);
    expect(sent).toHaveLength(0); // no change, nothing to send
    svc.frame('sacn:1', src('desk', 100, values(1, [254, 1, 2, 3])));
    await clock.advance(200);
    // A later command was accepted: the refusal stays readable, but as history.
    expect(svc.view().universes[0]).toMatchObject({
      last_error: 'Gates is held by Race flag (90)',
      last_error_past: true,
    });
    // The look on the nodes is unknown after a refusal: the whole look goes.
    expect(sent.at(-1)?.cmd).toEqual({
      kind: 'control',
      fields: { brightness: 254, color1: [1, 2, 3], mode: 0 },
    });
  });

  it('counts packets for unknown universes and bad packets apart', () => {
    const { svc } = setup();
    svc.frame('sacn:9', src('x', 100, new Uint8Array(512)));
    svc.bad(null, 'malformed', 'x');
    svc.bad('sacn:1', 'oversized', '600 slots');
    const v = svc.view();
    expect(v.unmatched).toEqual({ unknown_universe: 1, malformed: 1, oversized: 0 });
    expect(v.universes[0]).toMatchObject({ oversized: 1, last_error: '600 slots' });
  });
});
