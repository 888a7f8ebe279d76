/**
 * Race lights: RotorHazard's laps and race phases on the gates, live. A recorded lap
 * flashes the seat's gate in the pilot's colour and then puts back what the gate showed;
 * each phase (staging, start, finish, winner, stop, heat change) plays its look.
 *
 * Radio discipline (a race is never delayed): lap frames bypass the scene runner and are
 * handed to the driver one at a time, at interactive priority (Blackout and the start SYNC
 * are urgent and go first). A pass that meets other traffic waiting for the radio is
 * dropped; a pass that meets our own flash on the air joins its gate's waiting batch
 * (merge.ts) and goes out next, unless it waited too long — then it is dropped too. Every
 * drop is counted by reason. Flash ends (restores) are never dropped: they wait their turn.
 */
import type { Logger } from '../../../logger.ts';
import { BROADCAST, type M2NRequest, type Rgb } from '../../../protocol/types.ts';
import type { TxOutcome } from '../../../gateway/types.ts';
import { atWallTime, type WallTimer } from '../at-time.ts';
import type { Heat } from '../heat.ts';
import type { LookMemory } from './looks.ts';
import {
  addPass,
  flashColors,
  maxWaitMs,
  stagePlan,
  takeBatch,
  type GateBatch,
  type StageTimes,
} from './merge.ts';
import { PhaseLookPlayer, type LookRunner, type PhaseLook } from './phase-player.ts';
import { Countdown } from './countdown.ts';
import { monotonicToWall, secondsBefore, stagedSteps, type Step, type StepKind } from './countdown-plan.ts';
import { builtinLook, gateLabel, seatColor, seatGate, type SceneTarget, gateTarget } from './phases.ts';
import { PHASES, type Gate, type Phase, type RaceLightsSettings } from './settings.ts';

export interface Frame {
  receiver: string;
  request: M2NRequest;
  /** The network whose gateway sends it (several gateways). */
  network?: number;
}

export interface RaceLightsDeps {
  log: Logger;
  wall: WallTimer;
  heat(): Heat | null;
  /** Frames of a native effect to a target, planned as a scene action would be. */
  planEffect(target: SceneTarget, params: { mode: number; brightness: number }): Frame[];
  /**
   * Asks the command path whether `source` may flash `target` now: null when it may, else
   * why not (a higher source holds the gate). Absent: every flash may.
   */
  admit?(target: SceneTarget, source: string): string | null;
  /** Hands one lap frame to the driver (interactive, dropped after `deadlineMs` unsent). */
  send(frame: Frame, deadlineMs: number): Promise<TxOutcome>;
  /** Frames waiting in the driver's queue (other traffic): a pass meeting any is dropped. */
  radioBacklog(): number;
  /** Airtime of one flash frame at the current RF settings (ms). */
  flashAirtimeMs(): number;
  /** The scene runner, for the phase looks (phase-player.ts). */
  runner: LookRunner;
  looks: LookMemory;
  settings(): RaceLightsSettings;
  /** Why race looks may not show now (a red flag is up), or null. */
  suppressed?(): string | null;
  /** The radio side of the countdown (absent: no countdown; staging and start looks as before). */
  countdown?: CountdownRadio;
}

/** What the countdown needs of the scenes and the radio (host wiring in index.ts). */
export interface CountdownRadio {
  /** A look (a stored scene's key, or a draft's actions) as armed frames. */
  planArmed(look: string | readonly unknown[]): Frame[];
  /** One trigger SYNC per network. */
  syncFrames(): Frame[];
  /** Hands frames to their gateways in the same turn; the first failure, else ok. */
  send(frames: readonly Frame[], priority: 'urgent' | 'interactive'): Promise<TxOutcome>;
  holdBulk(frames: readonly Frame[]): () => void;
  /** Time on air of the SYNC (the longest of the networks') plus the link to the radio, ms. */
  leadMs(): number;
  /** This machine's monotonic clock in ms (the clock RotorHazard's `*_at_s` moments are in). */
  monotonicMs(): number;
}

/** A staging tone the timer announced (RotorHazard 4.4.1-dev RACE_STAGE_TONE). */
export interface ToneEvent {
  tone_index: number;
  tones_remaining: number;
  /** When the tone is due: the timer's monotonic seconds (same machine), else epoch ms. */
  at_monotonic_s: number | null;
  at_epoch_ms: number | null;
}

