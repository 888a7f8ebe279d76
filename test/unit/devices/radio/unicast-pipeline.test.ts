import { afterEach, describe, expect, it } from 'vitest';
import { SteppedClock } from '../../../../src/clock.ts';
import type { Reply } from '../../../../src/gateway/types.ts';
import { runUnicastPipeline, type UnicastJob } from '../../../../src/services/devices/index.ts';

let clock: SteppedClock;
afterEach(() => clock.stop());

/** A job whose attempts take `ms` virtual ms and succeed from try `okFrom` on (0 = never). */
function job(
  key: string,
  okFrom: number,
  log: { key: string; at: number; attempt: number }[],
  live: { now: number; max: number },
  ms = 100,
  fail: Extract<Reply<string>, { ok: false }>['reason'] = 'no_reply',
): UnicastJob<string> {
  return {
    key,
    attempt: async ({ attempt, signal }) => {
      log.push({ key, at: clock.now(), attempt });
      live.now++;
      live.max = Math.max(live.max, live.now);
      try {
        await clock.sleep(ms, signal);
      } catch {
        return { ok: false, reason: 'cancelled', detail: 'cancelled' };
      } finally {
        live.now--;
      }
      return okFrom > 0 && attempt >= okFrom
        ? { ok: true, value: key }
        : { ok: false, reason: fail, detail: 'x' };
    },
  };
}

describe('unicast pipeline', () => {
  it('keeps `depth` exchanges in flight, retries failures with backoff and reports every item', async () => {
    clock = new SteppedClock(1).start();
    const log: { key: string; at: number; attempt: number }[] = [];
    const live = { now: 0, max: 0 };
    const jobs = [
      job('A', 1, log, live),
      job('B', 2, log, live),
      job('C', 1, log, live),
      job('D', 0, log, live),
    ];
    const progress: number[] = [];
    const out = await runUnicastPipeline(jobs, {
      clock,
      depth: 2,
      attempts: 3,
      backoffMs: () => 500,
      onProgress: (p) => progress.push(p.done),
    });
    expect(live.max).toBe(2);
    expect(out.map((o) => [o.key, o.ok, o.attempts])).toEqual([
      ['A', true, 1],
      ['B', true, 2],
      ['C', true, 1],
      ['D', false, 3],
    ]);
    // Breadth first: every job had its first try before any retry started.
    const firstRetry = log.findIndex((l) => l.attempt > 1);
    expect(new Set(log.slice(0, firstRetry).map((l) => l.key)).size).toBe(4);
    // The retry of B waited for its backoff.
    const b = log.filter((l) => l.key === 'B');
    expect((b[1]?.at ?? 0) - (b[0]?.at ?? 0)).toBeGreaterThanOrEqual(600);
    expect(progress.at(-1)).toBe(4);
  });

  it('stops at the time budget, skips settled items and ends everything on a link loss', async () => {
    clock = new SteppedClock(1).start();
    const log: { key: string; at: number; attempt: number }[] = [];
    const live = { now: 0, max: 0 };
    const budget = await runUnicastPipeline(
      ['A', 'B', 'C', 'D'].map((k) => job(k, 0, log, live, 300)),
      { clock, depth: 1, attempts: 1, budgetMs: 500 },
    );
    expect(budget.map((o) => (o.ok ? 'ok' : o.reason))).toEqual(['no_reply', 'no_reply', 'budget', 'budget']);

    const done = new Set(['B']);
    const skipped = await runUnicastPipeline(
      ['A', 'B'].map((k) => job(k, 1, log, live)),
      {
        clock,
        settled: (k) => done.has(k),
      },
    );
    expect(skipped.map((o) => (o.ok ? 'ok' : o.reason))).toEqual(['ok', 'skipped']);

    const lost = await runUnicastPipeline(
      [job('A', 0, log, live, 100, 'link_down'), job('B', 1, log, live, 300), job('C', 1, log, live)],
      { clock, depth: 1 },
    );
    expect(lost.map((o) => (o.ok ? 'ok' : o.reason))).toEqual(['link_down', 'link_down', 'link_down']);
  });

  it('cancels: no new attempts, in-flight ones get the signal', async () => {
    clock = new SteppedClock(1).start();
    const log: { key: string; at: number; attempt: number }[] = [];
    const live = { now: 0, max: 0 };
    const ac = new AbortController();
    clock.setTimeout(() => ac.abort(new Error('stop')), 150);
    const out = await runUnicastPipeline(
      ['A', 'B', 'C'].map((k) => job(k, 1, log, live, 100)),
      { clock, depth: 1, signal: ac.signal },
    );
    expect(out.map((o) => (o.ok ? 'ok' : o.reason))).toEqual(['ok', 'cancelled', 'cancelled']);
    expect(log.map((l) => l.key)).toEqual(['A', 'B']);
  });
});
