/**
 * The radio send queue: a priority queue (urgent, then interactive, then bulk; FIFO within a class)
 * with a deadline per item, and exactly one M2N frame in flight. A frame is written, then
 * the queue waits for its outcome (EV_TX_DONE / EV_TX_REJECTED; a 2 s guard, longer where
 * the frame's airtime at the active RF settings needs it) before the next frame goes out,
 * because the gateway has a single TX slot and no queue (§4.4).
 *
 * Attributing the unlabelled EV_TX_DONE (§4.4/§4.5): the gateway also transmits on its own
 * (autosync every ≥ 30 s, SYNC auto-retries, stream fragments), and each of those ends with
 * an identical TX_DONE. Rules used here:
 *   1. No frame in flight → every TX_DONE / TX_REJECTED is an orphan and ignored.
 *   2. A TX_REJECTED is ours only if its echoed type_full equals our frame's type. A
 *      TXPENDING-rejected frame is written again after a short gap, except SYNC: the gateway
 *      retries a rejected SYNC by itself, so we wait for that transmission instead.
 *   3. Every accepted frame makes the gateway enter TX (`F1 01`) before its TX_DONE. A
 *      TX_DONE seen after our write AND after a TX-state entry is ours. A TX_DONE without a
 *      preceding TX entry belongs to a transmission that began before our write (or the
 *      `F1 01` was lost to line noise): it is held for `outcomeConfirmMs`; if the gateway
 *      enters TX meanwhile, it was not ours and we keep waiting, otherwise it is accepted.
 *   4. Before writing, we wait (bounded) while the mirrored gateway state is TX, so our
 *      frame does not land on a busy slot during autosync or stream fragments.
 * Residual ambiguity: if an autosync starts after our bytes left the host but before the
 * gateway read them, and the gateway reads them only after that autosync finished, the
 * autosync's `F1 01`/`F3 01` precede ours and its TX_DONE is taken as our outcome (ours then
 * arrives as an orphan and is ignored). Our frame is still transmitted moments later, so
 * the result ("sent") is right; only the reported instant is early. A TXPENDING rejection
 * (the usual consequence of that race) is recognised by rule 2 and retried.
 */
import type { Clock, TimerHandle } from '../clock.ts';
import { rejectReasonName } from '../protocol/events.ts';
import { GW_STATE, OPC, TX_REJECT } from '../protocol/types.ts';
import type { DriverOptions } from './options.ts';
import type { Priority, TxFailure, TxOutcome } from './types.ts';
import { errText } from '../util/err-text.ts';

export interface QueueItemInput {
  /** The complete USB frame (SOF, LEN, TYPE, DATA). */
  frame: Uint8Array;
  /** The frame's TYPE byte (M2N type_full), echoed by EV_TX_REJECTED. */
  typeFull: number;
  priority: Priority;
  /** Absolute clock time after which the item, if still unsent, is dropped. */
  deadlineAt: number;
  signal?: AbortSignal;
  /** For logs and failure details, e.g. "SET_GROUP to AABBCC". */
  label: string;
}

interface QueueItem extends QueueItemInput {
  seq: number;
  settle: (o: TxOutcome) => void;
  deadlineTimer: TimerHandle | null;
  unlistenAbort: (() => void) | null;
}

type RawOutcome =
  | { kind: 'done' }
  | { kind: 'rejected'; reason: number }
  | { kind: 'timeout'; guardMs: number }
  | { kind: 'link_down'; detail: string };

interface InFlight {
  item: QueueItem;
  sawTxStart: boolean;
  /** A SYNC the gateway rejected as TXPENDING and will send by itself. */
  syncDeferred: boolean;
  confirmTimer: TimerHandle | null;
  guardTimer: TimerHandle | null;
  guardMs: number;
  resolve: (o: RawOutcome) => void;
}

export interface SendQueueHooks {
  /** Writes bytes to the link; a rejection means the link is broken. */
  write(bytes: Uint8Array): Promise<void>;
  /** Called once per finished item with its final outcome and the attempts used. */
  onOutcome?(label: string, outcome: TxOutcome, frame: Uint8Array): void;
  /** Called for every TXPENDING rejection that is retried. */
  onTxPendingRetry?(label: string): void;
  /** Called for TX_DONE / TX_REJECTED events that were not ours. */
  onOrphan?(what: 'tx_done' | 'tx_rejected'): void;
  /** Outcome guard of this frame (default: options.outcomeGuardMs); grows with its airtime. */
  outcomeGuardMs?(frame: Uint8Array): number;
  /** Bound on waiting while the gateway transmits (default: options.busyWaitMaxMs). */
  busyWaitMaxMs?(): number;
}

const fail = (reason: TxFailure, detail: string): TxOutcome => ({ ok: false, reason, detail });

