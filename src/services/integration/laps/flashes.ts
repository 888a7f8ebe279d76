/**
 * The lap-flash pipeline: a pass flashes its gate in the pilot's colour, then the gate's
 * look comes back.
 *
 * Radio discipline (a race is never delayed): lap frames bypass the scene runner and are
 * handed to the driver one at a time, at interactive priority (Blackout and the start SYNC
 * are urgent and go first). A pass that meets other traffic waiting for the radio is
 * dropped; a pass that meets our own flash on the air joins its gate's waiting batch
 * (merge.ts) and goes out next, unless it waited too long — then it is dropped too. Every
 * drop is counted by reason. Flash ends (restores) are never dropped: they wait their turn.
 */
import { BROADCAST, type Rgb } from '../../../protocol/types.ts';
import { addPass, flashColors, maxWaitMs, takeBatch, type GateBatch } from './merge.ts';
import { gateLabel, gateTarget, seatColor, seatGate } from './phases.ts';
import type { Gate } from './settings.ts';
import type { Frame, LapEvent, RaceLightsDeps } from './types.ts';
import type { DropReason, IgnoreReason, RaceLightsCounts } from './counts.ts';
import { requestGroup, restoreFrame, withColors } from './flash-frames.ts';

/** Who asked for a flash: a timer's pass, or the operator's Test button. */
export type FlashSource = 'rotorhazard' | 'fpvtrackside' | 'test';
export type FlashResult = 'flash' | 'merged' | 'waiting' | DropReason;

interface FlashRecord {
  source: FlashSource;
  seats: number[];
  /** A second timer's timing system (FPVTrackside), else null. */
  timing_system: number | null;
  /** When the timing application saw the (first) pass, if it said. */
  event_epoch_ms: number | null;
  gate: string;
  colors: string[];
  received_epoch_ms: number;
  sent_epoch_ms: number | null;
  ok: boolean;
  error: string | null;
}

interface Waiting extends GateBatch {
  frames: Frame[];
  gate: Gate;
  eventAt: number | null;
  source: FlashSource;
  timingSystem: number | null;
}

/** Where a pass came from, for the records and the live counters. */
interface Origin {
  source: FlashSource;
  seat: number;
  timingSystem: number | null;
}

/** Passes per seat or timing system this race (the Race lights page's counters). */
interface PassCount {
  passes: number;
  last_lap: number;
  last_epoch_ms: number;
}

export type FlashDeps = Pick<
  RaceLightsDeps,
  | 'log'
  | 'wall'
  | 'heat'
  | 'planEffect'
  | 'admit'
  | 'send'
  | 'radioBacklog'
  | 'flashAirtimeMs'
  | 'looks'
  | 'settings'
  | 'suppressed'
> & {
  counts: RaceLightsCounts;
  /** Something `view()` shows changed. */
  changed(): void;
};

const RECENT = 50;
/** A pass that is no timer seat's (a second timer's timing system): left out of `seats`. */
const NO_SEAT = -1;
const seatsOf = (seats: number[]): number[] => seats.filter((x) => x !== NO_SEAT);
const RESTORE_DEADLINE_MS = 5000;

const hex = (c: Rgb): string => '#' + c.map((v) => v.toString(16).padStart(2, '0')).join('');

export class LapFlashes {
  private readonly pending: Waiting[] = [];
  /** Flash ends per gate (the flash frames: where to put the look back); `due` once the flash
   * length has passed — set by its timer, which may fire a hair before the wall clock reads
   * the end: the timer, not the clock, decides. */
  private readonly restores = new Map<string, { due: boolean; frames: Frame[]; timer: { cancel(): void } }>();
  private inFlight = false;
  private readonly counts: RaceLightsCounts;
  private readonly recent: FlashRecord[] = [];
  private readonly bySeat = new Map<number, PassCount>();
  private readonly byTimingSystem = new Map<number, PassCount>();
  /** Since when the pass counters count: the host's start until a race stages or starts. */
  private since: { what: 'host_start' | 'race'; epoch_ms: number };
  /** Counts Blackouts: a flash on the air when one came goes back to dark at once. */
  private blackouts = 0;

