/**
 * Which operator changes a request made, so its answer waits for them to be on disk. The
 * HTTP layer runs each request inside `ackScope.run(ctx, …)`; the Store records the change
 * number of every operator ('soon') change made within it. Nothing else reads this.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface AckContext {
  /** Highest change number this request made (0: none). */
  seq: number;
}

export const ackScope = new AsyncLocalStorage<AckContext>();
