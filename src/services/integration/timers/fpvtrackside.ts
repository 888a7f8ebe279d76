/**
 * FPVTrackside as a second timer: the receiver of its Extension push (one JSON event per
 * HTTP PUT, interface v1.1; facts in shared/reference/timers.md §2).
 *
 * The route answers 200 and hands the body here (`enqueue`): the sender waits for our answer
 * before it sends the next event, so nothing slow may sit between the two. Bodies are then
 * parsed and applied in arrival order, a few per tick, off the request path:
 *
 * - `seq`: FPVTrackside sends one request at a time, so only its separate Hello call can
 *   overtake the queue by a step or two. A `seq` at or below the last one but within
 *   SEQ_WINDOW of it is out of order (counted, ignored: it is stale); one far below is a
 *   restarted FPVTrackside (a new session: numbering starts again at 1), as is a Hello going
 *   back after this session's Hello (the first Hello of a session may arrive after the
 *   events that overtook it). Gaps are events the sender dropped: counted, nothing to
 *   re-request.
 * - A `detectionId` seen before is ignored (counted): it never reaches the radio twice.
 * - Unknown types are counted and ignored; bodies that are not JSON, lack the envelope or a
 *   field the lights need are counted as malformed (with the reason as `last_error`).
 * - A flood beyond MAX_QUEUE waiting bodies drops the newest (counted), as the sender does.
 */
import type { Logger } from '../../../logger.ts';
import type { Rgb } from '../../../protocol/types.ts';
import { SourceActivity } from './source-activity.ts';
import {
  KNOWN_TYPES,
  announcementSchema,
  crashedOutSchema,
  detectionSchema,
  envelopeSchema,
  helloSchema,
  hexOf,
  lifecycleSchema,
  raceLoadedSchema,
  type ChannelInfo,
} from './fpvtrackside-events.ts';

/** What the receiver asks of the race lights (RaceLightsService). */
export interface TimerLights {
  timingPass(ev: { index: number; color: Rgb; lap_number: number; event_epoch_ms: number | null }): {
    result: string;
  };
  /** Plays a phase look through the phase player; returns the phases that ran. */
  timerPhase(phase: TimerPhase, color: string | null): string[];
  /** Counts down to a start on our clock and shows GO at it; null when no countdown runs. */
  timerStart(startAt: number): { steps: number; at_epoch_ms: number } | null;
  /** Nothing planned for this race may still fire; a countdown under way is cleared. */
  cancelRace(reason: string): boolean;
}
export type TimerPhase = 'staging' | 'start' | 'finish' | 'stop' | 'crash_out';

/** Where the Hello goes (timers-file.ts). */
export interface HelloStore {
  saveHello(hello: Record<string, unknown>, at: number): Promise<void>;
}

/** The event types that play a race phase look (documented in docs/race-lights.md). */
export const PHASE_OF: Readonly<Record<string, TimerPhase>> = {
  RaceStartAnnouncement: 'staging',
  RacePreStart: 'staging',
  RaceStart: 'start',
  RaceTimesUp: 'finish',
  RaceEnd: 'stop',
  RaceCancelled: 'stop',
  PilotCrashedOut: 'crash_out',
};

const MAX_QUEUE = 1000;
const PER_TICK = 64;
const SEQ_WINDOW = 16;
const RECENT_IDS = 4096;
const MAX_ERROR = 200;
const OFFSET_SAMPLES = 32;
const OFFSET_WINDOW_MS = 10 * 60_000;

type Counter =
  'accepted' | 'duplicate' | 'out_of_order' | 'unknown' | 'malformed' | 'unauthorized' | 'dropped';

export interface RaceState {
  round: number | null;
  race: number | null;
  race_type: string | null;
  /** started / times_up / ended / cancelled / announced / pre_start / loaded. */
  state: string;
  /** RacePreStart's exact planned start (the sender's clock), epoch ms. */
  scheduled_start_epoch_ms: number | null;
  /** RaceStartAnnouncement's estimate. */
  expected_start_epoch_ms: number | null;
  actual_start_epoch_ms: number | null;
}

