/**
 * Safety sends (Blackout, the red flag) go out more than once. They are broadcasts: the
 * firmware has no ACK for PRESET or CONTROL and no sequence number (wire §5.2, §6.15), so a
 * node whose radio was busy (sending its status reply), whose link sat at the noise floor or
 * which heard a collision just misses the one frame — and keeps showing green. Both looks are
 * idempotent (brightness 0, or one colour without FORCE_REAPPLY), so a node that already has
 * the look and hears it again shows nothing new: the same frames may simply be sent again.
 *
 * The first round goes out at once, exactly as before (the caller's answer waits only for it).
 * Then more follow, each a gap after the previous one left the antenna, the gaps growing: the
 * early ones catch a node that heard a collision or sat at its link's noise floor; the late
 * ones a node that was deaf because a status poll had it queue a reply (a node does not
 * listen from queuing a reply until it is sent, up to 5 s on a busy channel, wire §8.5). No
 * repeat goes out once anything that changes what a known node shows was handed to a gateway
 * in between (a later control, a scene frame, another flag, another Blackout): a repeat must
 * never undo a later command. Frames to groups nobody is in (a fader surface's spare channels)
 * do not count; a status poll does not either.
 *
 * While repeats are pending, bulk traffic (status polls, discovery) is held back: a poll
 * started meanwhile would have the whole field queue replies and go deaf again — the repeats
 * would land in that window too. The poll goes on once the last repeat is out (or dropped).
 *
 * After the last repeat, until a later command goes out (or a minute has passed), each status
 * reply is checked: a node whose reply says it does not show the look (its brightness, its
 * effect) is sent the same frames once more, to it alone — a node at its link's noise floor
 * that missed every broadcast gets one more try each time it is heard, at most a few times.
 */
import type { Clock } from '../../clock.ts';
import type { GatewayDriver, HandedFrame } from '../../gateway/types.ts';
import type { Logger } from '../../logger.ts';
import type { Device } from '../../domain/model.ts';
import { SYNC_FLAG_TRIGGER_ARMED } from '../../protocol/flags.ts';
import { BROADCAST, type Addr, type N2MReply } from '../../protocol/types.ts';

type StatusReply = Extract<N2MReply, { kind: 'STATUS_REPLY' }>;

/** After the repeats: how to tell from a node's status reply that it missed the look. */
export interface SafetyCheck {
  /** Whether the reply shows the look. */
  shows(reply: StatusReply): boolean;
  /** Sends the look's frames to one node; hands them over before it first awaits. */
  resend(addr: Addr): Promise<unknown>;
}

/** How long after the last repeat status replies are checked, and how often a node is re-sent. */
const CHECK_MS = 60_000;
const RESENDS_PER_NODE = 3;

const ALL_GROUPS = 255;

export interface SafetyRepeatOptions {
  /** One repeat per entry: the wait from the previous round's end (its frames sent). Empty: none. */
  gapsMs: readonly number[];
}

/**
 * Six rounds over ~5.5 s (the last past a reply's 5 s limit): a node misses the look only if
 * it misses all six. Two frames a round: ~0.4 s of airtime in all, once per press.
 */
export const SAFETY_REPEATS: SafetyRepeatOptions = { gapsMs: [120, 250, 500, 1200, 3000] };

export interface SafetyRepeatDeps {
  /** The host's driver (the Radio): its `handed` event sees every frame, on every network. */
  driver: Pick<GatewayDriver, 'on'>;
  clock: Pick<Clock, 'sleep' | 'now'>;
  log: Logger;
  /** Whether a frame reaches at least one known device (its group has members). */
  reaches(frame: HandedFrame): boolean;
  /** Holds bulk traffic on every gateway until the returned release is called (absent: none). */
  holdBulk?(): () => void;
  options?: SafetyRepeatOptions;
}

/** Whether a frame reaches at least one of `devices` (its network's, its group's, or it). */
export function reachesKnownDevice(
  devices: readonly Pick<Device, 'addr' | 'groupId' | 'network_id'>[],
  f: HandedFrame,
): boolean {
  const r = f.request;
  const group = 'groupId' in r ? r.groupId : ALL_GROUPS;
  return devices.some(
    (d) =>
      (f.network_id === undefined || d.network_id === f.network_id) &&
      (f.receiver === BROADCAST ? group === ALL_GROUPS || d.groupId === group : d.addr === f.receiver),
  );
}