export class SendQueue {
  private readonly queues: Record<Priority, QueueItem[]> = { urgent: [], interactive: [], bulk: [] };
  private inflight: InFlight | null = null;
  private pumping = false;
  private open = false;
  private closedDetail = 'gateway link is not connected';
  private txBusy = false;
  private busyWaiter: (() => void) | null = null;
  private seq = 0;
  /** Holders of the bulk hold (an armed race start): bulk items wait while any is held. */
  private bulkHolds = 0;

  constructor(
    private readonly clock: Clock,
    private readonly options: DriverOptions,
    private readonly hooks: SendQueueHooks,
  ) {}

  get depth(): number {
    return this.queues.urgent.length + this.queues.interactive.length + this.queues.bulk.length;
  }

  /**
   * Frames queued that would go before a new frame of this priority (its own class is FIFO).
   * Bulk frames never go before an urgent or interactive one: a status poll in the queue does
   * not delay a lap flash by more than the one frame already on the air.
   */
  aheadOf(priority: Priority): number {
    const urgent = this.queues.urgent.length;
    if (priority === 'urgent') return urgent;
    const interactive = urgent + this.queues.interactive.length;
    return priority === 'interactive' ? interactive : interactive + this.queues.bulk.length;
  }

  /**
   * Holds bulk traffic (status polls, group pushes, discovery) until the returned release is
   * called, so the TX slot is idle for urgent/interactive frames (the armed race start's
   * SYNC). Held items keep their deadlines: a hold longer than the bulk deadline fails them
   * as `deadline`, honestly unsent. Releases are idempotent.
   */
  hold(_cls: 'bulk'): () => void {
    this.bulkHolds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.bulkHolds--;
      if (this.bulkHolds === 0 && this.open && this.depth > 0) this.pump();
    };
  }

  get held(): boolean {
    return this.bulkHolds > 0;
  }

  get busy(): boolean {
    return this.inflight !== null || this.pumping;
  }

  /** The link came up: sending may begin. */
  setOpen(): void {
    this.open = true;
    this.txBusy = false;
    this.pump();
  }

  /** The link went down: every queued and in-flight item fails with `link_down`. */
  setClosed(detail: string, reason: Extract<TxFailure, 'link_down' | 'cancelled'> = 'link_down'): void {
    this.open = false;
    this.closedDetail = detail;
    this.txBusy = false;
    this.wakeBusyWaiter();
    const f = this.inflight;
    if (f) f.resolve({ kind: 'link_down', detail });
    for (const p of ['urgent', 'interactive', 'bulk'] as const) {
      const items = this.queues[p].splice(0);
      for (const it of items) this.finish(it, fail(reason, detail));
    }
  }

  enqueue(input: QueueItemInput): Promise<TxOutcome> {
    return new Promise<TxOutcome>((resolve) => {
      if (!this.open) {
        resolve(fail('link_down', this.closedDetail));
        return;
      }
      if (input.signal?.aborted) {
        resolve(fail('cancelled', `${input.label}: cancelled before sending`));
        return;
      }
      const item: QueueItem = {
        ...input,
        seq: this.seq++,
        settle: resolve,
        deadlineTimer: null,
        unlistenAbort: null,
      };
      const remaining = input.deadlineAt - this.clock.now();
      item.deadlineTimer = this.clock.setTimeout(
        () => this.dropQueued(item, fail('deadline', `${item.label}: not sent within its deadline`)),
        Math.max(0, remaining),
      );
      if (input.signal) {
        const onAbort = (): void =>
          this.dropQueued(item, fail('cancelled', `${item.label}: cancelled before sending`));
        input.signal.addEventListener('abort', onAbort, { once: true });
        item.unlistenAbort = () => input.signal?.removeEventListener('abort', onAbort);
      }
      this.queues[input.priority].push(item);
      this.pump();
    });
  }

  /** EV_STATE_CHANGED / EV_STATE_REPORT. */
  onState(stateByte: number): void {
    this.txBusy = stateByte === GW_STATE.TX;
    if (!this.txBusy) this.wakeBusyWaiter();
    const f = this.inflight;
    if (f && stateByte === GW_STATE.TX) {
      // A new transmission started after our write: a held TX_DONE was not ours.
      f.confirmTimer?.cancel();
      f.confirmTimer = null;
      f.sawTxStart = true;
    }
  }

  onTxDone(): void {
    const f = this.inflight;
    if (!f) {
      this.hooks.onOrphan?.('tx_done');
      return;
    }
    if (f.sawTxStart) {
      f.resolve({ kind: 'done' });
      return;
    }
    if (f.confirmTimer) return;
    f.confirmTimer = this.clock.setTimeout(() => f.resolve({ kind: 'done' }), this.options.outcomeConfirmMs);
  }

  onTxRejected(typeFull: number, reason: number): void {
    const f = this.inflight;
    if (!f || f.item.typeFull !== typeFull) {
      this.hooks.onOrphan?.('tx_rejected');
      return;
    }
    if (typeFull === OPC.SYNC && reason === TX_REJECT.TXPENDING && !f.syncDeferred) {
      // The gateway keeps a rejected SYNC and sends it itself once the slot frees (§3.4):
      // re-sending would put a second SYNC on the air. Its later TX cycle is our outcome;
      // the TX_DONE of whatever held the slot must not count.
      f.syncDeferred = true;
      f.sawTxStart = false;
      f.confirmTimer?.cancel();
      f.confirmTimer = null;
      return;
    }
    f.resolve({ kind: 'rejected', reason });
  }

  private dropQueued(item: QueueItem, outcome: TxOutcome): void {
    const q = this.queues[item.priority];
    const i = q.indexOf(item);
    if (i < 0) return; // already in flight or finished
    q.splice(i, 1);
    this.finish(item, outcome);
  }

  private finish(item: QueueItem, outcome: TxOutcome): void {
    item.deadlineTimer?.cancel();
    item.deadlineTimer = null;
    item.unlistenAbort?.();
    item.unlistenAbort = null;
    this.hooks.onOutcome?.(item.label, outcome, item.frame);
    item.settle(outcome);
  }

  private takeNext(): QueueItem | undefined {
    const next = this.queues.urgent.shift() ?? this.queues.interactive.shift();
    return next ?? (this.bulkHolds > 0 ? undefined : this.queues.bulk.shift());
  }

  private pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    void (async () => {
      try {
        while (this.open) {
          const item = this.takeNext();
          if (!item) break;
          item.deadlineTimer?.cancel();
          item.deadlineTimer = null;
          this.finish(item, await this.transmit(item));
        }
      } finally {
        this.pumping = false;
      }
      // An item may have been queued while the last outcome was being delivered.
      if (this.open && this.depth > this.heldDepth()) this.pump();
    })();
  }

  private heldDepth(): number {
    return this.bulkHolds > 0 ? this.queues.bulk.length : 0;
  }

  private async transmit(item: QueueItem): Promise<TxOutcome> {
    for (let attempt = 0; ; attempt++) {
      await this.waitWhileBusy();
      if (!this.open) return fail('link_down', this.closedDetail);
      if (attempt === 0 && this.clock.now() > item.deadlineAt) {
        return fail('deadline', `${item.label}: not sent within its deadline (gateway busy)`);
      }
      const raw = await this.writeAndAwait(item);
      switch (raw.kind) {
        case 'done':
          return { ok: true };
        case 'timeout':
          return fail('timeout', `${item.label}: no TX outcome from the gateway within ${raw.guardMs} ms`);
        case 'link_down':
          return fail('link_down', raw.detail);
        case 'rejected':
          if (raw.reason === TX_REJECT.TXPENDING && attempt < this.options.txPendingRetries) {
            this.hooks.onTxPendingRetry?.(item.label);
            await this.clock.sleep(this.options.txPendingGapMs);
            continue;
          }
          return fail(
            'rejected',
            `${item.label}: gateway rejected the frame (${rejectReasonName(raw.reason)})`,
          );
      }
    }
  }

  private writeAndAwait(item: QueueItem): Promise<RawOutcome> {
    return new Promise<RawOutcome>((resolve) => {
      const f: InFlight = {
        item,
        sawTxStart: false,
        syncDeferred: false,
        confirmTimer: null,
        guardTimer: null,
        guardMs: this.hooks.outcomeGuardMs?.(item.frame) ?? this.options.outcomeGuardMs,
        resolve: (o) => {
          if (this.inflight !== f) return;
          this.inflight = null;
          f.confirmTimer?.cancel();
          f.guardTimer?.cancel();
          resolve(o);
        },
      };
      this.inflight = f;
      f.guardTimer = this.clock.setTimeout(
        () => f.resolve({ kind: 'timeout', guardMs: f.guardMs }),
        f.guardMs,
      );
      this.hooks.write(item.frame).catch((err: unknown) => {
        const msg = errText(err);
        f.resolve({ kind: 'link_down', detail: `${item.label}: write failed: ${msg}` });
      });
    });
  }

  /** Waits (bounded) while the gateway reports TX, so we do not hit a busy slot. */
  private async waitWhileBusy(): Promise<void> {
    if (!this.txBusy || !this.open) return;
    await new Promise<void>((resolve) => {
      const timer = this.clock.setTimeout(() => {
        // The TX state was stale (an IDLE event got lost): stop trusting it.
        this.txBusy = false;
        this.busyWaiter = null;
        resolve();
      }, this.hooks.busyWaitMaxMs?.() ?? this.options.busyWaitMaxMs);
      this.busyWaiter = () => {
        timer.cancel();
        this.busyWaiter = null;
        resolve();
      };
    });
  }

  private wakeBusyWaiter(): void {
    this.busyWaiter?.();
  }
}
