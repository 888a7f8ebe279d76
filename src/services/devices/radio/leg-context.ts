/**
 * A network leg's own task context (discovery/per-network.ts, status/per-network.ts): its signal follows
 * the task's, so a cancel reaches every leg at once, but it carries only that leg's abort
 * listeners (one per exchange in flight, per queued frame, per pipeline wait). Legs that
 * all listened on the task's one signal piled legs × depth listeners on it, and Node
 * warned ("MaxListenersExceededWarning … 11 abort listeners") from three gateways on.
 */
import type { TaskContext } from '../../../tasks/task-manager.ts';

export function legContext(ctx: TaskContext): { ctx: TaskContext; release: () => void } {
  const own = new AbortController();
  const follow = (): void => own.abort(ctx.signal.reason);
  if (ctx.signal.aborted) follow();
  else ctx.signal.addEventListener('abort', follow, { once: true });
  return {
    ctx: {
      signal: own.signal,
      setMeta: (meta) => ctx.setMeta(meta),
      bumpRx: (counter, by) => ctx.bumpRx(counter, by),
      checkpoint: () => ctx.checkpoint(),
    },
    release: () => ctx.signal.removeEventListener('abort', follow),
  };
}

/** Runs `fn` on a leg context, releasing its link to the task's signal afterwards. */
export async function onLeg<T>(ctx: TaskContext, fn: (leg: TaskContext) => Promise<T>): Promise<T> {
  const leg = legContext(ctx);
  try {
    return await fn(leg.ctx);
  } finally {
    leg.release();
  }
}