/** Frames that change what a node shows (a triggering SYNC fires armed controls). */
function changesLook(f: HandedFrame): boolean {
  const r = f.request;
  switch (r.op) {
    case 'PRESET':
    case 'CONTROL':
    case 'STREAM':
    case 'HEADLESS':
      return true;
    case 'SYNC':
      return ((r.flags ?? 0) & SYNC_FLAG_TRIGGER_ARMED) !== 0;
    default:
      return false;
  }
}

/** What Blackout and the red flag need of the safety repeats. */
export interface SafetySender {
  send<T>(what: string, round: () => Promise<T>, check?: SafetyCheck): Promise<T>;
}

export class SafetyRepeats implements SafetySender {
  /** Look-changing frames handed so far, by anyone (safety rounds included). */
  private handed = 0;
  private readonly opts: SafetyRepeatOptions;
  private readonly running = new Set<Promise<void>>();
  private readonly offs: (() => void)[];
  /** The latest safety look's check, once its repeats are out; null when none or superseded. */
  private checking: {
    what: string;
    check: SafetyCheck;
    mark: number;
    until: number;
    resent: Map<Addr, number>;
  } | null = null;
  /** Aborted at shutdown: no repeat waits on (or keeps alive) a host that is closing. */
  private readonly closing = new AbortController();

  constructor(private readonly deps: SafetyRepeatDeps) {
    this.opts = deps.options ?? SAFETY_REPEATS;
    this.offs = [
      deps.driver.on('handed', (f) => {
        if (changesLook(f) && deps.reaches(f)) this.handed++;
      }),
      deps.driver.on('packet', (p) => {
        if (p.reply?.kind === 'STATUS_REPLY') this.onStatus(p.packet.sender, p.reply);
      }),
    ];
  }

  /**
   * Sends a round now and resolves with its result; repeats it later (see the file's head).
   * `round` must hand all its frames to the driver before it first awaits, as every send
   * does: what it hands is then told apart from what others hand afterwards.
   */
  send<T>(what: string, round: () => Promise<T>, check?: SafetyCheck): Promise<T> {
    this.checking = null;
    const first = round();
    const mark = this.handed;
    if (this.opts.gapsMs.length > 0) {
      const run = this.repeat(what, round, first, mark, check);
      this.running.add(run);
      void run.finally(() => this.running.delete(run));
    }
    return first;
  }

  /** Resolves once no repeat is pending (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  close(): void {
    for (const off of this.offs) off();
    this.checking = null;
    this.closing.abort(new Error('host closing'));
  }

  private async repeat(
    what: string,
    round: () => Promise<unknown>,
    first: Promise<unknown>,
    mark: number,
    check: SafetyCheck | undefined,
  ): Promise<void> {
    const { log, clock } = this.deps;
    const release = this.deps.holdBulk?.();
    try {
      await first;
      for (const [i, gap] of this.opts.gapsMs.entries()) {
        await clock.sleep(gap, this.closing.signal);
        if (this.handed !== mark) {
          log.debug({ what, repeat: i + 1 }, 'safety repeat dropped: a later command went out');
          return;
        }
        const done = round();
        mark = this.handed;
        await done;
      }
      log.debug({ what, repeats: this.opts.gapsMs.length }, 'safety repeats sent');
      if (check && this.handed === mark)
        this.checking = { what, check, mark, until: clock.now() + CHECK_MS, resent: new Map() };
    } catch (err) {
      if (!this.closing.signal.aborted)
        log.warn({ what, err: (err as Error).message }, 'safety repeat failed');
    } finally {
      release?.();
    }
  }

  /** A status reply while a look is checked: a node that does not show it is sent it again. */
  private onStatus(addr: Addr, reply: StatusReply): void {
    const c = this.checking;
    if (!c) return;
    if (this.handed !== c.mark || this.deps.clock.now() > c.until) {
      this.checking = null;
      return;
    }
    if (c.check.shows(reply)) return;
    const n = c.resent.get(addr) ?? 0;
    if (n >= RESENDS_PER_NODE) return;
    c.resent.set(addr, n + 1);
    this.deps.log.info({ what: c.what, addr, try: n + 1 }, 'safety look re-sent to a node that missed it');
    const done = c.check.resend(addr);
    c.mark = this.handed;
    void done.catch((err: unknown) =>
      this.deps.log.warn({ what: c.what, addr, err: (err as Error).message }, 'safety re-send failed'),
    );
  }
}
