import { describe, expect, it } from 'vitest';
import { LinkStabilityWatch } from '../../../src/gateway/link-stability.ts';
import { ReconnectBackoff } from '../../../src/gateway/reconnect.ts';
import { ManualClock } from './manual-clock.ts';

const opts = { maxLosses: 3, windowMs: 60_000, reconnectMs: 10_000 };

describe('flapping link detection', () => {
  it('more-than-3-losses-within-a-minute-are-unstable-3-are-not', async () => {
    const clock = new ManualClock();
    const changes: [boolean, number][] = [];
    const w = new LinkStabilityWatch(clock, opts, (u, n) => changes.push([u, n]));
    for (let i = 0; i < 3; i++) {
      w.lost();
      await clock.advance(15_000);
    }
    expect(w.unstable).toBe(false);
    expect(w.snapshot()).toBeNull();
    // The first loss is now 45 s old: the fourth within a minute.
    w.lost();
    expect(w.unstable).toBe(true);
    expect(changes).toEqual([[true, 4]]);
    expect(w.snapshot()).toEqual({
      losses: 4,
      window_s: 60,
      since_ts: clock.now() / 1000,
      reconnect_min_s: 10,
    });
  });

  it('losses-spread-wider-than-the-window-never-count-as-unstable', async () => {
    const clock = new ManualClock();
    const w = new LinkStabilityWatch(clock, opts, () => undefined);
    for (let i = 0; i < 10; i++) {
      w.lost();
      await clock.advance(20_001);
    }
    expect(w.unstable).toBe(false);
  });

  it('is-stable-again-a-whole-window-after-the-last-loss', async () => {
    const clock = new ManualClock();
    const changes: boolean[] = [];
    const w = new LinkStabilityWatch(clock, opts, (u) => changes.push(u));
    for (let i = 0; i < 4; i++) w.lost();
    await clock.advance(50_000);
    w.lost(); // still flapping: the minute starts again
    await clock.advance(59_000);
    expect(w.unstable).toBe(true);
    expect(w.snapshot()?.losses).toBe(1);
    await clock.advance(1_000);
    expect(w.unstable).toBe(false);
    expect(changes).toEqual([true, false]);
    // A new streak needs more than 3 losses again.
    for (let i = 0; i < 3; i++) w.lost();
    expect(w.unstable).toBe(false);
  });

  it('0-losses-disables-the-watch', () => {
    const clock = new ManualClock();
    const w = new LinkStabilityWatch(clock, { ...opts, maxLosses: 0 }, () => undefined);
    for (let i = 0; i < 20; i++) w.lost();
    expect(w.unstable).toBe(false);
  });
});

describe('reconnect backoff floor', () => {
  it('a-floor-lengthens-every-delay-until-it-is-lifted', () => {
    const clock = new ManualClock();
    const b = new ReconnectBackoff(clock, 1000, 15_000, () => Promise.resolve(false));
    expect(b.nextDelayMs).toBe(1000);
    b.setFloor(10_000);
    expect(b.nextDelayMs).toBe(10_000);
    b.schedule();
    expect(b.nextRetryInS()).toBe(10);
    b.cancel();
    // Doubling goes on beneath the floor: 2 s, 4 s, 8 s are all floored, 16 s caps at 15 s.
    b.schedule();
    b.cancel();
    b.schedule();
    b.cancel();
    b.schedule();
    expect(b.nextRetryInS()).toBe(10);
    b.cancel();
    expect(b.nextDelayMs).toBe(15_000);
    b.setFloor(0);
    b.reset();
    expect(b.nextDelayMs).toBe(1000);
  });
});
