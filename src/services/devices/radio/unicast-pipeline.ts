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
import type { Clock } from '../../../clock.ts';
import type { Reply, TxFailure } from '../../../gateway/types.ts';
import { errText } from '../../../util/err-text.ts';

/**
 * Exchanges in flight by default. Measured with bench/pipeline-depth.ts (healthy bound
 * nodes of a 200 fleet, SF7/125 kHz, seeds 1–2, 374 exchanges per cell; first-attempt
 * loss, answered exchanges per simulated second):
 *   depth               1          2          3          4           5
 *   STATUS free         0 % 3.8    6 % 4.9    9 % 5.6    24 % 5.0    28 % 5.3
 *   STATUS burst        —          2 % 4.9    5 % 5.3    9 % 5.3     19 % 5.0
 *   SET_GROUP free      1 % 3.8    4 % 5.1    11 % 5.4   16 % 5.7    18 % 6.2
 *   SET_GROUP burst     —          2 % 5.0    6 % 5.3    9 % 5.7     14 % 5.7
 * Losses are the gateway (no LBT) transmitting while a reply is on the air: the reply dies
 * at the gateway, and the request dies at its target, drowned by the nearer replying node.
 * Free-running pipelines hit that at a rate growing with the depth; burst pacing confines
 * it to the few ms between a burst's own requests. Depth 3 with bursts: ~40 % more
 * answers per second than one at a time, at ~5 % retries.
 */
export const DEFAULT_PIPELINE_DEPTH = 3;
/**
 * Per-attempt reply window for pipelined exchanges (an SF7/125 kHz value: the driver
 * stretches it for slower RF settings like its own windows). A burst-paced reply either
 * arrives within the burst's quiet time (~575 ms) or is lost; the driver's one-at-a-time
 * windows (1.15–1.5 s) would only make every lost attempt hold its slot longer.
 */
export const PIPELINE_ATTEMPT_TIMEOUT_MS = 800;
/**
 * The per-try reply window of one network's leg when several gateways run (discovery's
 * SET_GROUPs on a leg past the small-fleet size, the poll's unicast follow-up; SF7/125 kHz
 * value, stretched alike): the latest a burst-paced reply can still end (replyQuietMs: ~570
 * ms for an ACK, ~575 ms for a STATUS reply) plus 45 ms for USB and scheduling. With
 * several networks each one's tail — the tries to its few weak or silent nodes, one after
 * the other — is the critical path that does not halve with the fleet, and every failed try
 * waits out its whole window (a late reply still counts: the next try's window or the
 * poll's listener takes it). One gateway keeps PIPELINE_ATTEMPT_TIMEOUT_MS (its measured
 * figures, bench/fleet.ts, stay as they are).
 */
export const LEG_ATTEMPT_TIMEOUT_MS = 620;
/** Attempts per item by default (the first try plus two retries). */
export const DEFAULT_PIPELINE_ATTEMPTS = 3;
/** First retry backoff; doubled for every further retry of the same item. */
export const DEFAULT_PIPELINE_BACKOFF_MS = 150;

