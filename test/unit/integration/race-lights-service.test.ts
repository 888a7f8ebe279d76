/**
 * The race lights service's radio discipline with a fake radio: one lap frame at a time,
 * passes meeting our own flash merged, passes meeting other traffic dropped, stale batches
 * dropped, the gate's look put back after the flash (never dropped), and a start already
 * scheduled from staging not run twice.
 */
import { describe, expect, it } from 'vitest';
import type { TxOutcome } from '../../../src/gateway/types.ts';
import { createLogger } from '../../../src/logger.ts';
import { SceneRunningError } from '../../../src/errors.ts';
import { LookMemory } from '../../../src/services/integration/laps/looks.ts';
import type { LookRun, LookRunner } from '../../../src/services/integration/laps/phase-player.ts';
import { RaceLightsService, type Frame } from '../../../src/services/integration/laps/service.ts';
import { raceLightsSchema } from '../../../src/services/integration/laps/settings.ts';

/**
 * The scene runner's contract: one run at a time, a second refused with SceneRunningError,
 * cancel ends the run (as cancelled) once its frame on the air is done — here when the test
 * says so (`finish`), or on the next turn for a cancel.
 */
function fakeRunner() {
  const started: string[] = [];
  let current: { key: string; end: (r: LookRun) => void } | null = null;
  let cancels = 0;
  const port: LookRunner = {
    run: (key) => {
      if (current) return Promise.reject(new SceneRunningError(current.key));
      started.push(key);
      return new Promise<LookRun>((resolve) => {
        const me = {
          key,
          end: (r: LookRun) => {
            if (current === me) current = null;
            resolve(r);
          },
        };
        current = me;
      });
    },
    running: () => current?.key ?? null,
    cancels: () => cancels,
    cancel: () => {
      cancels++;
      const c = current;
      if (c) setImmediate(() => c.end({ ok: false, cancelled: true, error: 'cancelled' }));
    },
  };
  return {
    port,
    started,
    running: () => current?.key ?? null,
    /** The running look goes out whole. */
    finish: async () => {
      current?.end({ ok: true, cancelled: false, error: null });
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
    },
    /** Someone else (Blackout, the operator) cancels the running scene. */
    cancelFromOutside: () => port.cancel(),
    /** The operator starts a scene of their own. */
    operator: (key: string) => {
      void port.run(key, {}, 'ui');
    },
  };
}

function fake(settings: unknown = {}) {
  let now = 1_000_000;
  const timers: { at: number; fn: () => void; dead: boolean }[] = [];
  const sent: { frame: Frame; deadlineMs: number; settle: (o: TxOutcome) => void }[] = [];
  const runner = fakeRunner();
  const scenes = runner.started;
  let backlog = 0;
  const looks = new LookMemory();
  const s = raceLightsSchema.parse(settings);
  const svc = new RaceLightsService({
    log: createLogger('silent', false),
    wall: {
      now: () => now,
      setTimeout: (fn, ms) => {
        const t = { at: now + ms, fn, dead: false };
        timers.push(t);
        return { cancel: () => (t.dead = true) };
      },
    },
    heat: () => null,
    planEffect: (target, params) => [
      {
        receiver: target.kind === 'device' ? target.value : 'FFFFFF',
        request: {
          op: 'CONTROL',
          groupId: target.kind === 'groups' ? (target.value[0] as number) : 255,
          flags: 1,
          fields: { ...params },
        },
      },
    ],
    send: (frame, deadlineMs) => new Promise((settle) => sent.push({ frame, deadlineMs, settle })),
    radioBacklog: () => backlog,
    flashAirtimeMs: () => 40,
    runner: runner.port,
    looks,
    settings: () => s,
  });
  const flush = () => new Promise((r) => setImmediate(r));
  return {
    svc,
    sent,
    scenes,
    runner,
    looks,
    setBacklog: (n: number) => (backlog = n),
    advance: async (ms: number) => {
      now += ms;
      for (const t of timers.filter((x) => !x.dead && x.at <= now)) {
        t.dead = true;
        t.fn();
      }
      await flush();
    },
    /** The radio finishes the frame in flight. */
    done: async (ok = true) => {
      const f = sent.find((x) => x.settle !== null);
      const i = sent.indexOf(f as (typeof sent)[number]);
      const it = sent.splice(i, 1)[0];
      it?.settle(ok ? { ok: true } : { ok: false, reason: 'deadline', detail: 'late' });
      await flush();
    },
  };
}