export interface LapEvent {
  seat: number;
  lap_number: number;
  color: string | null;
  late: boolean;
  event_epoch_ms: number | null;
  /** From an Event Action: runs even when the automatic reactions are off. */
  force: boolean;
}

export interface PhaseEvent extends StageTimes {
  phase: Phase | 'stage';
  seat: number | null;
  color: string | null;
  force: boolean;
  /** RotorHazard's own clock for the stage moments (preferred over the epoch fields). */
  staging_monotonic_s?: number | null;
  start_monotonic_s?: number | null;
  /** How many staging tones RotorHazard will sound (RACE_STAGE `staging_tones`). */
  staging_tones?: number | null;
}

/** The countdown's own arming needs this much before a tone (one armed frame per gate). */
const ARM_AHEAD_MS = 300;
/** FPVTrackside announces no tones: the countdown shows the last three seconds. */
const FPVT_COUNTDOWN_S = 3;

type DropReason = 'radio_busy' | 'stale' | 'overflow' | 'not_sent' | 'blackout' | 'held';
/** Who asked for a flash: a timer's pass, or the operator's Test button. */
export type FlashSource = 'rotorhazard' | 'fpvtrackside' | 'test';
export type FlashResult = 'flash' | 'merged' | 'waiting' | DropReason;
type IgnoreReason = 'disabled' | 'late' | 'holeshot' | 'unmapped' | 'red_flag';

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

/** Passes per seat or timing system since the host started (the Race lights page's counters). */
interface PassCount {
  passes: number;
  last_lap: number;
  last_epoch_ms: number;
}

const RECENT = 50;
const PHASE_KEYS = PHASES;
/** A pass that is no timer seat's (a second timer's timing system): left out of `seats`. */
const NO_SEAT = -1;
const seatsOf = (seats: number[]): number[] => seats.filter((x) => x !== NO_SEAT);
const RESTORE_DEADLINE_MS = 5000;
const MAX_AHEAD_MS = 5 * 60_000;
/** A start event within this of a scheduled start was already handled by the schedule. */
const SAME_START_MS = 3000;

const hex = (c: Rgb): string => '#' + c.map((v) => v.toString(16).padStart(2, '0')).join('');

export class RaceLightsService {
  private readonly pending: Waiting[] = [];
  /** Flash ends per gate (the flash frames: where to put the look back); `due` once the flash
   * length has passed — set by its timer, which may fire a hair before the wall clock reads
   * the end: the timer, not the clock, decides. */
  private readonly restores = new Map<string, { due: boolean; frames: Frame[]; timer: { cancel(): void } }>();
  private inFlight = false;
  private readonly scheduled = new Map<string, { at_epoch_ms: number; timer: { cancel(): void } }>();
  private lastScheduledStart: number | null = null;
  private readonly counts = {
    laps: 0,
    flashes_sent: 0,
    passes_flashed: 0,
    merged: 0,
    dropped: { radio_busy: 0, stale: 0, overflow: 0, not_sent: 0, blackout: 0, held: 0 } as Record<
      DropReason,
      number
    >,
    ignored: { disabled: 0, late: 0, holeshot: 0, unmapped: 0, red_flag: 0 } as Record<IgnoreReason, number>,
    /** Phase looks not played because a red flag was up. */
    phases_held: 0,
  };
  private readonly recent: FlashRecord[] = [];
  private readonly bySeat = new Map<number, PassCount>();
  private readonly byTimingSystem = new Map<number, PassCount>();
  /** Counts Blackouts: a flash on the air when one came goes back to dark at once. */
  private blackouts = 0;
  private listener: () => void = () => {};
  private lastPhase: { phase: string; at_epoch_ms: number; how: string } | null = null;
  private readonly player: PhaseLookPlayer;
  /** This race's winner look: kept on the finish gate until the next race is staged or the heat changes. */
  private winner: PhaseLook | null = null;
  /** The last look over every gate (staging … stop) and whether it went out whole. */
  private base: { look: PhaseLook; shown: boolean } | null = null;
  /** This race's pilot-done looks, each on its seat's gate. */
  private done: { look: PhaseLook; shown: boolean }[] = [];

  private readonly countdown: Countdown | null;
  private ownCancels = 0;

