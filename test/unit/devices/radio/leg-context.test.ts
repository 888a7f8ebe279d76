import { describe, expect, it, vi } from 'vitest';
import { legContext, onLeg } from '../../../../src/services/devices/radio/leg-context.ts';
import type { TaskContext } from '../../../../src/tasks/task-manager.ts';

function task(): { ctx: TaskContext; abort: AbortController; meta: unknown[] } {
  const abort = new AbortController();
  const meta: unknown[] = [];
  const ctx: TaskContext = {
    signal: abort.signal,
    setMeta: (m) => meta.push(m),
    bumpRx: vi.fn(),
    checkpoint: () => {
      if (abort.signal.aborted) throw new Error('cancelled');
    },
  };
  return { ctx, abort, meta };
}

describe('legContext', () => {
  it('follows-the-task-cancel-but-keeps-its-listeners-off-the-task-signal', () => {
    const t = task();
    const legs = Array.from({ length: 3 }, () => legContext(t.ctx));
    const heard: number[] = [];
    // Many listeners per leg land on the leg's own signal.
    legs.forEach((l, i) => {
      for (let k = 0; k < 8; k++) l.ctx.signal.addEventListener('abort', () => heard.push(i));
    });
    expect(legs.every((l) => !l.ctx.signal.aborted)).toBe(true);
    t.abort.abort(new Error('stop'));
    expect(legs.every((l) => l.ctx.signal.aborted)).toBe(true);
    expect(heard).toHaveLength(24);
    expect(() => legs[0]?.ctx.checkpoint()).toThrow('cancelled');
  });

  it('delegates-meta-and-counters-and-is-born-aborted-under-an-aborted-task', () => {
    const t = task();
    const leg = legContext(t.ctx);
    leg.ctx.setMeta({ a: 1 });
    leg.ctx.bumpRx('rx_replies', 2);
    expect(t.meta).toEqual([{ a: 1 }]);
    expect(t.ctx.bumpRx).toHaveBeenCalledWith('rx_replies', 2);
    t.abort.abort();
    expect(legContext(t.ctx).ctx.signal.aborted).toBe(true);
  });

  it('onLeg-releases-its-link-to-the-task-signal', async () => {
    const t = task();
    let legSignal: AbortSignal | null = null;
    const out = await onLeg(t.ctx, (leg) => {
      legSignal = leg.signal;
      return Promise.resolve(7);
    });
    expect(out).toBe(7);
    t.abort.abort();
    // Released: a leg that ended is not aborted by a later cancel of the task.
    expect((legSignal as AbortSignal | null)?.aborted).toBe(false);
  });
});
