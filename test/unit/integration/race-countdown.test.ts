/**
 * The race countdown with a fake clock and a fake radio: the staging arithmetic (tones a
 * second apart from the staging instant, GO at the start), clock conversion, each step's
 * trigger handed over its lead before the instant and armed after the previous trigger,
 * a tone event re-timing its step, and abort / stop in staging / Blackout / an operator's
 * scene.
 */
import { describe, expect, it } from 'vitest';
import type { TxOutcome } from '../../../src/gateway/types.ts';
import { createLogger } from '../../../src/logger.ts';
import { Countdown, type CountdownFrame } from '../../../src/services/integration/laps/countdown.ts';
import {
  fireAt,
  monotonicToWall,
  secondsBefore,
  stagedSteps,
  withTone,
} from '../../../src/services/integration/laps/countdown-plan.ts';
import { raceLightsSchema } from '../../../src/services/integration/laps/settings.ts';
import { checkTargets } from '../../../src/services/integration/laps/targets.ts';

describe('countdown arithmetic', () => {
  it('tones a second apart from the staging instant, the last marked, GO at the start', () => {
    const steps = stagedSteps({ stagingAt: 10_000, startAt: 13_000, tones: 3 });
    expect(steps).toEqual([
      { kind: 'tone', tone: 0, at: 10_000 },
      { kind: 'tone', tone: 1, at: 11_000 },
      { kind: 'last_tone', tone: 2, at: 12_000 },
      { kind: 'go', tone: null, at: 13_000 },
    ]);
  });

  it('random delay with beeps: the last tone may sit under a second before the start; none at or after it', () => {
    const steps = stagedSteps({ stagingAt: 0, startAt: 4880, tones: 5 });
    expect(steps.map((s) => [s.kind, s.at])).toEqual([
      ['tone', 0],
      ['tone', 1000],
      ['tone', 2000],
      ['tone', 3000],
      ['last_tone', 4000],
      ['go', 4880],
    ]);
    expect(stagedSteps({ stagingAt: 0, startAt: 1500, tones: 5 }).map((s) => s.at)).toEqual([0, 1000, 1500]);
  });

  it('an assigned start (no tones) is GO alone', () => {
    expect(stagedSteps({ stagingAt: null, startAt: 5000, tones: 0 })).toEqual([
      { kind: 'go', tone: null, at: 5000 },
    ]);
  });

  it('converts the timer monotonic seconds through one reading of both clocks', () => {
    // Wall 1 000 000 ms when the monotonic clock read 5 000 ms: 7.25 s monotonic is 2 250 ms later.
    expect(monotonicToWall(7.25, { wallMs: 1_000_000, monoMs: 5000 })).toBe(1_002_250);
  });

  it('a start-only timer counts its last seconds that leave time to arm', () => {
    const steps = secondsBefore(10_000, 6_500, 3, 300);
    expect(steps.map((s) => [s.kind, s.at])).toEqual([
      ['tone', 7000],
      ['tone', 8000],
      ['last_tone', 9000],
      ['go', 10_000],
    ]);
    expect(secondsBefore(10_000, 8_800, 3, 300).map((s) => s.at)).toEqual([10_000]);
  });

  it("a tone event replaces its derived step with the timer's time", () => {
    const derived = stagedSteps({ stagingAt: 0, startAt: 3000, tones: 3 });
    const next = withTone(derived, { index: 1, remaining: 1, at: 1010 });
    expect(next.map((s) => [s.kind, s.tone, s.at])).toEqual([
      ['tone', 0, 0],
      ['tone', 1, 1010],
      ['last_tone', 2, 2000],
      ['go', null, 3000],
    ]);
    expect(fireAt(next[1]!, 12.5)).toBe(997.5);
  });
});

