/**
 * The countdown's glue to the race lights: a timer's announced tones and start become
 * countdown steps (countdown.ts), each step's look is planned as armed frames, and a
 * timer's moments are read on our wall clock.
 */
import { Countdown } from './countdown.ts';
import { monotonicToWall, secondsBefore, stagedSteps, type Step, type StepKind } from './countdown-plan.ts';
import type { StageTimes } from './merge.ts';
import type { LookRunner, PhaseLookRecord } from './phase-player.ts';
import { builtinLook } from './phases.ts';
import { PHASES, type RaceLightsSettings } from './settings.ts';
import type { CountdownRadio, Frame, RaceLightsDeps, ToneEvent } from './types.ts';

/** The countdown's own arming needs this much before a tone (one armed frame per gate). */
const ARM_AHEAD_MS = 300;
/** FPVTrackside announces no tones: the countdown shows the last three seconds. */
const FPVT_COUNTDOWN_S = 3;
export const MAX_AHEAD_MS = 5 * 60_000;
const PHASE_KEYS = PHASES;

export type CountdownLooksDeps = Pick<
  RaceLightsDeps,
  'log' | 'wall' | 'heat' | 'runner' | 'looks' | 'settings' | 'suppressed' | 'countdown'
> & {
  /** The frame that puts a gate's look back (the lap flashes' restore). */
  restoreFrame(f: Frame): Frame;
  /** A settled countdown step, for the phase looks' record. */
  note(rec: PhaseLookRecord): void;
};

export class CountdownLooks {
  private readonly countdown: Countdown | null;
  private ownCancels = 0;
  /**
   * The scene runner for the phase looks: the player cancels its own look when a later
   * phase takes over — those cancels are ours, not Blackout's, and must not end a countdown.
   */
  readonly runner: LookRunner;

  constructor(private readonly deps: CountdownLooksDeps) {
    this.runner = {
      run: (key, body, source) => deps.runner.run(key, body, source),
      running: () => deps.runner.running(),
      cancels: () => deps.runner.cancels(),
      cancel: () => {
        this.ownCancels++;
        deps.runner.cancel();
      },
    };
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
            deps.note({
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
    return frames.map((f) => this.deps.restoreFrame(f));
  }

  /** A timer moment as our wall clock: its monotonic seconds when given (same machine), else its epoch ms. */
  wallOf(mono: number | null | undefined, epoch: number | null | undefined): number | null {
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
    return { steps: steps.length, at_epoch_ms: Math.round(startAt) };
  }

  /**
   * Plans the countdown of a staged race (its tones from the staging arithmetic, GO at the
   * start); says which of the old staging/start looks it replaces.
   */
  stageCountdown(
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

  /** Clears a countdown (race aborted, stopped, restaged); true when one was running. */
  cancel(reason: string): boolean {
    return this.countdown?.cancel(reason) ?? false;
  }

  /** A red flag: the countdown stops and nothing of it reaches the air. */
  halt(why: string): void {
    this.countdown?.halt(why);
  }

  view(): ReturnType<Countdown['view']> | null {
    return this.countdown?.view() ?? null;
  }
}