const lap = (seat: number, color: string, extra: Record<string, unknown> = {}) => ({
  seat,
  lap_number: 1,
  color,
  late: false,
  event_epoch_ms: null,
  force: false,
  ...extra,
});
const GATES = {
  seats: [
    { seat: 0, gate: { kind: 'group', value: 1 } },
    { seat: 1, gate: { kind: 'group', value: 2 } },
  ],
  all_seats_gate: { kind: 'group', value: 9 },
  flash: { effect: 0, length_ms: 500, brightness: 255 },
};

describe('race lights radio discipline', () => {
  it('sends one flash at a time; passes meeting it merge per gate and go next', async () => {
    const f = fake(GATES);
    expect(f.svc.lap(lap(0, '#ff0000')).result).toBe('flash');
    expect(f.sent).toHaveLength(1);
    expect(f.sent[0]?.frame.request).toMatchObject({
      op: 'CONTROL',
      groupId: 1,
      fields: { mode: 0, brightness: 255, color1: [255, 0, 0], color2: [255, 0, 0] },
    });
    expect(f.svc.lap(lap(2, '#00ff00')).result).toBe('waiting');
    expect(f.svc.lap(lap(3, '#0000ff')).result).toBe('merged');
    expect(f.sent).toHaveLength(1); // never two lap frames queued at the radio
    await f.advance(10);
    await f.done();
    expect(f.sent).toHaveLength(1);
    expect(f.sent[0]?.frame.request).toMatchObject({
      groupId: 9,
      fields: { color1: [0, 255, 0], color2: [0, 0, 255], color3: [0, 255, 0] },
    });
    await f.done();
    const v = f.svc.view() as { stats: { flashes_sent: number; passes_flashed: number; merged: number } };
    expect(v.stats).toMatchObject({ flashes_sent: 2, passes_flashed: 3, merged: 1 });
  });

  it('drops a pass that meets other traffic waiting for the radio, and a batch that waited too long', async () => {
    const f = fake(GATES);
    f.setBacklog(1);
    expect(f.svc.lap(lap(0, '#ff0000')).result).toBe('radio_busy');
    expect(f.sent).toHaveLength(0);
    f.setBacklog(0);
    f.svc.lap(lap(0, '#ff0000'));
    f.svc.lap(lap(1, '#00ff00')); // waits for the first
    await f.advance(200); // the first frame took far longer than its window
    await f.done();
    expect(f.sent).toHaveLength(0);
    const v = f.svc.view() as { stats: { dropped: Record<string, number> } };
    expect(v.stats.dropped).toMatchObject({ radio_busy: 1, stale: 1 });
  });

  it('counts a flash the radio did not send as dropped (deadline)', async () => {
    const f = fake(GATES);
    f.svc.lap(lap(0, '#ff0000'));
    expect(f.sent[0]?.deadlineMs).toBe(80);
    await f.done(false);
    const v = f.svc.view() as { stats: { dropped: Record<string, number>; flashes_sent: number } };
    expect(v.stats.dropped.not_sent).toBe(1);
    expect(v.stats.flashes_sent).toBe(0);
    await f.advance(1000);
    expect(f.sent).toHaveLength(0); // nothing to put back: the gate never changed
  });

  it('puts the gate look back after the flash length, pushed back by a newer flash', async () => {
    const f = fake(GATES);
    f.looks.note([
      {
        receiver: 'FFFFFF',
        request: {
          op: 'CONTROL',
          groupId: 1,
          flags: 1,
          fields: { mode: 2, color1: [1, 2, 3], brightness: 70 },
        },
      },
    ]);
    f.svc.lap(lap(0, '#ff0000'));
    await f.done();
    await f.advance(300);
    f.svc.lap(lap(0, '#ff0000'));
    await f.done();
    await f.advance(300); // 600 ms after the first flash, 300 after the second
    expect(f.sent).toHaveLength(0);
    await f.advance(250);
    expect(f.sent).toHaveLength(1);
    expect(f.sent[0]?.frame.request).toEqual({
      op: 'CONTROL',
      groupId: 1,
      flags: 1,
      fields: { mode: 2, brightness: 70, color1: [1, 2, 3], color2: [0, 0, 0], color3: [0, 0, 0] },
    });
    // A restore waits for other traffic instead of being dropped: it is on the queue already.
    expect(f.sent[0]?.deadlineMs).toBeGreaterThan(1000);
  });

  it('puts back the look the gate was given during the flash (a phase look wins)', async () => {
    const f = fake(GATES);
    f.svc.lap(lap(0, '#ff0000'));
    await f.done();
    f.looks.note([
      {
        receiver: 'FFFFFF',
        request: {
          op: 'CONTROL',
          groupId: 1,
          flags: 1,
          fields: { mode: 0, color1: [255, 0, 0], brightness: 160 },
        },
      },
    ]);
    await f.advance(500);
    expect(f.sent[0]?.frame.request).toMatchObject({ fields: { brightness: 160, color1: [255, 0, 0] } });
  });

  it('ignores late laps, unmapped seats, the holeshot when switched off, and everything when disabled', () => {
    const f = fake({ ...GATES, all_seats_gate: null, flash: { holeshot: false } });
    expect(f.svc.lap(lap(0, '#ff0000', { late: true })).result).toBe('late');
    expect(f.svc.lap(lap(5, '#ff0000')).result).toBe('unmapped');
    expect(f.svc.lap(lap(0, '#ff0000', { lap_number: 0 })).result).toBe('holeshot');
    const off = fake({ ...GATES, enabled: false });
    expect(off.svc.lap(lap(0, '#ff0000')).result).toBe('disabled');
    // An Event Action forces it.
    expect(off.svc.lap(lap(0, '#ff0000', { force: true })).result).toBe('flash');
  });

  it('phases run their look unless switched off; a start the staging scheduled does not run twice', async () => {
    const f = fake({
      ...GATES,
      phases: { stop: { enabled: false, scene: null }, finish: { scene: 'my-finish' } },
    });
    expect(f.svc.phase({ phase: 'stop', seat: null, color: null, force: false }).ran).toEqual([]);
    expect(f.svc.phase({ phase: 'finish', seat: null, color: null, force: false }).ran).toEqual(['finish']);
    expect(f.scenes).toEqual(['my-finish']);
    const staged = f.svc.phase({
      phase: 'stage',
      staging_epoch_ms: 1_000_000,
      start_epoch_ms: 1_003_000,
      seat: null,
      color: null,
      force: false,
    });
    // The start look leaves one look-frame airtime (40 ms here) before the start instant.
    expect(staged.scheduled).toEqual([
      { phase: 'staging', at_epoch_ms: 1_000_000 },
      { phase: 'start', at_epoch_ms: 1_002_960 },
    ]);
    await f.advance(3000);
    expect(f.svc.phase({ phase: 'start', seat: null, color: null, force: false }).ran).toEqual([]);
  });
  describe('phase looks never refuse each other', () => {
    const ph = (phase: string, extra: Record<string, unknown> = {}) =>
      ({ phase, seat: null, color: null, force: false, ...extra }) as Parameters<
        RaceLightsService['phase']
      >[0];
    const flush = async () => {
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    };
    type Rec = { phase: string; state: string; error: string | null };
    const states = (f: ReturnType<typeof fake>) =>
      (f.svc.view().recent_phases as Rec[]).map((r) => `${r.phase}:${r.state}`);

    it('a win during the stop look takes over; the stop look then goes out whole and the winner after it', async () => {
      const f = fake(GATES);
      f.svc.phase(ph('stop'));
      expect(f.runner.running()).toBe('race-lights-stop');
      f.svc.phase(ph('win', { seat: 1, color: '#0000ff' }));
      await flush();
      // The cut stop look runs again, whole, then the winner.
      expect(f.runner.running()).toBe('race-lights-stop');
      await f.runner.finish();
      expect(f.runner.running()).toBe('race-lights-win');
      await f.runner.finish();
      expect(f.scenes).toEqual(['race-lights-stop', 'race-lights-stop', 'race-lights-win']);
      expect(states(f)).toEqual(['stop:taken_over', 'stop:shown', 'win:shown']);
    });

    it('a stop after the win (shown or running) is followed by the winner again; a new race forgets the winner', async () => {
      const f = fake(GATES);
      f.svc.phase(ph('win', { seat: 0, color: '#ff0000' }));
      f.svc.phase(ph('stop'));
      await flush();
      expect(f.runner.running()).toBe('race-lights-stop');
      await f.runner.finish();
      await f.runner.finish();
      expect(f.scenes).toEqual(['race-lights-win', 'race-lights-stop', 'race-lights-win']);
      expect(states(f)).toEqual(['win:taken_over', 'stop:shown', 'win:shown']);
      // A stop once the heat changed shows no old winner.
      f.svc.phase(ph('heat_change'));
      await f.runner.finish();
      f.svc.phase(ph('stop'));
      await f.runner.finish();
      expect(f.scenes.slice(3)).toEqual(['race-lights-heat_change', 'race-lights-stop']);
      expect(f.runner.running()).toBeNull();
    });

    it('phases arriving together end on the last; each earlier one is taken over, none refused', async () => {
      const f = fake(GATES);
      f.svc.phase(ph('finish'));
      f.svc.phase(ph('stop'));
      f.svc.phase(ph('heat_change'));
      await flush();
      expect(f.runner.running()).toBe('race-lights-heat_change');
      await f.runner.finish();
      expect(states(f)).toEqual(['finish:taken_over', 'stop:taken_over', 'heat_change:shown']);
    });

    it("an operator's scene is never cancelled: the look is listed as not shown", async () => {
      const f = fake(GATES);
      f.runner.operator('podium');
      f.svc.phase(ph('stop'));
      await flush();
      expect(f.runner.running()).toBe('podium');
      expect(f.svc.view().recent_phases).toEqual([
        expect.objectContaining({ phase: 'stop', state: 'not_shown', error: 'scene_running: podium' }),
      ]);
    });

    it('Blackout while a take-over waits for the running look to end: nothing more is played', async () => {
      const f = fake(GATES);
      f.svc.phase(ph('stop'));
      f.svc.phase(ph('win', { seat: 0, color: '#ff0000' }));
      f.runner.cancelFromOutside();
      await flush();
      expect(f.runner.running()).toBeNull();
      expect(f.scenes).toEqual(['race-lights-stop']);
      expect(states(f)).toEqual(['stop:taken_over', 'stop:cancelled', 'win:cancelled']);
    });

    it('Blackout during the stop look ends the sequence: the winner queued behind it does not follow', async () => {
      const f = fake(GATES);
      f.svc.phase(ph('win', { seat: 0, color: '#ff0000' }));
      await f.runner.finish();
      f.svc.phase(ph('stop'));
      expect(f.runner.running()).toBe('race-lights-stop');
      f.runner.cancelFromOutside();
      await flush();
      expect(f.runner.running()).toBeNull();
      expect(f.scenes).toEqual(['race-lights-win', 'race-lights-stop']);
      expect(states(f)).toEqual(['win:shown', 'stop:cancelled', 'win:cancelled']);
    });
  });
});
