/**
 * Race lights: RotorHazard's laps and race phases on the gates, live. A recorded lap
 * flashes the seat's gate in the pilot's colour and then puts back what the gate showed;
 * each phase (staging, start, finish, winner, stop, heat change) plays its look.
 *
 * The lap-flash pipeline is flashes.ts, the phase looks phase-looks.ts, the countdown
 * glue countdown-looks.ts; this class is their face for the routes and the host.
 */
import type { Rgb } from '../../../protocol/types.ts';
import type { StepKind } from './countdown-plan.ts';
import { CountdownLooks } from './countdown-looks.ts';
import { newCounts, type IgnoreReason } from './counts.ts';
import { LapFlashes, type FlashResult } from './flashes.ts';
import { PhaseLooks } from './phase-looks.ts';
import type { Gate, Phase } from './settings.ts';
import type { LapEvent, PhaseEvent, RaceLightsDeps, ToneEvent } from './types.ts';

export type { CountdownRadio, Frame, LapEvent, PhaseEvent, RaceLightsDeps, ToneEvent } from './types.ts';
export type { FlashResult, FlashSource } from './flashes.ts';

export class RaceLightsService {
  private readonly counts = newCounts();
  private readonly flashes: LapFlashes;
  private readonly countdown: CountdownLooks;
  private readonly phases: PhaseLooks;
  private listener: () => void = () => {};

  constructor(private readonly deps: RaceLightsDeps) {
    const changed = (): void => this.listener();
    this.flashes = new LapFlashes({ ...deps, counts: this.counts, changed });
    this.countdown = new CountdownLooks({
      ...deps,
      restoreFrame: (f) => this.flashes.restoreFrame(f),
      note: (rec) => this.phases.note(rec),
    });
    this.phases = new PhaseLooks({
      ...deps,
      runner: this.countdown.runner,
      countdown: this.countdown,
      counts: this.counts,
      changed,
    });
  }

  /** A staging tone announced ahead (RotorHazard 4.4.1-dev): the countdown steps on it. */
  tone(ev: ToneEvent): { step: StepKind | null; at_epoch_ms: number | null } {
    return this.countdown.tone(ev);
  }

  /**
   * A second timer announced its start (FPVTrackside RacePreStart): the last seconds count
   * down and GO lands on the start, with the same scheduler as RotorHazard's tones.
   */
  timerStart(startAt: number): { steps: number; at_epoch_ms: number } | null {
    this.flashes.newRace();
    const started = this.countdown.timerStart(startAt);
    if (started) this.phases.startScheduledAt(this.deps.settings().phases.go.enabled ? startAt : null);
    return started;
  }

  /** Race aborted, stopped or its schedule cancelled: nothing scheduled fires, the countdown clears. */
  cancelRace(reason: string): boolean {
    this.phases.cancelScheduled();
    return this.countdown.cancel(reason);
  }

  /** Called after anything `view()` shows changed (the UI's live stream); laps only, never idle. */
  onChange(fn: () => void): void {
    this.listener = fn;
  }

  view(): Record<string, unknown> {
    const phases = this.phases.view();
    return {
      stats: structuredClone(this.counts),
      passes: this.flashes.passes(),
      recent_flashes: this.flashes.recentFlashes(),
      scheduled: phases.scheduled,
      last_phase: phases.last_phase,
      recent_phases: phases.recent_phases,
      countdown: this.countdown.view(),
    };
  }

  /** A recorded lap: returns what became of it (the HTTP answer; the radio is not awaited). */
  lap(ev: LapEvent): { result: FlashResult | IgnoreReason } {
    return this.flashes.lap(ev);
  }

  /**
   * A pass at a second timer's timing system (FPVTrackside's DetectionExt): the gate mapped
   * to that index flashes in the pilot's channel colour, through the same radio discipline
   * as a lap. Index 0 (the lap loop) without its own gate uses the all-seats gate.
   */
  timingPass(ev: { index: number; color: Rgb; lap_number: number; event_epoch_ms: number | null }): {
    result: FlashResult | IgnoreReason;
  } {
    return this.flashes.timingPass(ev);
  }

  /**
   * The operator's Test: `gate` flashes in `color` through the same path as a pass (same
   * effect, length, radio rules; Blackout wins the same way), even with the automatic
   * reactions switched off. Not counted as a lap.
   */
  test(gate: Gate, color: Rgb): { result: FlashResult } {
    return this.flashes.test(gate, color);
  }

  /**
   * Blackout was sent: nothing of ours may light a gate after it. Waiting passes are
   * dropped, flash ends are due at once, and every gate's look to return to is dark (the
   * off frames do not pass through the scene runner, so the look memory must be told).
   */
  blackout(): void {
    this.flashes.blackout();
  }

  /** A race phase (or `stage`, which carries the announced staging and start times). */
  phase(
    ev: PhaseEvent,
    source = 'rotorhazard',
  ): { ran: string[]; scheduled: { phase: string; at_epoch_ms: number }[] } {
    // RotorHazard stages every race; FPVTrackside may only say RaceStart.
    if (ev.phase === 'stage' || ev.phase === 'start') this.flashes.newRace();
    return this.phases.phase(ev, source);
  }

  /** A second timer's race phase (FPVTrackside): the same looks, through the same player. */
  timerPhase(phase: Phase, color: string | null): string[] {
    return this.phase(
      { phase, staging_epoch_ms: null, start_epoch_ms: null, seat: null, color, force: false },
      'fpvtrackside',
    ).ran;
  }

  /**
   * A red flag: nothing the race lights hold may reach the air after it — scheduled phase
   * looks, flashes waiting for the radio, flash ends that would put the gate's look back.
   * A flash already handed to the radio is ahead of the flag's urgent frames or overtaken
   * by them; its end is not scheduled while the flag is up.
   */
  halt(): void {
    this.phases.cancelScheduled();
    this.flashes.halt();
    this.countdown.halt('red flag');
  }

  /** Race aborted: nothing scheduled may still fire. */
  cancelScheduled(): void {
    this.phases.cancelScheduled();
  }
}