  constructor(private readonly deps: FlashDeps) {
    this.counts = deps.counts;
    this.since = { what: 'host_start', epoch_ms: deps.wall.now() };
  }

  /** The `passes` part of the race lights' view: per seat and timing system, since `since`. */
  passes(): {
    since: 'host_start' | 'race';
    since_epoch_ms: number;
    seats: Record<string, number>[];
    timing_systems: Record<string, number>[];
  } {
    const counts = (m: Map<number, PassCount>, key: 'seat' | 'index') =>
      [...m].sort(([a], [b]) => a - b).map(([k, c]) => ({ [key]: k, ...c }));
    return {
      since: this.since.what,
      since_epoch_ms: this.since.epoch_ms,
      seats: counts(this.bySeat, 'seat'),
      timing_systems: counts(this.byTimingSystem, 'index'),
    };
  }

  /**
   * A race stages or starts (either timer): the pass counters start again, so the page says
   * whether laps arrive in this race, not how many since the host started.
   */
  newRace(): void {
    this.bySeat.clear();
    this.byTimingSystem.clear();
    this.since = { what: 'race', epoch_ms: this.deps.wall.now() };
    this.deps.changed();
  }

  recentFlashes(): FlashRecord[] {
    return [...this.recent];
  }

  /** A recorded lap: returns what became of it (the HTTP answer; the radio is not awaited). */
  lap(ev: LapEvent): { result: FlashResult | IgnoreReason } {
    const s = this.deps.settings();
    const now = this.deps.wall.now();
    this.counts.laps++;
    countPass(this.bySeat, ev.seat, ev.lap_number, now);
    this.deps.changed();
    const ignore = (r: IgnoreReason): { result: IgnoreReason } => {
      this.counts.ignored[r]++;
      return { result: r };
    };
    if (!s.enabled && !ev.force) return ignore('disabled');
    if (this.deps.suppressed?.()) return ignore('red_flag');
    // RotorHazard marks a pass after the winner was declared as late (and deletes it).
    if (ev.late) return ignore('late');
    if (ev.lap_number === 0 && !s.flash.holeshot) return ignore('holeshot');
    const gate = seatGate(s, ev.seat);
    if (!gate) return ignore('unmapped');
    const color = seatColor(s, this.deps.heat(), ev.seat, ev.color);
    return this.flash(
      gate,
      { source: 'rotorhazard', seat: ev.seat, timingSystem: null },
      color,
      now,
      ev.event_epoch_ms,
    );
  }

  /**
   * A pass at a second timer's timing system (FPVTrackside's DetectionExt): the gate mapped
   * to that index flashes in the pilot's channel colour, through the same radio discipline
   * as a lap. Index 0 (the lap loop) without its own gate uses the all-seats gate.
   */
  timingPass(ev: { index: number; color: Rgb; lap_number: number; event_epoch_ms: number | null }): {
    result: FlashResult | IgnoreReason;
  } {
    const s = this.deps.settings();
    this.counts.laps++;
    countPass(this.byTimingSystem, ev.index, ev.lap_number, this.deps.wall.now());
    this.deps.changed();
    const ignore = (r: IgnoreReason): { result: IgnoreReason } => {
      this.counts.ignored[r]++;
      return { result: r };
    };
    if (!s.enabled) return ignore('disabled');
    if (this.deps.suppressed?.()) return ignore('red_flag');
    if (ev.lap_number === 0 && ev.index === 0 && !s.flash.holeshot) return ignore('holeshot');
    const gate =
      s.timing_systems.find((t) => t.index === ev.index)?.gate ?? (ev.index === 0 ? s.all_seats_gate : null);
    if (!gate) return ignore('unmapped');
    const origin: Origin = { source: 'fpvtrackside', seat: NO_SEAT, timingSystem: ev.index };
    return this.flash(gate, origin, ev.color, this.deps.wall.now(), ev.event_epoch_ms);
  }