interface Waiting {
  text: string;
  at: number;
}

export class FpvTracksideReceiver {
  private readonly queue: Waiting[] = [];
  private draining = false;
  private lastSeq: number | null = null;
  /** A Hello came in this session (a later one going back is a restart). */
  private helloSeen = false;
  private readonly ids = new Set<string>();
  private readonly counters: Record<Counter, number> = {
    accepted: 0,
    duplicate: 0,
    out_of_order: 0,
    unknown: 0,
    malformed: 0,
    unauthorized: 0,
    dropped: 0,
  };
  private session = { restarts: 0, gaps: 0, started_epoch_ms: null as number | null };
  private detections = { flashed: 0, filtered: 0, not_flashed: {} as Record<string, number> };
  /** Last heard, connected, events per minute (the same as every timer's). */
  private readonly activity = new SourceActivity();
  private lastEvent: { type: string; seq: number; received_epoch_ms: number } | null = null;
  private lastError: { at_epoch_ms: number; error: string } | null = null;
  /** Arrival minus the sender's `ts` of the last event: its clock against ours, plus transit. */
  private senderOffsetMs: number | null = null;
  /** Recent (arrival − ts) samples: the smallest is the clock offset plus the least transit. */
  private readonly offsets: { at: number; ms: number }[] = [];
  private race: RaceState | null = null;
  private hello: { at_epoch_ms: number; body: Record<string, unknown> } | null = null;

  constructor(
    private readonly deps: {
      lights: TimerLights;
      hello: HelloStore;
      log: Logger;
      now(): number;
    },
  ) {}

  /** The Hello kept from an earlier run (until FPVTrackside sends a new one). */
  restoreHello(h: { at_epoch_ms: number; body: Record<string, unknown> }): void {
    this.hello ??= h;
  }

  private listener: () => void = () => {};

  /** Called after the state `view()` shows changed (the UI's live stream): only when events come. */
  onChange(fn: () => void): void {
    this.listener = fn;
  }

  /** A request with a wrong or missing token (the route answered 401). */
  unauthorized(): void {
    this.counters.unauthorized++;
    this.listener();
  }

  /** A body the route has answered 200 to: queued, applied on a later tick. */
  enqueue(text: string): void {
    const at = this.deps.now();
    this.activity.heard(at);
    if (this.queue.length >= MAX_QUEUE) {
      this.count('dropped', `queue full: ${MAX_QUEUE} events waiting`);
      return;
    }
    this.queue.push({ text, at });
    if (!this.draining) {
      this.draining = true;
      setImmediate(() => this.drain());
    }
  }

  view(): Record<string, unknown> {
    const now = this.deps.now();
    return {
      connected: this.activity.connected(now),
      last_heard_epoch_ms: this.activity.lastHeard,
      last_event: this.lastEvent,
      events_per_minute: this.activity.perMinute(now),
      last_error: this.lastError,
      counters: { ...this.counters },
      waiting: this.queue.length,
      session: { ...this.session, last_seq: this.lastSeq },
      detections: structuredClone(this.detections),
      sender_offset_ms: this.senderOffsetMs,
      clock_offset_ms: this.offsets.length > 0 ? this.clockOffset() : null,
      race: this.race,
      hello: this.hello,
    };
  }

  private drain(): void {
    for (let i = 0; i < PER_TICK; i++) {
      const w = this.queue.shift();
      if (!w) break;
      try {
        this.apply(w);
      } catch (err) {
        // A bug here must not stop the receiver: the next body still gets its turn.
        this.count('malformed', `internal: ${(err as Error).message}`);
        this.deps.log.error({ err }, 'fpvtrackside: event not applied');
      }
    }
    if (this.queue.length > 0) setImmediate(() => this.drain());
    else this.draining = false;
    this.listener();
  }

  private count(c: Counter, error?: string): void {
    this.counters[c]++;
    if (error) this.lastError = { at_epoch_ms: this.deps.now(), error: error.slice(0, MAX_ERROR) };
  }