  constructor(private readonly deps: RaceLightsDeps) {
    // The player cancels its own look when a later phase takes over: those cancels are
    // ours, not Blackout's, and must not end a countdown.
    const runner: LookRunner = {
      run: (key, body, source) => deps.runner.run(key, body, source),
      running: () => deps.runner.running(),
      cancels: () => deps.runner.cancels(),
      cancel: () => {
        this.ownCancels++;
        deps.runner.cancel();
      },
    };
    this.player = new PhaseLookPlayer({ runner, log: deps.log, now: () => deps.wall.now() });
    const radio = deps.countdown;
    this.countdown = radio
      ? new Countdown({
          log: deps.log,
          wall: deps.wall,
          armFrames: (kind) => this.armFrames(kind, radio),
          syncFrames: () => radio.syncFrames(),
          send: (frames, priority) => radio.send(frames, priority),
          holdBulk: (frames) => radio.holdBulk(frames),
          leadMs: () => radio.leadMs(),
          foreignScene: () => this.foreignScene(),
          cancels: () => deps.runner.cancels() - this.ownCancels,
          shown: (frames) => deps.looks.note(frames),
          settled: (rec, why) =>
            this.player.note({
              phase: rec.step,
              scene: deps.settings().phases[rec.step].scene ?? `race-lights-${rec.step}`,
              requested_epoch_ms: rec.due_epoch_ms,
              state: rec.state === 'shown' ? 'shown' : rec.state === 'cancelled' ? 'cancelled' : 'not_shown',
              error: why,
            }),
        })
      : null;
  }

  /** The armed frames of a countdown step's look, or null (off, no gate, not armable). */
  private armFrames(kind: StepKind, radio: CountdownRadio): Frame[] | null {
    const s = this.deps.settings();
    const p = s.phases[kind];
    if (!p.enabled) return null;
    try {
      if (p.scene) return radio.planArmed(p.scene);
      const look = builtinLook(kind, s, this.deps.heat());
      return look ? radio.planArmed(look.actions) : null;
    } catch (err) {
      this.deps.log.warn({ step: kind, error: (err as Error).message }, 'race countdown look not planned');
      return null;
    }
  }

  /** A running scene the race lights did not start (the operator's, an Event Action's), or null. */
  private foreignScene(): string | null {
    const k = this.deps.runner.running();
    if (k === null || k.startsWith('race-lights-')) return null;
    const s = this.deps.settings();
    return PHASE_KEYS.some((p) => s.phases[p].scene === k) ? null : k;
  }

  /** The countdown looks are on (any step): staging's tones and the start are the countdown's. */
  private countdownOn(s: RaceLightsSettings): boolean {
    return (
      this.countdown !== null && (s.phases.tone.enabled || s.phases.last_tone.enabled || s.phases.go.enabled)
    );
  }

  /** What the gates show now, as immediate frames (put back when a countdown is cancelled). */
  private restoreFrames(radio: CountdownRadio): Frame[] {
    const frames = this.armFrames('go', radio) ?? this.armFrames('tone', radio) ?? [];
    return frames.map((f) => this.restoreFrame(f));
  }

  /** A timer moment as our wall clock: its monotonic seconds when given (same machine), else its epoch ms. */
  private wallOf(mono: number | null | undefined, epoch: number | null | undefined): number | null {
    const radio = this.deps.countdown;
    if (typeof mono === 'number' && Number.isFinite(mono) && radio)
      return monotonicToWall(mono, { wallMs: this.deps.wall.now(), monoMs: radio.monotonicMs() });
    return typeof epoch === 'number' && Number.isFinite(epoch) ? epoch : null;
  }

  /** A staging tone announced ahead (RotorHazard 4.4.1-dev): the countdown steps on it. */
  tone(ev: ToneEvent): { step: StepKind | null; at_epoch_ms: number | null } {
    const s = this.deps.settings();
    const radio = this.deps.countdown;
    const at = this.wallOf(ev.at_monotonic_s, ev.at_epoch_ms);
    if (
      !s.enabled ||
      !radio ||
      !this.countdown ||
      !this.countdownOn(s) ||
      at === null ||
      this.deps.suppressed?.()
    )
      return { step: null, at_epoch_ms: at };
    this.countdown.tone(
      { index: ev.tone_index, remaining: ev.tones_remaining, at },
      'rotorhazard',
      this.restoreFrames(radio),
    );
    return { step: ev.tones_remaining === 0 ? 'last_tone' : 'tone', at_epoch_ms: Math.round(at) };
  }