function rig(opts: { lead?: number; foreign?: () => string | null } = {}) {
  let now = 1_000_000;
  const timers: { at: number; fn: () => void; dead: boolean }[] = [];
  const sent: { at: number; priority: string; frames: CountdownFrame[] }[] = [];
  let cancels = 0;
  let held = 0;
  const shown: CountdownFrame[][] = [];
  const frame = (flags: number): CountdownFrame => ({
    receiver: 'FFFFFF',
    request: { op: 'CONTROL', groupId: 3, flags, fields: { brightness: 255 } },
  });
  const sync: CountdownFrame = {
    receiver: 'FFFFFF',
    request: { op: 'SYNC', ts24: 0, brightness: 0, flags: 1 } as unknown as CountdownFrame['request'],
  };
  const cd = new Countdown({
    log: createLogger('silent', false),
    wall: {
      now: () => now,
      setTimeout: (fn, ms) => {
        const t = { at: now + ms, fn, dead: false };
        timers.push(t);
        return { cancel: () => (t.dead = true) };
      },
    },
    armFrames: (kind) => [
      { ...frame(0x03), request: { ...frame(0x03).request, groupId: kind === 'go' ? 9 : 3 } },
    ],
    syncFrames: () => [sync],
    send: (frames, priority) => {
      sent.push({ at: now, priority, frames: [...frames] });
      return Promise.resolve<TxOutcome>({ ok: true });
    },
    holdBulk: () => {
      held++;
      return () => held--;
    },
    leadMs: () => opts.lead ?? 20,
    foreignScene: opts.foreign ?? (() => null),
    cancels: () => cancels,
    shown: (f) => shown.push([...f]),
    settled: () => undefined,
  });
  const flush = () => new Promise((r) => setImmediate(r));
  /** Moves the clock 1 ms at a time, letting timers and the spin-wait run. */
  const runTo = async (t: number) => {
    while (now < t) {
      now += 1;
      for (const x of timers.filter((y) => !y.dead && y.at <= now)) {
        x.dead = true;
        x.fn();
      }
      await flush();
      await flush();
    }
  };
  const syncs = () => sent.filter((s) => s.frames[0]?.request.op === 'SYNC');
  const arms = () =>
    sent.filter((s) => s.frames[0]?.request.op === 'CONTROL' && s.frames[0].request.flags & 0x02);
  const restores = () =>
    sent.filter((s) => s.frames[0]?.request.op === 'CONTROL' && !(s.frames[0].request.flags & 0x02));
  return {
    cd,
    now: () => now,
    runTo,
    sent,
    syncs,
    arms,
    restores,
    shown,
    held: () => held,
    blackout: () => cancels++,
    restoreFrames: [frame(0x01)],
  };
}