  private apply(w: Waiting): void {
    let body: unknown;
    try {
      body = JSON.parse(w.text.charCodeAt(0) === 0xfeff ? w.text.slice(1) : w.text);
    } catch (err) {
      return this.count('malformed', `body: not valid JSON (${(err as Error).message})`);
    }
    const env = envelopeSchema.safeParse(body);
    if (!env.success) return this.count('malformed', `envelope: ${issue(env.error)}`);
    const { type, seq, ts } = env.data;
    if (!this.inOrder(type, seq)) return;
    if (ts !== undefined) {
      this.senderOffsetMs = w.at - ts;
      this.noteOffset(w.at, w.at - ts);
    }
    this.lastEvent = { type, seq, received_epoch_ms: w.at };
    if (!KNOWN_TYPES.has(type)) return this.count('unknown', `type: unknown event ${type}`);
    const b = body as Record<string, unknown>;
    const bad = (what: string, e: { issues: readonly { path: PropertyKey[]; message: string }[] }): void =>
      this.count('malformed', `${what}: ${issue(e)}`);
    switch (type) {
      case 'Hello': {
        const h = helloSchema.safeParse(b);
        if (!h.success) return bad(type, h.error);
        // Stored whole (topology, paths, channels); it triggers nothing race-related.
        const { type: _t, seq: _s, ...keep } = b;
        this.hello = { at_epoch_ms: w.at, body: keep };
        this.deps.hello.saveHello(keep, w.at).catch((err: Error) => {
          this.lastError = { at_epoch_ms: this.deps.now(), error: `hello not saved: ${err.message}` };
        });
        break;
      }
      case 'DetectionExt': {
        const d = detectionSchema.safeParse(b);
        if (!d.success) return bad(type, d.error);
        if (this.ids.has(d.data.detectionId)) return this.count('duplicate');
        this.remember(d.data.detectionId);
        if (!d.data.valid) {
          this.detections.filtered++;
          break;
        }
        const r = this.deps.lights.timingPass({
          index: d.data.timingSystemIndex,
          color: rgbOf(d.data.channel ?? null),
          lap_number: d.data.lapNumber,
          event_epoch_ms: ts ?? null,
        });
        if (r.result === 'flash' || r.result === 'merged' || r.result === 'waiting')
          this.detections.flashed++;
        else this.detections.not_flashed[r.result] = (this.detections.not_flashed[r.result] ?? 0) + 1;
        break;
      }
      case 'RaceLoaded': {
        const r = raceLoadedSchema.safeParse(b);
        if (!r.success) return bad(type, r.error);
        // Another race (or this one reset): nothing of the last one may still fire.
        this.deps.lights.cancelRace('race loaded');
        this.race = { ...raceIds(r.data), state: 'loaded', ...NO_TIMES };
        break;
      }
      case 'RaceStartAnnouncement': {
        const r = announcementSchema.safeParse(b);
        if (!r.success) return bad(type, r.error);
        this.race = {
          ...this.raceFor(r.data),
          state: 'announced',
          expected_start_epoch_ms: r.data.expectedStart ?? null,
        };
        break;
      }
      case 'RacePreStart':
      case 'RaceStart':
      case 'RaceTimesUp':
      case 'RaceEnd':
      case 'RaceCancelled': {
        const r = lifecycleSchema.safeParse(b);
        if (!r.success) return bad(type, r.error);
        const race = this.raceFor(r.data);
        if (type === 'RacePreStart') {
          race.state = 'pre_start';
          race.scheduled_start_epoch_ms = r.data.scheduledStart ?? null;
          // The exact planned start, on the sender's clock: counted down to and GO at it,
          // on ours. A countdown takes the gates: no staging look over its armed steps.
          const at = r.data.scheduledStart;
          const cd = typeof at === 'number' ? this.deps.lights.timerStart(at + this.clockOffset()) : null;
          this.race = race;
          if (cd) {
            this.count('accepted');
            return;
          }
        } else if (type === 'RaceStart') {
          race.state = 'started';
          race.actual_start_epoch_ms = r.data.actualStart ?? null;
        } else race.state = { RaceTimesUp: 'times_up', RaceEnd: 'ended', RaceCancelled: 'cancelled' }[type];
        this.race = race;
        break;
      }
      case 'PilotCrashedOut': {
        const r = crashedOutSchema.safeParse(b);
        if (!r.success) return bad(type, r.error);
        this.count('accepted');
        const ch = r.data.pilot.channel;
        this.deps.lights.timerPhase('crash_out', ch ? hexOf(ch) : null);
        return;
      }
      default:
        break; // known, nothing for the lights (results, rankings, rosters, next race)
    }
    this.count('accepted');
    const phase = PHASE_OF[type];
    if (phase) this.deps.lights.timerPhase(phase, null);
  }

