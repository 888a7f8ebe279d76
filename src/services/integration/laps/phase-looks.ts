/**
 * The race phases' looks: each phase (staging, start, finish, winner, stop, heat change, a
 * pilot's done or crash) plays its look through the phase player, in an order that keeps
 * the winner on the finish gate; a staged race's staging and start looks are scheduled for
 * their announced moments (or left to the countdown).
 */
import { atWallTime } from '../at-time.ts';
import type { CountdownLooks } from './countdown-looks.ts';
import { MAX_AHEAD_MS } from './countdown-looks.ts';
import type { RaceLightsCounts } from './counts.ts';
import { stagePlan, type StageTimes } from './merge.ts';
import { PhaseLookPlayer, type LookRunner, type PhaseLook, type PhaseLookRecord } from './phase-player.ts';
import { builtinLook } from './phases.ts';
import type { Phase } from './settings.ts';
import type { PhaseEvent, RaceLightsDeps } from './types.ts';

/** A start event within this of a scheduled start was already handled by the schedule. */
const SAME_START_MS = 3000;

export type PhaseLooksDeps = Pick<
  RaceLightsDeps,
  'log' | 'wall' | 'heat' | 'settings' | 'suppressed' | 'flashAirtimeMs'
> & {
  /** The scene runner the phase player plays on. */
  runner: LookRunner;
  countdown: Pick<CountdownLooks, 'wallOf' | 'stageCountdown' | 'cancel'>;
  counts: RaceLightsCounts;
  /** Something `view()` shows changed. */
  changed(): void;
};

export class PhaseLooks {
  private readonly scheduled = new Map<string, { at_epoch_ms: number; timer: { cancel(): void } }>();
  private lastScheduledStart: number | null = null;
  private lastPhase: { phase: string; at_epoch_ms: number; how: string } | null = null;
  private readonly player: PhaseLookPlayer;
  /** This race's winner look: kept on the finish gate until the next race is staged or the heat changes. */
  private winner: PhaseLook | null = null;
  /** The last look over every gate (staging … stop) and whether it went out whole. */
  private base: { look: PhaseLook; shown: boolean } | null = null;
  /** This race's pilot-done looks, each on its seat's gate. */
  private done: { look: PhaseLook; shown: boolean }[] = [];

  constructor(private readonly deps: PhaseLooksDeps) {
    this.player = new PhaseLookPlayer({ runner: deps.runner, log: deps.log, now: () => deps.wall.now() });
  }

  /** A countdown step that settled, kept with the phase looks' records. */
  note(rec: PhaseLookRecord): void {
    this.player.note(rec);
  }

  /** A second timer's countdown lands GO on `at` (null: no GO): its own start event is then the schedule's. */
  startScheduledAt(at: number | null): void {
    this.lastScheduledStart = at;
  }

  /** The phase parts of the race lights' view. */
  view(): {
    scheduled: { phase: string; at_epoch_ms: number }[];
    last_phase: { phase: string; at_epoch_ms: number; how: string } | null;
    recent_phases: PhaseLookRecord[];
  } {
    return {
      scheduled: [...this.scheduled].map(([phase, s]) => ({ phase, at_epoch_ms: s.at_epoch_ms })),
      last_phase: this.lastPhase,
      recent_phases: this.player.records(),
    };
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
      this.deps.counts.phases_held++;
      if (ev.phase === 'stage' || ev.phase === 'stop') this.cancelScheduled();
      return { ran: [], scheduled: [] };
    }
    const now = this.deps.wall.now();
    if (ev.phase === 'stage') {
      this.cancelScheduled();
      const times: StageTimes = {
        staging_epoch_ms: this.deps.countdown.wallOf(ev.staging_monotonic_s, ev.staging_epoch_ms),
        start_epoch_ms: this.deps.countdown.wallOf(ev.start_monotonic_s, ev.start_epoch_ms),
      };
      const countdown = this.deps.countdown.stageCountdown(s, times, ev.staging_tones ?? 0, now);
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
    if (ev.phase === 'stop') {
      this.cancelScheduled();
      this.deps.countdown.cancel('stop');
    }
    return {
      ran: this.runPhase(ev.phase, 'event', source, { seat: ev.seat, color: ev.color }),
      scheduled: [],
    };
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
      this.deps.counts.phases_held++;
      return [];
    }
    const key = p.scene ?? `race-lights-${phase}`;
    const body = p.scene ? {} : builtinLook(phase, s, this.deps.heat(), winner);
    if (!body) return [];
    this.lastPhase = { phase, at_epoch_ms: this.deps.wall.now(), how };
    const look: PhaseLook = { phase, key, body: body as unknown as Record<string, unknown>, source };
    void this.player.play(this.sequence(look)).finally(() => this.deps.changed());
    this.deps.changed();
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
}