  /**
   * The operator's Test: `gate` flashes in `color` through the same path as a pass (same
   * effect, length, radio rules; Blackout wins the same way), even with the automatic
   * reactions switched off. Not counted as a lap.
   */
  test(gate: Gate, color: Rgb): { result: FlashResult } {
    return this.flash(
      gate,
      { source: 'test', seat: NO_SEAT, timingSystem: null },
      color,
      this.deps.wall.now(),
      null,
    );
  }

  /**
   * Blackout was sent: nothing of ours may light a gate after it. Waiting passes are
   * dropped, flash ends are due at once, and every gate's look to return to is dark (the
   * off frames do not pass through the scene runner, so the look memory must be told).
   */
  blackout(): void {
    this.blackouts++;
    for (const w of this.pending.splice(0) as Waiting[])
      this.drop('blackout', seatsOf(w.seats), gateLabel(w.gate), w.colors, w.firstAt, w.eventAt, w);
    this.deps.looks.note([
      { receiver: BROADCAST, request: { op: 'PRESET', groupId: 255, flags: 0, presetId: 0, brightness: 0 } },
    ]);
    for (const r of this.restores.values()) {
      r.timer.cancel();
      r.due = true;
    }
    this.pump();
  }

  private flash(
    gate: Gate,
    origin: Origin,
    color: Rgb,
    now: number,
    eventAt: number | null,
  ): { result: FlashResult } {
    const s = this.deps.settings();
    const ev = { seat: origin.seat, event_epoch_ms: eventAt };
    const drop = (r: DropReason, detail: string | null = null): { result: DropReason } =>
      this.drop(r, seatsOf([ev.seat]), gateLabel(gate), [color], now, ev.event_epoch_ms, origin, detail);
    if (this.deps.radioBacklog() > 0) return drop('radio_busy');
    // A gate the operator took over (or a red flag holds) does not flash: dropped, with why.
    // The operator's own Test button speaks as the operator.
    const refused =
      this.deps.admit?.(gateTarget(gate), origin.source === 'test' ? 'ui' : origin.source) ?? null;
    if (refused !== null) return drop('held', refused);
    const frames = this.deps.planEffect(gateTarget(gate), {
      mode: s.flash.effect,
      brightness: s.flash.brightness,
    });
    const gateKey = frames.map((f) => `${f.receiver}/${requestGroup(f.request)}`).join(',');
    const before = this.pending.find((w) => w.gateKey === gateKey);
    const outcome = addPass(this.pending, { seat: ev.seat, gateKey, color, at: now });
    if (outcome === 'overflow') return drop('overflow');
    if (!before)
      Object.assign(this.pending.at(-1) as Waiting, {
        frames,
        gate,
        eventAt: ev.event_epoch_ms,
        source: origin.source,
        timingSystem: origin.timingSystem,
      });
    if (outcome === 'merged') this.counts.merged++;
    const waiting = this.inFlight; // our previous frame is on the air: this one goes next
    this.pump();
    return { result: outcome === 'merged' ? 'merged' : waiting ? 'waiting' : 'flash' };
  }

  /** A red flag: waiting passes and flash ends that would put the gate's look back never reach the air. */
  halt(): void {
    this.pending.length = 0;
    for (const r of this.restores.values()) r.timer.cancel();
    this.restores.clear();
  }

  private drop(
    r: DropReason,
    seats: number[],
    gate: string,
    colors: Rgb[],
    at: number,
    eventAt: number | null,
    origin: { source: FlashSource; timingSystem: number | null },
    detail: string | null = null,
  ): { result: DropReason } {
    this.counts.dropped[r]++;
    this.record({
      source: origin.source,
      timing_system: origin.timingSystem,
      seats,
      event_epoch_ms: eventAt,
      gate,
      colors: colors.map(hex),
      received_epoch_ms: at,
      sent_epoch_ms: null,
      ok: false,
      error: detail ? `${r}: ${detail}` : r,
    });
    return { result: r };
  }

  private record(r: FlashRecord): void {
    this.recent.push(r);
    if (this.recent.length > RECENT) this.recent.shift();
    this.deps.changed();
  }