  private noteOffset(at: number, ms: number): void {
    this.offsets.push({ at, ms });
    while (
      this.offsets.length > OFFSET_SAMPLES ||
      (this.offsets[0] && at - this.offsets[0].at > OFFSET_WINDOW_MS)
    )
      this.offsets.shift();
  }

  /**
   * Our clock minus the sender's. FPVTrackside may run on another PC whose clock is off by
   * seconds; each event's creation time (`ts`) against its arrival tells by how much. An
   * event that waited in the sender's one-in-flight queue arrives late, so the smallest
   * recent difference is the estimate (a queue only ever adds).
   */
  private clockOffset(): number {
    return this.offsets.length > 0 ? Math.min(...this.offsets.map((o) => o.ms)) : 0;
  }

  /** Sequence rules (see the module comment); false: the event is not applied. */
  private inOrder(type: string, seq: number): boolean {
    const last = this.lastSeq;
    const hello = type === 'Hello';
    if (last === null || seq > last) {
      if (last !== null && seq > last + 1) this.session.gaps += seq - last - 1;
      if (last === null) this.session.started_epoch_ms = this.deps.now();
      this.lastSeq = seq;
      if (hello) this.helloSeen = true;
      return true;
    }
    // Far back, or a second Hello going back: FPVTrackside started again (a new session).
    if (seq < last - SEQ_WINDOW || (hello && this.helloSeen)) {
      this.session = { restarts: this.session.restarts + 1, gaps: 0, started_epoch_ms: this.deps.now() };
      this.lastSeq = seq;
      this.helloSeen = hello;
      this.deps.log.info({ seq, last }, 'fpvtrackside: sender restarted (sequence went back)');
      return true;
    }
    // The session's first Hello, overtaken by the queue (it goes over its own call).
    if (hello) {
      this.helloSeen = true;
      return true;
    }
    this.count('out_of_order', `seq: ${seq} after ${last}`);
    return false;
  }

  private remember(id: string): void {
    this.ids.add(id);
    if (this.ids.size > RECENT_IDS) {
      const oldest = this.ids.values().next().value as string;
      this.ids.delete(oldest);
    }
  }

  /** This race's state, or a fresh one when the event names another race. */
  private raceFor(ids: { round?: number | null; race?: number | null; raceType?: string | null }): RaceState {
    const cur = this.race;
    const same = cur && cur.round === (ids.round ?? null) && cur.race === (ids.race ?? null);
    return same ? { ...cur } : { ...raceIds(ids), state: 'loaded', ...NO_TIMES };
  }
}

const NO_TIMES = {
  scheduled_start_epoch_ms: null,
  expected_start_epoch_ms: null,
  actual_start_epoch_ms: null,
};

function raceIds(d: { round?: number | null; race?: number | null; raceType?: string | null }): {
  round: number | null;
  race: number | null;
  race_type: string | null;
} {
  return { round: d.round ?? null, race: d.race ?? null, race_type: d.raceType ?? null };
}

/** A pilot without a channel colour flashes white. */
function rgbOf(c: ChannelInfo | null): Rgb {
  return c ? [c.colorR, c.colorG, c.colorB] : [255, 255, 255];
}

function issue(e: { issues: readonly { path: PropertyKey[]; message: string }[] }): string {
  const i = e.issues[0];
  if (!i) return 'invalid';
  return i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message;
}
