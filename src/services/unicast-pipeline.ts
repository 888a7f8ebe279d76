/**
 * Pipelined unicast exchanges: run a list of request/reply exchanges (SET_GROUP to
 * {addr, group}, STATUS, CONFIG, …) with up to `depth` of them outstanding at once.
 *
 * Why it is faster: the driver still writes one frame at a time (the gateway has one TX
 * slot, §2.3/§4.4), but an exchange spends most of its time waiting for the node's reply
 * (50–300 ms reply delay + CAD + the reply's airtime; a silent node costs its whole
 * window). With `depth` exchanges outstanding those waits overlap: the next request goes
 * out while earlier nodes are still preparing their replies. The price is that the
 * gateway (no LBT) may start a request while another node's reply is on the air, and the
 * loss grows with the rate (see DEFAULT_PIPELINE_DEPTH). Every loss is retried.
 *
 * Semantics:
 * - Each job is one exchange; `attempt()` must make ONE try (the pipeline does the
 *   retries, with a backoff per item, so a busy moment of the air is not hit again at once).
 * - Order: jobs start in the given order (sort them to hint, e.g. strongest links first).
 *   By default every job gets its first attempt before any retry runs ('breadth'), so a
 *   time budget is spread over all items; 'depth' runs a due retry before fresh jobs.
 * - Time budget (`budgetMs`, from the start): no attempt starts after it; attempts in
 *   flight finish normally. An item cut short keeps its last failure (e.g. 'no_reply');
 *   one never tried ends with 'budget'.
 * - Cancel: aborting `signal` stops new attempts at once; in-flight attempts get the signal
 *   too unless `abortInFlight` is false (then they finish with a known outcome: the safe
 *   point for state that follows an ACK, e.g. a device's stored group).
 * - `settled(key)`: checked before every attempt; true skips the item (e.g. a straggler
 *   whose late broadcast reply arrived meanwhile) with reason 'skipped'.
 * - A link loss ends the pipeline: every unfinished item gets 'link_down'.
 * Returns one outcome per job, in job order.
 */
import type { Clock } from '../clock.ts';
import type { Reply, TxFailure } from '../gateway/types.ts';

/**
 * Exchanges in flight by default. Measured with bench/pipeline-depth.ts (189 healthy bound
 * nodes of a 200 fleet, SF7/125 kHz, seed 1; first-attempt loss / exchanges per s):
 *   depth     1          2          3           4           5
 *   STATUS    0 % 3.8    8 % 4.9    18 % 5.7    24 % 6.7    29 % 7.1
 *   SET_GROUP 0.5 % 3.9  4 % 5.5    11 % 5.9    18 % 6.6    19 % 7.5
 * The loss is the gateway (no LBT) starting the next request over a reply; beyond 2 the
 * extra rate is mostly eaten by retries, each of which costs a whole reply window.
 */
export const DEFAULT_PIPELINE_DEPTH = 2;
/** Attempts per item by default (the first try plus two retries). */
export const DEFAULT_PIPELINE_ATTEMPTS = 3;
/** First retry backoff; doubled for every further retry of the same item. */
export const DEFAULT_PIPELINE_BACKOFF_MS = 150;

export interface UnicastJob<T> {
  /** Identity in outcomes, progress and `settled` (usually the device address). */
  readonly key: string;
  /** One try of the exchange; `attempt` counts from 1. */
  attempt(a: { attempt: number; signal: AbortSignal | undefined }): Promise<Reply<T>>;
}

export type PipelineFailure = TxFailure | 'no_reply' | 'refused' | 'budget' | 'skipped';

export type UnicastOutcome<T> =
  | { key: string; ok: true; value: T; attempts: number }
  | { key: string; ok: false; reason: PipelineFailure; detail: string; attempts: number };

export interface PipelineProgress {
  total: number;
  /** Items with a final outcome. */
  done: number;
  ok: number;
  failed: number;
  inFlight: number;
  /** Attempts started so far (retries included). */
  attempts: number;
}

export interface PipelineOptions<T> {
  clock: Clock;
  /** Exchanges outstanding at once (default DEFAULT_PIPELINE_DEPTH). */
  depth?: number;
  /** Tries per item (default DEFAULT_PIPELINE_ATTEMPTS). */
  attempts?: number | ((key: string) => number);
  /** Pause before retry n (n = 1 for the 2nd try); default 150 ms · 2^(n−1). */
  backoffMs?: (retry: number) => number;
  order?: 'breadth' | 'depth';
  budgetMs?: number;
  signal?: AbortSignal;
  /** Default true: in-flight attempts are aborted with the signal. */
  abortInFlight?: boolean;
  /** A reply that arrived but does not count as success (e.g. an ACK with an error status). */
  accept?: (value: T) => boolean;
  settled?: (key: string) => boolean;
  onProgress?: (p: PipelineProgress) => void;
  onOutcome?: (o: UnicastOutcome<T>) => void;
}

interface Item<T> {
  job: UnicastJob<T>;
  index: number;
  tries: number;
  readyAt: number;
  last: { reason: PipelineFailure; detail: string } | null;
}

/** Failures after which another attempt cannot help (for this item or for all). */
const FINAL_FOR_ITEM: ReadonlySet<PipelineFailure> = new Set(['invalid']);
const FINAL_FOR_ALL: ReadonlySet<PipelineFailure> = new Set(['link_down', 'cancelled']);