describe('countdown scheduler', () => {
  it('each step armed after the previous trigger, its SYNC handed over its lead before the instant', async () => {
    const r = rig({ lead: 20 });
    const t0 = r.now();
    r.cd.start(stagedSteps({ stagingAt: t0 + 900, startAt: t0 + 3900, tones: 3 }), 'test', r.restoreFrames);
    expect(r.held()).toBe(1);
    await r.runTo(t0 + 4000);
    expect(r.syncs().map((s) => s.at - t0)).toEqual([880, 1880, 2880, 3880]);
    expect(r.syncs().every((s) => s.priority === 'urgent')).toBe(true);
    // Four arms, each after the previous SYNC (the first at once).
    const order = r.sent.map((s) => s.frames[0]?.request.op);
    expect(order).toEqual(['CONTROL', 'SYNC', 'CONTROL', 'SYNC', 'CONTROL', 'SYNC', 'CONTROL', 'SYNC']);
    expect(r.arms()[3]?.frames[0]?.request).toMatchObject({ groupId: 9 });
    expect(r.cd.view().steps.map((s) => s.state)).toEqual(['shown', 'shown', 'shown', 'shown']);
    // What the gates show now is noted without the arm flag (a lap flash puts it back).
    expect(r.shown.at(-1)?.[0]?.request).toMatchObject({ flags: 0x01 });
    expect(r.held()).toBe(0);
    expect(r.cd.active()).toBe(false);
  });

  it("a tone event moves its step to the timer's time, also while its trigger is awaited", async () => {
    const r = rig({ lead: 10 });
    const t0 = r.now();
    r.cd.start(stagedSteps({ stagingAt: t0 + 900, startAt: t0 + 2900, tones: 2 }), 'test', r.restoreFrames);
    await r.runTo(t0 + 100);
    r.cd.tone({ index: 0, remaining: 1, at: t0 + 930 }, 'test', r.restoreFrames);
    await r.runTo(t0 + 1100);
    r.cd.tone({ index: 1, remaining: 0, at: t0 + 1925 }, 'test', r.restoreFrames);
    await r.runTo(t0 + 3000);
    expect(r.syncs().map((s) => s.at - t0)).toEqual([920, 1915, 2890]);
  });

  it('a tone announced before its stage event arrived keeps its time in the stage plan', async () => {
    const r = rig({ lead: 10 });
    const t0 = r.now();
    r.cd.tone({ index: 0, remaining: 2, at: t0 + 905 }, 'test', r.restoreFrames);
    r.cd.start(stagedSteps({ stagingAt: t0 + 900, startAt: t0 + 3900, tones: 3 }), 'test', r.restoreFrames);
    await r.runTo(t0 + 4000);
    expect(r.syncs().map((s) => s.at - t0)).toEqual([895, 1890, 2890, 3890]);
    const steps = r.cd.view().steps;
    expect(steps.map((s) => [s.step, s.state, s.announced])).toEqual([
      ['tone', 'shown', true],
      ['tone', 'shown', false],
      ['last_tone', 'shown', false],
      ['go', 'shown', false],
    ]);
  });

  it('abort after the second tone: no more triggers, no GO, the gates put back at once', async () => {
    const r = rig();
    const t0 = r.now();
    r.cd.start(stagedSteps({ stagingAt: t0 + 900, startAt: t0 + 5900, tones: 5 }), 'test', r.restoreFrames);
    await r.runTo(t0 + 2100);
    expect(r.syncs()).toHaveLength(2);
    expect(r.cd.cancel('race aborted')).toBe(true);
    await r.runTo(t0 + 2101);
    expect(r.restores()).toHaveLength(1);
    expect(r.restores()[0]!.at - t0).toBeLessThanOrEqual(2101);
    expect(r.restores()[0]!.priority).toBe('urgent');
    await r.runTo(t0 + 7000);
    expect(r.syncs()).toHaveLength(2);
    const steps = r.cd.view().steps;
    expect(steps.find((s) => s.step === 'go')?.state).toBe('cancelled');
    expect(r.held()).toBe(0);
  });

  it('a stop before the first tone shows nothing; a cancel after GO changes nothing', async () => {
    const r = rig();
    const t0 = r.now();
    r.cd.start(stagedSteps({ stagingAt: t0 + 900, startAt: t0 + 1900, tones: 1 }), 'test', r.restoreFrames);
    await r.runTo(t0 + 300);
    r.cd.cancel('stop');
    await r.runTo(t0 + 2500);
    expect(r.syncs()).toHaveLength(0);
    // The first step was armed: the put-back drops it from the nodes.
    expect(r.restores()).toHaveLength(1);
    const r2 = rig();
    const t1 = r2.now();
    r2.cd.start(stagedSteps({ stagingAt: null, startAt: t1 + 500, tones: 0 }), 'test', r2.restoreFrames);
    await r2.runTo(t1 + 600);
    expect(r2.cd.cancel('stop')).toBe(false);
    expect(r2.restores()).toHaveLength(0);
  });

  it('Blackout ends the countdown: no trigger after it, the armed look dropped with a dark frame', async () => {
    const r = rig();
    const t0 = r.now();
    r.cd.start(stagedSteps({ stagingAt: t0 + 900, startAt: t0 + 2900, tones: 2 }), 'test', r.restoreFrames);
    await r.runTo(t0 + 1200);
    r.blackout();
    await r.runTo(t0 + 3500);
    expect(r.syncs()).toHaveLength(1);
    expect(r.restores()).toHaveLength(1);
    expect(r.restores()[0]!.frames[0]!.request).toMatchObject({
      op: 'CONTROL',
      flags: 0,
      fields: { brightness: 0 },
    });
    expect(r.cd.view().steps.filter((s) => s.error === 'blackout')).toHaveLength(2);
  });

  it("the operator's scene wins: no step shown and no SYNC while it runs", async () => {
    let foreign: string | null = 'my-show';
    const r = rig({ foreign: () => foreign });
    const t0 = r.now();
    r.cd.start(stagedSteps({ stagingAt: t0 + 900, startAt: t0 + 2900, tones: 2 }), 'test', r.restoreFrames);
    await r.runTo(t0 + 500);
    foreign = null;
    await r.runTo(t0 + 3000);
    // Tone 0 not shown (scene running); tone 1 and GO shown after it ended.
    expect(r.syncs().map((s) => s.at - t0)).toEqual([1880, 2880]);
    expect(r.cd.view().steps[0]).toMatchObject({ state: 'not_shown', error: 'scene_running: my-show' });
  });

  it('a step whose instant is long gone is not shown late', async () => {
    const r = rig();
    const t0 = r.now();
    r.cd.start(
      [
        { kind: 'tone', tone: 0, at: t0 - 500 },
        { kind: 'go', tone: null, at: t0 + 1000 },
      ],
      'test',
      r.restoreFrames,
    );
    await r.runTo(t0 + 1100);
    expect(r.syncs().map((s) => s.at - t0)).toEqual([980]);
    expect(r.cd.view().steps[0]).toMatchObject({ state: 'not_shown', error: 'late' });
  });
});

describe('countdown looks in the settings', () => {
  const catalog = {
    groupExists: () => true,
    deviceExists: () => true,
    sceneExists: (k: string) => k === 'lights' || k === 'mixed',
    sceneArmable: (k: string) => k === 'lights',
  };
  it('are phases like the others: on by default, the race-scheduled look off', () => {
    const d = raceLightsSchema.parse({});
    expect(d.phases).toMatchObject({
      tone: { enabled: true, scene: null },
      last_tone: { enabled: true, scene: null },
      go: { enabled: true, scene: null },
      pilot_done: { enabled: true, scene: null },
      scheduled: { enabled: false, scene: null },
    });
  });
  it('a bound scene must be native effects only (it is armed ahead), named in the error', () => {
    const ok = raceLightsSchema.parse({ phases: { go: { enabled: true, scene: 'lights' } } });
    expect(() => checkTargets(ok, catalog)).not.toThrow();
    const bad = raceLightsSchema.parse({ phases: { tone: { enabled: true, scene: 'mixed' } } });
    expect(() => checkTargets(bad, catalog)).toThrow(
      /^phases\.tone\.scene: scene mixed cannot be a countdown look/,
    );
    // Other phases may bind any scene.
    const other = raceLightsSchema.parse({ phases: { stop: { enabled: true, scene: 'mixed' } } });
    expect(() => checkTargets(other, catalog)).not.toThrow();
  });
});
