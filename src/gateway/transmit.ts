/**
 * The driver's transmit path: the lease gate in front of the send queue, the M2N frame
 * build, the priority's deadline, and the counters kept per TX outcome.
 */
import type { Clock } from '../clock.ts';
import type { Addr, M2NRequest } from '../protocol/types.ts';
import type { DriverDiagnostics } from './driver-types.ts';
import type { ActiveRf } from './rf.ts';
import type { LeaseGate } from './lease.ts';
import { buildM2nFrame } from './m2n-frame.ts';
import type { DriverLog } from './operations.ts';
import type { DriverOptions } from './options.ts';
import type { SendQueue } from './send-queue.ts';
import type { Priority, SendOptions, TxOutcome } from './types.ts';

export class Transmitter {
  constructor(
    private readonly clock: Clock,
    private readonly options: Readonly<DriverOptions>,
    private readonly leases: LeaseGate,
    private readonly queue: SendQueue,
  ) {}

  async transmit(
    receiver: Addr,
    request: M2NRequest,
    opts: SendOptions,
    defaultPriority: Priority,
  ): Promise<TxOutcome> {
    const prio = opts.priority ?? defaultPriority;
    // Leased (an RF task has the gateway off the network's channel): urgent traffic waits
    // for the release (the task puts the channel back in its finally), the rest fails now.
    while (!this.leases.passes(opts)) {
      if (prio !== 'urgent') return { ok: false, reason: 'offchannel', detail: this.leases.detail ?? '' };
      await this.leases.whenReleased();
    }
    return this.transmitNow(receiver, request, opts, defaultPriority);
  }

  private transmitNow(
    receiver: Addr,
    request: M2NRequest,
    opts: SendOptions,
    defaultPriority: Priority,
  ): Promise<TxOutcome> {
    const label = `${request.op} to ${receiver}`;
    const built = buildM2nFrame(receiver, request, label);
    if (!built.ok) return Promise.resolve({ ok: false, reason: 'invalid', detail: built.detail });
    const priority = opts.priority ?? defaultPriority;
    const deadlineMs =
      opts.deadlineMs ??
      (priority === 'interactive' ? this.options.interactiveDeadlineMs : this.options.bulkDeadlineMs);
    return this.queue.enqueue({
      frame: built.frame,
      typeFull: built.typeFull,
      priority,
      deadlineAt: this.clock.now() + deadlineMs,
      label,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
  }
}

type OutcomeCounters = Pick<
  DriverDiagnostics,
  'framesSent' | 'airtimeMs' | 'framesRejected' | 'framesTimedOut' | 'deadlineDrops'
>;

/** Counts one frame's TX outcome (the send queue reports every one). */
export function countTxOutcome(
  d: OutcomeCounters,
  rf: ActiveRf,
  log: DriverLog,
  label: string,
  outcome: TxOutcome,
  frame: Uint8Array,
): void {
  if (outcome.ok) {
    d.framesSent++;
    d.airtimeMs += rf.frameAirtimeMs(frame);
    return;
  }
  if (outcome.reason === 'rejected') d.framesRejected++;
  else if (outcome.reason === 'timeout') d.framesTimedOut++;
  else if (outcome.reason === 'deadline') d.deadlineDrops++;
  log.debug({ label, reason: outcome.reason, detail: outcome.detail }, 'frame not sent');
}