  /** Sends the next thing when the radio is ours: waiting flashes first, then due restores. */
  private pump(): void {
    if (this.inFlight) return;
    const now = this.deps.wall.now();
    const wait = maxWaitMs(this.deps.flashAirtimeMs());
    for (;;) {
      const { batch, stale } = takeBatch(this.pending, now, wait);
      for (const b of stale as Waiting[])
        this.drop('stale', seatsOf(b.seats), gateLabel(b.gate), b.colors, b.firstAt, b.eventAt, b);
      if (!batch) break;
      const w = batch as Waiting;
      if (this.deps.radioBacklog() > 0) {
        this.drop('radio_busy', seatsOf(w.seats), gateLabel(w.gate), w.colors, w.firstAt, w.eventAt, w);
        continue;
      }
      this.sendFlash(w, wait - (now - w.firstAt));
      return;
    }
    const due = [...this.restores].find(([, r]) => r.due);
    if (due) {
      const [gateKey, r] = due;
      this.restores.delete(gateKey);
      this.inFlight = true;
      const frames = r.frames.map((f) => this.restoreFrame(f));
      void Promise.all(frames.map((f) => this.deps.send(f, RESTORE_DEADLINE_MS))).then((outs) => {
        const bad = outs.find((o) => !o.ok);
        if (bad && !bad.ok)
          this.deps.log.warn({ gate: gateKey, error: bad.detail }, 'race lights: flash end not sent');
        this.inFlight = false;
        this.pump();
      });
    }
  }

  private sendFlash(w: Waiting, deadlineMs: number): void {
    const s = this.deps.settings();
    const [c1, c2, c3] = flashColors(w.colors);
    const frames = w.frames.map((f) => withColors(f, c1, c2, c3));
    this.inFlight = true;
    const blackouts = this.blackouts;
    const rec: FlashRecord = {
      source: w.source,
      timing_system: w.timingSystem,
      seats: seatsOf(w.seats),
      event_epoch_ms: w.eventAt,
      gate: gateLabel(w.gate),
      colors: w.colors.map(hex),
      received_epoch_ms: w.firstAt,
      sent_epoch_ms: null,
      ok: false,
      error: null,
    };
    void Promise.all(frames.map((f) => this.deps.send(f, Math.max(1, deadlineMs)))).then((outs) => {
      const bad = outs.find((o) => !o.ok);
      rec.sent_epoch_ms = this.deps.wall.now();
      rec.ok = !bad;
      if (bad && !bad.ok) {
        rec.error = bad.reason;
        this.counts.dropped.not_sent++;
      } else {
        this.counts.flashes_sent++;
        this.counts.passes_flashed += w.seats.length;
      }
      this.record(rec);
      // A Blackout while this flash was on its way: the gate goes dark at once, not after the flash.
      const length = this.blackouts === blackouts ? s.flash.length_ms : 0;
      if (outs.some((o) => o.ok) && !this.deps.suppressed?.())
        this.scheduleRestore(w.gateKey, w.frames, length);
      this.inFlight = false;
      this.pump();
    });
  }

  /** The gate goes back to its look after the flash; a newer flash pushes this back. */
  private scheduleRestore(gateKey: string, flashFrames: Frame[], lengthMs: number): void {
    this.restores.get(gateKey)?.timer.cancel();
    // The look is read when the flash ends: a phase look sent meanwhile is what comes back.
    const entry = { due: false, frames: flashFrames, timer: { cancel: () => {} } };
    entry.timer = this.deps.wall.setTimeout(() => {
      entry.due = true;
      this.pump();
    }, lengthMs);
    this.restores.set(gateKey, entry);
  }

  /** The frame that puts back the look `f`'s receiver and group showed (dark when none). */
  restoreFrame(f: Frame): Frame {
    return restoreFrame(f, this.deps.looks);
  }
}

function countPass(m: Map<number, PassCount>, key: number, lap: number, at: number): void {
  const c = m.get(key);
  if (c) Object.assign(c, { passes: c.passes + 1, last_lap: lap, last_epoch_ms: at });
  else m.set(key, { passes: 1, last_lap: lap, last_epoch_ms: at });
}
