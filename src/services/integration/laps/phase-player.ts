/**
 * Plays race phase looks through the scene runner, which runs one scene at a time and
 * refuses a second (`scene_running`). Race phases come in bursts — RotorHazard fires Race
 * Finish, Race Win and Race Stop within milliseconds or in either order (its handlers run
 * as separate greenlets) — so a refusal there lost the stop or the winner look. The rule:
 *
 * - A later phase takes over a running phase look at once: that look is cancelled between
 *   frames and the new one starts as soon as it has ended. Never a refusal between looks.
 * - A scene the race lights did not start (the operator's, an Event Action's) is never
 *   cancelled: the phase look is not shown, and that is logged and listed (`not_shown`).
 * - A look cancelled by someone else (Blackout, the operator's Stop) ends its sequence:
 *   the looks queued behind it are not played.
 */
import { SceneRunningError } from '../../../errors.ts';
import type { Logger } from '../../../logger.ts';

/** What the runner reports of a finished run. */
export interface LookRun {
  ok: boolean;
  cancelled: boolean;
  error: string | null;
}

/** The scene runner as the player needs it. */
export interface LookRunner {
  /**
   * Runs a stored scene, or the draft in `body.actions`, to its end, as `source`'s command;
   * rejects when it cannot start (another scene runs, the command path refuses it).
   */
  run(key: string, body: Record<string, unknown>, source: string): Promise<LookRun>;
  /** The key of the scene being played, or null. */
  running(): string | null;
  /** Stops the running scene between frames (a no-op when none runs). */
  cancel(): void;
  /** How many cancels anyone asked for so far (ours, Blackout's, the operator's Stop). */
  cancels(): number;
}

export interface PhaseLook {
  phase: string;
  /** A stored scene's key, or the built-in look's draft key. */
  key: string;
  body: Record<string, unknown>;
  /** Called once the look has gone out whole. */
  whenShown?: () => void;
  /** The timer whose event asked for it (`rotorhazard`, `fpvtrackside`). */
  source: string;
}

export type PhaseLookState =
  'waiting' | 'running' | 'shown' | 'failed' | 'taken_over' | 'cancelled' | 'not_shown';

export interface PhaseLookRecord {
  phase: string;
  scene: string;
  requested_epoch_ms: number;
  state: PhaseLookState;
  error: string | null;
}

const RECENT = 20;

export class PhaseLookPlayer {
  /** Bumped by every play: a sequence that sees a newer one stops. */
  private generation = 0;
  /** The look we are playing (its run settles when it has ended). */
  private current: { key: string; ended: Promise<void> } | null = null;
  private readonly recent: PhaseLookRecord[] = [];

  constructor(private readonly deps: { runner: LookRunner; log: Logger; now(): number }) {}

  /** The last looks asked for, oldest first, with what became of each. */
  records(): PhaseLookRecord[] {
    return this.recent.map((r) => ({ ...r }));
  }

  /**
   * Plays the looks in order, after taking over the look we are playing. Resolves when
   * the sequence has ended (shown, taken over, cancelled or not shown); never rejects.
   */
  async play(looks: readonly PhaseLook[]): Promise<void> {
    const gen = ++this.generation;
    const recs = looks.map((l) => this.record(l));
    const mine = this.current;
    const other = this.deps.runner.running();
    if (other !== null && (mine === null || other !== mine.key)) {
      this.notShown(looks, recs, 0, `scene_running: ${other}`);
      return;
    }
    if (mine) {
      const before = this.deps.runner.cancels();
      this.deps.runner.cancel();
      await mine.ended;
      // Blackout (or the operator's Stop) while we waited for the look to end: it wins.
      if (gen === this.generation && this.deps.runner.cancels() > before + 1) {
        for (const r of recs) r.state = 'cancelled';
        this.deps.log.info({ phases: looks.map((l) => l.phase) }, 'race lights: phase look cancelled');
        return;
      }
    }
    for (let i = 0; i < looks.length; i++) {
      const look = looks[i] as PhaseLook;
      const rec = recs[i] as PhaseLookRecord;
      if (gen !== this.generation) {
        for (const r of recs.slice(i)) r.state = 'taken_over';
        return;
      }
      rec.state = 'running';
      const run = this.deps.runner.run(look.key, look.body, look.source);
      const ended = run.then(
        () => undefined,
        () => undefined,
      );
      const entry = { key: look.key, ended };
      this.current = entry;
      let r: LookRun;
      try {
        r = await run;
      } catch (err) {
        // Refused before its first frame: a scene of the operator's started in the gap.
        const msg = err instanceof SceneRunningError ? `scene_running: ${err.scene}` : (err as Error).message;
        this.notShown(looks, recs, i, msg);
        return;
      } finally {
        if (this.current === entry) this.current = null;
      }
      if (r.cancelled) {
        if (gen !== this.generation) {
          for (const x of recs.slice(i)) x.state = 'taken_over';
        } else {
          // Blackout or the operator's Stop: nothing queued behind this look may follow.
          rec.state = 'cancelled';
          for (const x of recs.slice(i + 1)) x.state = 'cancelled';
          this.deps.log.info({ phase: look.phase, scene: look.key }, 'race lights: phase look cancelled');
        }
        return;
      }
      rec.state = r.ok ? 'shown' : 'failed';
      rec.error = r.error;
      if (r.ok) look.whenShown?.();
      else
        this.deps.log.warn(
          { phase: look.phase, scene: look.key, error: r.error },
          'race lights: phase look failed',
        );
    }
  }

  /** A look played elsewhere (a countdown step), listed with the others once it is over. */
  note(rec: PhaseLookRecord): void {
    this.recent.push({ ...rec });
    if (this.recent.length > RECENT) this.recent.shift();
  }

  private record(l: PhaseLook): PhaseLookRecord {
    const rec: PhaseLookRecord = {
      phase: l.phase,
      scene: l.key,
      requested_epoch_ms: this.deps.now(),
      state: 'waiting',
      error: null,
    };
    this.recent.push(rec);
    if (this.recent.length > RECENT) this.recent.shift();
    return rec;
  }

  private notShown(
    looks: readonly PhaseLook[],
    recs: readonly PhaseLookRecord[],
    from: number,
    error: string,
  ): void {
    for (const r of recs.slice(from)) {
      r.state = 'not_shown';
      r.error = error;
    }
    this.deps.log.warn(
      { phases: looks.slice(from).map((l) => l.phase), error },
      'race lights: phase look not shown',
    );
  }
}
