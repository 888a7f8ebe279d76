import { describe, expect, it } from 'vitest';
import { ScaledClock } from '../../../src/clock.ts';
import { BusyError } from '../../../src/errors.ts';
import { EventBus } from '../../../src/events.ts';
import { silentLogger } from '../../../src/logger.ts';
import { TaskManager, type TaskSnapshot } from '../../../src/tasks/task-manager.ts';

const setup = () => {
  const bus = new EventBus();
  const events: TaskSnapshot[] = [];
  bus.on('task', (t) => events.push(t));
  return { tm: new TaskManager(bus, new ScaledClock(1), silentLogger()), events };
};

describe('task manager', () => {
  it('runs-one-task-and-refuses-a-second-while-running', async () => {
    const { tm, events } = setup();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = tm.start('status', { a: 1 }, async (ctx) => {
      ctx.setMeta({ stage: 'X' });
      ctx.bumpRx('rx_replies');
      await gate;
      return { updated: 3 };
    });
    expect(first).toMatchObject({ id: 1, name: 'status', state: 'running', ended_ts: null, result: null });
    expect(() => tm.start('discover', {}, async () => 1)).toThrow(BusyError);
    release();
    await tm.settled();
    const done = tm.current();
    expect(done).toMatchObject({
      state: 'done',
      result: { updated: 3 },
      rx_replies: 1,
      meta: { stage: 'X' },
    });
    expect(done?.ended_ts).not.toBeNull();
    expect(events.map((e) => e.state)).toEqual(['running', 'running', 'running', 'done']);
    expect(tm.start('discover', {}, async () => 1).id).toBe(2);
  });

  it('failure-sets-last-error-with-type-name', async () => {
    const { tm } = setup();
    tm.start('discover', {}, async () => {
      throw new RangeError('bad thing');
    });
    await tm.settled();
    expect(tm.current()).toMatchObject({ state: 'error', last_error: 'RangeError: bad thing', result: null });
  });

  it('cancel-ends-the-task-in-error-cancelled-at-the-next-checkpoint', async () => {
    const { tm } = setup();
    tm.start('force_groups', {}, async (ctx) => {
      for (;;) {
        ctx.checkpoint();
        await new Promise((r) => setTimeout(r, 1));
      }
    });
    expect(tm.cancel()?.cancel_requested).toBe(true);
    await tm.settled();
    expect(tm.current()).toMatchObject({ state: 'error', last_error: 'cancelled' });
    expect(tm.cancel()).toBeNull();
  });
});