export async function runUnicastPipeline<T>(
  jobs: readonly UnicastJob<T>[],
  opts: PipelineOptions<T>,
): Promise<UnicastOutcome<T>[]> {
  const { clock, signal } = opts;
  const depth = Math.max(1, Math.floor(opts.depth ?? DEFAULT_PIPELINE_DEPTH));
  const triesFor = (key: string): number => {
    const a = typeof opts.attempts === 'function' ? opts.attempts(key) : opts.attempts;
    return Math.max(1, Math.floor(a ?? DEFAULT_PIPELINE_ATTEMPTS));
  };
  const backoff = opts.backoffMs ?? ((n: number) => DEFAULT_PIPELINE_BACKOFF_MS * 2 ** (n - 1));
  const deadline = opts.budgetMs === undefined ? Infinity : clock.now() + opts.budgetMs;
  const inFlightSignal = opts.abortInFlight === false ? undefined : signal;

  const outcomes: (UnicastOutcome<T> | undefined)[] = new Array(jobs.length);
  const waiting: Item<T>[] = jobs.map((job, index) => ({ job, index, tries: 0, readyAt: 0, last: null }));
  const progress: PipelineProgress = {
    total: jobs.length,
    done: 0,
    ok: 0,
    failed: 0,
    inFlight: 0,
    attempts: 0,
  };
  let stopped: { reason: PipelineFailure; detail: string } | null = null;

  const report = (): void => {
    try {
      opts.onProgress?.({ ...progress });
    } catch {
      // A faulty progress callback must not break the exchanges.
    }
  };
  const settle = (item: Item<T>, o: UnicastOutcome<T>): void => {
    outcomes[item.index] = o;
    progress.done++;
    if (o.ok) progress.ok++;
    else progress.failed++;
    try {
      opts.onOutcome?.(o);
    } catch {
      // as above
    }
    report();
  };
  const fail = (item: Item<T>, reason: PipelineFailure, detail: string): void =>
    settle(item, { key: item.job.key, ok: false, reason, detail, attempts: item.tries });

  /** The next item that may start now: fewest tries first ('breadth') or most ('depth'). */
  const rank = (it: Item<T>): number => (opts.order === 'depth' ? -it.tries : it.tries);
  const pick = (now: number): Item<T> | undefined => {
    let best = -1;
    for (let i = 0; i < waiting.length; i++) {
      const it = waiting[i] as Item<T>;
      if (it.readyAt > now) continue;
      if (best < 0 || rank(it) < rank(waiting[best] as Item<T>)) best = i;
    }
    return best < 0 ? undefined : waiting.splice(best, 1)[0];
  };

  const worker = async (): Promise<void> => {
    for (;;) {
      if (stopped || waiting.length === 0) return;
      if (signal?.aborted) {
        stopped = { reason: 'cancelled', detail: 'cancelled' };
        return;
      }
      const now = clock.now();
      if (now >= deadline) {
        stopped = { reason: 'budget', detail: `time budget of ${opts.budgetMs ?? 0} ms used up` };
        return;
      }
      const item = pick(now);
      if (!item) {
        // Only retries in backoff are left: sleep until the first is due (or the budget ends).
        const next = Math.min(deadline, ...waiting.map((w) => w.readyAt));
        try {
          await clock.sleep(Math.max(1, next - now), signal);
        } catch {
          stopped = { reason: 'cancelled', detail: 'cancelled' };
          return;
        }
        continue;
      }
      if (opts.settled?.(item.job.key)) {
        fail(item, 'skipped', 'settled elsewhere');
        continue;
      }
      item.tries++;
      progress.attempts++;
      progress.inFlight++;
      report();
      let r: Reply<T>;
      try {
        r = await item.job.attempt({ attempt: item.tries, signal: inFlightSignal });
      } catch (err) {
        r = { ok: false, reason: 'no_reply', detail: err instanceof Error ? err.message : String(err) };
      }
      progress.inFlight--;
      if (r.ok && (opts.accept?.(r.value) ?? true)) {
        settle(item, { key: item.job.key, ok: true, value: r.value, attempts: item.tries });
        continue;
      }
      const reason: PipelineFailure = r.ok ? 'refused' : r.reason;
      const detail = r.ok ? `${item.job.key}: reply refused` : r.detail;
      if (FINAL_FOR_ALL.has(reason)) {
        fail(item, reason, detail);
        stopped ??= { reason, detail };
        return;
      }
      if (FINAL_FOR_ITEM.has(reason) || item.tries >= triesFor(item.job.key)) {
        fail(item, reason, detail);
        continue;
      }
      item.last = { reason, detail };
      item.readyAt = clock.now() + backoff(item.tries);
      waiting.push(item);
    }
  };

  report();
  const n = Math.min(depth, jobs.length);
  await Promise.all(Array.from({ length: n }, worker));
  // Whatever never got a final outcome: its last failure, or why the pipeline stopped.
  for (const item of waiting.splice(0)) {
    const why = stopped ?? { reason: 'budget' as const, detail: 'not attempted' };
    if (why.reason === 'budget' && item.last) fail(item, item.last.reason, item.last.detail);
    else fail(item, why.reason, why.detail);
  }
  return outcomes.map(
    (o, i) =>
      o ?? { key: jobs[i]?.key ?? '', ok: false, reason: 'cancelled', detail: 'not attempted', attempts: 0 },
  );
}
