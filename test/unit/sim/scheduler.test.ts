import { describe, expect, it } from 'vitest';
import { SimScheduler } from '../../../src/sim/scheduler.ts';
import { ManualClock } from './manual-clock.ts';

describe('SimScheduler', () => {
  it('runs events at their scheduled virtual time, in (time, insertion) order', () => {
    const clock = new ManualClock();
    const s = new SimScheduler(clock);
    const t0 = clock.now();
    const log: string[] = [];
    s.after(30, () => log.push(`b@${s.now() - t0}`));
    s.after(10, () => {
      log.push(`a@${s.now() - t0}`);
      s.after(5, () => log.push(`a2@${s.now() - t0}`));
    });
    s.after(30, () => log.push(`c@${s.now() - t0}`));
    // One late wake-up covers all of them, yet each sees its own time.
    clock.advance(100);
    expect(log).toEqual(['a@10', 'a2@15', 'b@30', 'c@30']);
  });

  it('cancelled events never run', () => {
    const clock = new ManualClock();
    const s = new SimScheduler(clock);
    let ran = false;
    s.after(10, () => (ran = true)).cancel();
    clock.advance(50);
    expect(ran).toBe(false);
    expect(s.pending).toBe(0);
  });

  it('external input runs after every due event and never moves time backwards', () => {
    const clock = new ManualClock();
    const s = new SimScheduler(clock);
    const log: string[] = [];
    s.after(10, () => log.push('timer'));
    // Time passed but the wake-up timer has not fired yet (as with a busy event loop).
    clock.skip(20);
    s.runExternal(() => log.push('input'));
    expect(log).toEqual(['timer', 'input']);
  });

  it('keeps going after an event throws', () => {
    const clock = new ManualClock();
    const s = new SimScheduler(clock);
    const errors: unknown[] = [];
    s.onError = (e) => errors.push(e);
    let after = false;
    s.after(1, () => {
      throw new Error('boom');
    });
    s.after(2, () => (after = true));
    clock.advance(5);
    expect(errors).toHaveLength(1);
    expect(after).toBe(true);
  });

  it('stop() prevents further events', () => {
    const clock = new ManualClock();
    const s = new SimScheduler(clock);
    let ran = false;
    s.after(10, () => (ran = true));
    s.stop();
    clock.advance(50);
    expect(ran).toBe(false);
  });
});