export interface UnicastJob<T> {
  /** Identity in outcomes, progress and `settled` (usually the device address). */
  readonly key: string;
  /**
   * One try of the exchange; `attempt` counts from 1. Pass `onSent` on to the driver
   * (SendOptions.onSent) so that burst pacing knows when the request left the antenna.
   */
  attempt(a: {
    attempt: number;
    signal: AbortSignal | undefined;
    onSent: (ts: number) => void;
  }): Promise<Reply<T>>;
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
  /**
   * Burst pacing (recommended on the radio): requests go out in bursts of `depth`
   * back-to-back frames, and the next burst starts only when every reply of this one
   * arrived or `quietMs` passed after its last request's TX_DONE (the latest a reply can
   * still start plus its airtime: see replyQuietMs). The gateway (no LBT) then never starts
   * a request while a reply of the previous burst is on the air. Exchanges that are still
   * waiting out their reply window do not hold back the next burst.
   */
  burst?: { quietMs: number };
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

/** Attempts started within this many ms of a burst's first one belong to that burst. */
const LAUNCH_MS = 5;

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
      if (gate && !gate.tryEnter()) {
        // The burst is full or still listening: put the item back and wait for the next one.
        waiting.unshift(item);
        try {
          await gate.nextBurst(signal);
        } catch {
          stopped = { reason: 'cancelled', detail: 'cancelled' };
          return;
        }
        continue;
      }
      item.tries++;
      progress.attempts++;
      progress.inFlight++;
      report();
      const ticket = gate?.ticket();
      let r: Reply<T>;
      try {
        r = await item.job.attempt({
          attempt: item.tries,
          signal: inFlightSignal,
          onSent: (ts) => ticket?.sent(ts),
        });
      } catch (err) {
        r = { ok: false, reason: 'no_reply', detail: errText(err) };
      }
      ticket?.done();
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

  const gate = opts.burst ? new BurstGate(clock, depth, opts.burst.quietMs) : null;
  report();
  // With bursts, exchanges of an earlier burst may still wait out their windows: more
  // workers than the burst size keep those from shrinking the next burst.
  const n = Math.min(gate ? 2 * depth : depth, jobs.length);
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

/**
 * The latest a node's reply to a request that left the antenna can still start, plus its
 * airtime (§8.5): the reply delay (up to 300 ms), a CAD, one LBT backoff (up to 200 ms,
 * common while a burst's other replies are on the air), a second CAD, the reply itself,
 * and 20 ms for USB and scheduling. SF7/125 kHz, 8-byte STATUS reply: ~575 ms; SF12: ~2 s.
 */
export function replyQuietMs(replyAirtimeMs: number, symbolMs: number): number {
  return Math.ceil(300 + 200 + 8 * symbolMs + replyAirtimeMs + 20);
}

/** Burst pacing state (see PipelineOptions.burst). */
class BurstGate {
  private epoch = 0;
  private entered = 0;
  private open = 0;
  private startedAt = 0;
  private lastSentAt = 0;
  private waiters: (() => void)[] = [];
  private timer: { cancel(): void } | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly size: number,
    private readonly quietMs: number,
  ) {}

  /**
   * True if an attempt may join the current burst: it has room and is still being
   * launched (its requests are queued together; a retry that becomes due later waits for
   * the next burst instead of transmitting into this one's replies).
   */
  tryEnter(): boolean {
    const now = this.clock.now();
    if (this.entered >= this.size) return false;
    if (this.entered > 0 && now - this.startedAt > LAUNCH_MS) return false;
    if (this.entered === 0) this.startedAt = now;
    this.entered++;
    this.open++;
    return true;
  }

  ticket(): { sent(ts: number): void; done(): void } {
    const epoch = this.epoch;
    let finished = false;
    return {
      sent: (ts) => {
        if (epoch !== this.epoch) return;
        this.lastSentAt = Math.max(this.lastSentAt, ts);
        this.timer?.cancel();
        this.timer = this.clock.setTimeout(
          () => this.release(),
          Math.max(0, ts + this.quietMs - this.clock.now()),
        );
      },
      done: () => {
        if (finished || epoch !== this.epoch) return;
        finished = true;
        this.open--;
        if (this.open === 0) this.release();
      },
    };
  }

  /** Resolves when the next burst may start. */
  nextBurst(signal?: AbortSignal): Promise<void> {
    if (this.entered === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const onAbort = (): void => reject(signal?.reason as Error);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  /** The burst is over: its replies are in or can no longer start. */
  private release(): void {
    this.timer?.cancel();
    this.timer = null;
    this.epoch++;
    this.entered = 0;
    this.open = 0;
    this.lastSentAt = 0;
    for (const fn of this.waiters.splice(0)) fn();
  }
}