  /**
   * A second timer announced its start (FPVTrackside RacePreStart): the last seconds count
   * down and GO lands on the start, with the same scheduler as RotorHazard's tones.
   */
  timerStart(startAt: number): { steps: number; at_epoch_ms: number } | null {
    const s = this.deps.settings();
    const radio = this.deps.countdown;
    const now = this.deps.wall.now();
    if (!s.enabled || !radio || !this.countdown || !this.countdownOn(s) || this.deps.suppressed?.())
      return null;
    if (startAt <= now || startAt > now + MAX_AHEAD_MS) return null;
    const steps = secondsBefore(startAt, now, FPVT_COUNTDOWN_S, ARM_AHEAD_MS);
    this.countdown.start(steps, 'fpvtrackside', this.restoreFrames(radio));
    this.lastScheduledStart = s.phases.go.enabled ? startAt : null;
    return { steps: steps.length, at_epoch_ms: Math.round(startAt) };
  }

  /** Race aborted, stopped or its schedule cancelled: nothing scheduled fires, the countdown clears. */
  cancelRace(reason: string): boolean {
    this.cancelScheduled();
    return this.countdown?.cancel(reason) ?? false;
  }

  /** Called after anything `view()` shows changed (the UI's live stream); laps only, never idle. */
  onChange(fn: () => void): void {
    this.listener = fn;
  }

  view(): Record<string, unknown> {
    const counts = (m: Map<number, PassCount>, key: 'seat' | 'index') =>
      [...m].sort(([a], [b]) => a - b).map(([k, c]) => ({ [key]: k, ...c }));
    return {
      stats: structuredClone(this.counts),
      passes: { seats: counts(this.bySeat, 'seat'), timing_systems: counts(this.byTimingSystem, 'index') },
      recent_flashes: [...this.recent],
      scheduled: [...this.scheduled].map(([phase, s]) => ({ phase, at_epoch_ms: s.at_epoch_ms })),
      last_phase: this.lastPhase,
      recent_phases: this.player.records(),
      countdown: this.countdown?.view() ?? null,
    };
  }

  /** A recorded lap: returns what became of it (the HTTP answer; the radio is not awaited). */
  lap(ev: LapEvent): { result: FlashResult | IgnoreReason } {
    const s = this.deps.settings();
    const now = this.deps.wall.now();
    this.counts.laps++;
    countPass(this.bySeat, ev.seat, ev.lap_number, now);
    this.listener();
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
    this.listener();
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
    if (this.deps.radioBacklog() > 0)
      return this.drop(
        'radio_busy',
        seatsOf([ev.seat]),
        gateLabel(gate),
        [color],
        now,
        ev.event_epoch_ms,
        origin,
      );
    // A gate the operator took over (or a red flag holds) does not flash: dropped, with why.
    // The operator's own Test button speaks as the operator.
    const refused =
      this.deps.admit?.(gateTarget(gate), origin.source === 'test' ? 'ui' : origin.source) ?? null;
    if (refused !== null)
      return this.drop(
        'held',
        seatsOf([ev.seat]),
        gateLabel(gate),
        [color],
        now,
        ev.event_epoch_ms,
        origin,
        refused,
      );
    const frames = this.deps.planEffect(gateTarget(gate), {
      mode: s.flash.effect,
      brightness: s.flash.brightness,
    });
    const gateKey = frames.map((f) => `${f.receiver}/${requestGroup(f.request)}`).join(',');
    const before = this.pending.find((w) => w.gateKey === gateKey);
    const outcome = addPass(this.pending, { seat: ev.seat, gateKey, color, at: now });
    if (outcome === 'overflow')
      return this.drop(
        'overflow',
        seatsOf([ev.seat]),
        gateLabel(gate),
        [color],
        now,
        ev.event_epoch_ms,
        origin,
      );
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

  /** A race phase (or `stage`, which carries the announced staging and start times). */
  phase(
    ev: PhaseEvent,
    source = 'rotorhazard',
  ): { ran: string[]; scheduled: { phase: string; at_epoch_ms: number }[] } {
    const s = this.deps.settings();
    if (!s.enabled && !ev.force) return { ran: [], scheduled: [] };
    // A red flag holds every race look back, the scheduled ones too (even an Event Action's).
    if (this.deps.suppressed?.()) {
      this.counts.phases_held++;
      if (ev.phase === 'stage' || ev.phase === 'stop') this.cancelScheduled();
      return { ran: [], scheduled: [] };
    }
    const now = this.deps.wall.now();
    if (ev.phase === 'stage') {
      this.cancelScheduled();
      const times: StageTimes = {
        staging_epoch_ms: this.wallOf(ev.staging_monotonic_s, ev.staging_epoch_ms),
        start_epoch_ms: this.wallOf(ev.start_monotonic_s, ev.start_epoch_ms),
      };
      const countdown = this.stageCountdown(s, times, ev.staging_tones ?? 0, now);
      const plan = stagePlan(times, now, MAX_AHEAD_MS);
      const scheduled = [];
      const lead = s.start_lead_ms ?? Math.round(this.deps.flashAirtimeMs());
      for (const planned of plan) {
        if (!s.phases[planned.phase].enabled) continue;
        // The countdown's first tone is the staging look; its GO the start look.
        if (planned.phase === 'staging' && countdown.tones) continue;
        if (planned.phase === 'start' && countdown.go) {
          this.lastScheduledStart = planned.at_epoch_ms;
          continue;
        }
        // The start look leaves one airtime early, so the gates change on the start tone.
        const m =
          planned.phase === 'start'
            ? { ...planned, at_epoch_ms: Math.max(now, planned.at_epoch_ms - lead) }
            : planned;
        const timer = atWallTime(this.deps.wall, m.at_epoch_ms, () => {
          this.scheduled.delete(m.phase);
          this.runPhase(m.phase, 'scheduled', source);
        });
        this.scheduled.set(m.phase, { at_epoch_ms: m.at_epoch_ms, timer });
        if (m.phase === 'start') this.lastScheduledStart = m.at_epoch_ms;
        scheduled.push(m);
      }
      // No announced staging moment: staging is now.
      const ran =
        plan.some((m) => m.phase === 'staging') || countdown.tones
          ? []
          : this.runPhase('staging', 'event', source);
      return { ran, scheduled };
    }
    if (ev.phase === 'start' && this.lastScheduledStart !== null) {
      const started = Math.abs(now - this.lastScheduledStart) < SAME_START_MS;
      this.lastScheduledStart = null;
      if (started) return { ran: [], scheduled: [] }; // the schedule ran (or runs) it on time
    }
    if (ev.phase === 'stop') this.cancelRace('stop');
    return {
      ran: this.runPhase(ev.phase, 'event', source, { seat: ev.seat, color: ev.color }),
      scheduled: [],
    };
  }

  /** A second timer's race phase (FPVTrackside): the same looks, through the same player. */
  timerPhase(phase: Phase, color: string | null): string[] {
    return this.phase(
      { phase, staging_epoch_ms: null, start_epoch_ms: null, seat: null, color, force: false },
      'fpvtrackside',
    ).ran;
  }

  /**
   * Plans the countdown of a staged race (its tones from the staging arithmetic, GO at the
   * start); says which of the old staging/start looks it replaces.
   */
  private stageCountdown(
    s: RaceLightsSettings,
    t: StageTimes,
    tones: number,
    now: number,
  ): { tones: boolean; go: boolean } {
    const radio = this.deps.countdown;
    const start = t.start_epoch_ms;
    if (!radio || !this.countdown || !this.countdownOn(s) || typeof start !== 'number') {
      this.countdown?.cancel('restaged');
      return { tones: false, go: false };
    }
    if (start <= now || start > now + MAX_AHEAD_MS) return { tones: false, go: false };
    const steps: Step[] = stagedSteps({ stagingAt: t.staging_epoch_ms ?? null, startAt: start, tones });
    this.countdown.start(steps, 'rotorhazard', this.restoreFrames(radio));
    const toneLooks = s.phases.tone.enabled || s.phases.last_tone.enabled;
    return { tones: toneLooks && steps.some((x) => x.kind !== 'go'), go: s.phases.go.enabled };
  }

  /**
   * A red flag: nothing the race lights hold may reach the air after it — scheduled phase
   * looks, flashes waiting for the radio, flash ends that would put the gate's look back.
   * A flash already handed to the radio is ahead of the flag's urgent frames or overtaken
   * by them; its end is not scheduled while the flag is up.
   */
  halt(): void {
    this.cancelScheduled();
    this.pending.length = 0;
    for (const r of this.restores.values()) r.timer.cancel();
    this.restores.clear();
    this.countdown?.halt('red flag');
  }

  /** Race aborted: nothing scheduled may still fire. */
  cancelScheduled(): void {
    for (const sch of this.scheduled.values()) sch.timer.cancel();
    this.scheduled.clear();
    this.lastScheduledStart = null;
  }

  private runPhase(
    phase: Phase,
    how: string,
    source: string,
    winner: { seat: number | null; color: string | null } | null = null,
  ): string[] {
    const s = this.deps.settings();
    const p = s.phases[phase];
    if (!p.enabled) return [];
    if (this.deps.suppressed?.()) {
      this.counts.phases_held++;
      return [];
    }
    const key = p.scene ?? `race-lights-${phase}`;
    const body = p.scene ? {} : builtinLook(phase, s, this.deps.heat(), winner);
    if (!body) return [];
    this.lastPhase = { phase, at_epoch_ms: this.deps.wall.now(), how };
    const look: PhaseLook = { phase, key, body: body as unknown as Record<string, unknown>, source };
    void this.player.play(this.sequence(look)).finally(() => this.listener());
    this.listener();
    return [phase];
  }

  /**
   * What a phase plays. The winner look covers only the finish gate, the others every gate:
   * so that both the race's end and its winner show whatever order RotorHazard sends them
   * in, the winner stays on the finish gate until the next race — a finish or stop look
   * after the win is followed by the winner look again, and a win that takes over a look
   * not yet out whole lets that look finish first.
   */
  private sequence(look: PhaseLook): PhaseLook[] {
    if (look.phase === 'crash_out') {
      // A pilot's moment, not a race state: the race's look comes back after it.
      const base = this.base;
      return base ? [look, { ...base.look, whenShown: () => (base.shown = true) }] : [look];
    }
    if (look.phase === 'pilot_done') {
      // A pilot's own gate; the race look stays on the others. Pilots finish within ms of
      // each other: a done look not yet out whole goes out before this one.
      const earlier = this.done.filter((d) => !d.shown).map((d) => d.look);
      const entry = { look, shown: false };
      look.whenShown = () => (entry.shown = true);
      this.done.push(entry);
      return [...earlier, look];
    }
    if (look.phase === 'win') {
      this.winner = look;
      const base = this.base;
      return base && !base.shown ? [base.look, look] : [look];
    }
    if (look.phase === 'staging' || look.phase === 'start' || look.phase === 'heat_change') {
      this.winner = null;
      this.done = [];
    }
    const base = { look, shown: false };
    look.whenShown = () => (base.shown = true);
    this.base = base;
    return this.winner && (look.phase === 'finish' || look.phase === 'stop') ? [look, this.winner] : [look];
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
    this.listener();
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

  private restoreFrame(f: Frame): Frame {
    const net = f.network !== undefined ? { network: f.network } : {};
    const groupId = requestGroup(f.request);
    const look = this.deps.looks.lookFor(f.receiver, groupId);
    if (!look)
      return {
        ...net,
        receiver: f.receiver,
        request: { op: 'CONTROL', groupId, flags: 0, fields: { brightness: 0 } },
      };
    if (look.kind === 'preset') {
      const { flags, presetId, brightness } = look;
      return {
        ...net,
        receiver: f.receiver,
        request: { op: 'PRESET', groupId, flags, presetId, brightness },
      };
    }
    // Every field the flash changed is put back; fields the look never set get neutral values.
    const black: Rgb = [0, 0, 0];
    const fields = { mode: 0, brightness: 0, color1: black, color2: black, color3: black, ...look.fields };
    return { ...net, receiver: f.receiver, request: { op: 'CONTROL', groupId, flags: look.flags, fields } };
  }
}

function countPass(m: Map<number, PassCount>, key: number, lap: number, at: number): void {
  const c = m.get(key);
  if (c) Object.assign(c, { passes: c.passes + 1, last_lap: lap, last_epoch_ms: at });
  else m.set(key, { passes: 1, last_lap: lap, last_epoch_ms: at });
}

function requestGroup(r: M2NRequest): number {
  return 'groupId' in r ? r.groupId : 255;
}

function withColors(f: Frame, c1: Rgb, c2: Rgb, c3: Rgb): Frame {
  const r = f.request;
  if (r.op !== 'CONTROL') return f;
  return {
    ...f,
    request: { ...r, fields: { ...r.fields, color1: c1, color2: c2, color3: c3 } },
  };
}
