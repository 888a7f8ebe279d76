/**
 * The race countdown on the gates: one look per staging tone and GO at the start, each
 * shown *at* its instant rather than when the timer's event arrives.
 *
 * How (wire protocol §8.11): each step's look is sent ahead as armed CONTROLs (ARM_ON_SYNC:
 * stored by the nodes, nothing visible), then one trigger SYNC per network — the shortest
 * frame there is, sent by all gateways in the same turn — applies it on every gate at once.
 * Only the SYNC is timed: it is handed to the radio its time on air (plus the link) before
 * the instant, and bulk traffic (status polls) is held from the first arm to the end so the
 * TX slot is idle when it goes. A timed send of the looks themselves would put one frame
 * per gate on the air one after another: the last gate would change tens of ms late.
 *
 * Steps run in order: step k is armed once step k−1's SYNC has gone (a newer armed CONTROL
 * replaces the older on a node). Rules:
 * - A scene that is not ours (the operator's) running at a step: the step is not shown, and
 *   no SYNC goes (it would fire that scene's armed looks too).
 * - Blackout or the operator's Stop (the scene runner's cancel count moved): the countdown
 *   ends at once; armed looks are dropped with a dark immediate CONTROL (Blackout's look).
 * - Cancelled (abort, stop, cancelled schedule): the gates go back to what they showed
 *   before the countdown, which also drops a look still armed.
 */
import type { Logger } from '../../../logger.ts';
import type { TxOutcome } from '../../../gateway/types.ts';
import { atWallTime, type WallTimer } from '../at-time.ts';
import { fireAt, withTone, type Step, type StepKind } from './countdown-plan.ts';
import type { M2NRequest } from '../../../protocol/types.ts';

/** A frame as the race lights send it (receiver, request, network). */
export interface CountdownFrame {
  receiver: string;
  request: M2NRequest;
  network?: number;
}

export interface CountdownDeps {
  log: Logger;
  wall: WallTimer;
  /** The armed frames of a step's look; null or empty: that step shows nothing (phase off, no gate). */
  armFrames(kind: StepKind): CountdownFrame[] | null;
  /** The trigger SYNC, one frame per network. */
  syncFrames(): CountdownFrame[];
  /** Hands frames to the radio(s) at once; resolves with the first failure, else ok. */
  send(frames: readonly CountdownFrame[], priority: 'urgent' | 'interactive'): Promise<TxOutcome>;
  /** Holds bulk traffic on the gateways of these frames; returns the release. */
  holdBulk(frames: readonly CountdownFrame[]): () => void;
  /** How early a trigger leaves so it has been received at the instant (ms). */
  leadMs(): number;
  /** The key of a running scene that is not the race lights' own, or null. */
  foreignScene(): string | null;
  /** The scene runner's cancel count (Blackout, the operator's Stop). */
  cancels(): number;
  /** A step went out: what the gates now show (for the lap flash's restore). */
  shown(frames: readonly CountdownFrame[]): void;
  /** A step is over (shown, not shown, cancelled): the Race lights page lists it with the phases. */
  settled(rec: Readonly<StepRecord>, why: string | null): void;
}

export type StepState = 'waiting' | 'armed' | 'shown' | 'not_shown' | 'cancelled';

export interface StepRecord {
  step: StepKind;
  tone: number | null;
  due_epoch_ms: number;
  fire_at_epoch_ms: number;
  /** When the trigger was handed to the radio. */
  sent_epoch_ms: number | null;
  state: StepState;
  error: string | null;
  /** The timer announced this tone itself (RotorHazard 4.4.1-dev); false: derived from the stage. */
  announced: boolean;
}

interface Run {
  id: number;
  source: string;
  steps: Step[];
  records: Map<Step, StepRecord>;
  dead: boolean;
  cancelsAtStart: number;
  release: () => void;
  /** The step whose instant we wait for, and how to re-time the wait. */
  waiting: { step: Step; retime(): void } | null;
  /** Index of the step being driven. */
  cursor: number;
  /** Frames that put back the gates' look from before the countdown. */
  restore: CountdownFrame[];
  armedOnNodes: boolean;
}

/** A step whose instant is this far gone is not shown (it would read as the next one). */
const MAX_LATE_MS = 150;
const RECENT = 20;

export class Countdown {
  private run: Run | null = null;
  private nextId = 1;
  private readonly recent: StepRecord[] = [];

  constructor(private readonly deps: CountdownDeps) {}

  /** Whether a countdown is under way (between its start and its GO or its cancel). */
  active(): boolean {
    return this.run !== null && !this.run.dead;
  }

  view(): { active: boolean; source: string | null; lead_ms: number; steps: StepRecord[] } {
    return {
      active: this.active(),
      source: this.run?.source ?? null,
      lead_ms: Math.round(this.deps.leadMs() * 10) / 10,
      steps: this.recent.map((r) => ({ ...r })),
    };
  }

  /**
   * Starts a countdown (replacing one under way, without putting its look back: the new
   * one takes the gates). `restore`: the gates' look before the countdown.
   */
  start(steps: readonly Step[], source: string, restore: CountdownFrame[]): void {
    // A tone announced before its stage event got here (they leave RotorHazard 2 ms apart
    // and travel separately): its own time is kept in the stage's plan.
    const old = this.run;
    let planned = [...steps];
    if (old && !old.dead && !old.steps.some((s) => s.kind === 'go')) {
      for (const s of old.steps) {
        const rec = old.records.get(s);
        if (s.tone === null || !rec?.announced || (rec.state !== 'waiting' && rec.state !== 'armed'))
          continue;
        planned = withTone(planned, { index: s.tone, remaining: s.kind === 'last_tone' ? 0 : 1, at: s.at });
        const i = this.recent.indexOf(rec);
        if (i >= 0) this.recent.splice(i, 1);
        old.records.delete(s);
      }
    }
    this.end(old, 'replaced', false);
    const carried = new Set(planned.filter((s) => !steps.includes(s)));
    const sync = this.deps.syncFrames();
    const run: Run = {
      id: this.nextId++,
      source,
      steps: planned.sort((a, b) => a.at - b.at),
      records: new Map(),
      dead: false,
      cancelsAtStart: this.deps.cancels(),
      release: this.deps.holdBulk(sync),
      waiting: null,
      cursor: -1,
      restore,
      armedOnNodes: false,
    };
    for (const s of run.steps) this.record(run, s).announced = carried.has(s);
    this.run = run;
    this.deps.log.info(
      { source, steps: run.steps.map((s) => ({ step: s.kind, tone: s.tone, at: Math.round(s.at) })) },
      'race countdown planned',
    );
    void this.drive(run);
  }

  /**
   * A tone the timer announced with its own time: corrects the planned step of that index,
   * or adds it. Without a countdown under way it starts one of this tone alone (the stage
   * event was lost); a tone after the run's GO was sent is ignored.
   */
  tone(t: { index: number; remaining: number; at: number }, source: string, restore: CountdownFrame[]): void {
    const run = this.run;
    if (!run || run.dead) {
      this.start(withTone([], t), source, restore);
      const rec = this.recent.at(-1);
      if (rec) rec.announced = true;
      return;
    }
    const kind: StepKind = t.remaining === 0 ? 'last_tone' : 'tone';
    let step = run.steps.find((s) => s.tone === t.index);
    if (step) {
      const rec = run.records.get(step);
      // Out already (or given up): its moment has passed.
      if (rec && rec.state !== 'waiting' && rec.state !== 'armed') return;
      // Steps are changed in place: the drive loop holds them.
      step.at = t.at;
      step.kind = kind;
      if (rec) this.record(run, step, rec).announced = true;
      if (run.waiting?.step === step) run.waiting.retime();
    } else {
      step = { kind, tone: t.index, at: t.at };
      let i = run.steps.findIndex((s, k) => k > run.cursor && s.at > t.at);
      if (i < 0) i = run.steps.length;
      run.steps.splice(Math.max(i, run.cursor + 1), 0, step);
      this.record(run, step).announced = true;
    }
    // Only one last tone: the timer's word wins over a derivation.
    if (kind === 'last_tone')
      for (const s of run.steps)
        if (s !== step && s.kind === 'last_tone')
          this.record(run, Object.assign(s, { kind: 'tone' }), run.records.get(s));
  }

  /** The race was aborted or stopped, or its schedule cancelled: nothing more, gates put back. */
  cancel(reason: string): boolean {
    const run = this.run;
    if (!run || run.dead) return false;
    this.end(run, reason, true);
    return true;
  }

  /** A red flag: nothing more, and the gates are left to the flag's look (no put-back). */
  halt(reason: string): boolean {
    const run = this.run;
    if (!run || run.dead) return false;
    this.end(run, reason, false);
    return true;
  }

  private end(run: Run | null, reason: string, putBack: boolean): void {
    if (!run || run.dead) return;
    run.dead = true;
    run.release();
    for (const r of run.records.values())
      if (r.state === 'waiting' || r.state === 'armed') {
        r.state = 'cancelled';
        this.deps.settled(r, reason);
      }
    run.waiting?.retime();
    const shownAny = [...run.records.values()].some((r) => r.state === 'shown');
    if (putBack && (shownAny || run.armedOnNodes) && run.restore.length > 0) {
      void this.deps.send(run.restore, 'urgent').then((o) => {
        if (!o.ok) this.deps.log.warn({ error: o.detail }, 'race countdown: gates not put back');
        else this.deps.shown(run.restore);
      });
    }
    this.deps.log.info({ reason, source: run.source }, 'race countdown ended');
  }

  private record(run: Run, s: Step, prev?: StepRecord): StepRecord {
    const rec: StepRecord = prev ?? {
      step: s.kind,
      tone: s.tone,
      due_epoch_ms: Math.round(s.at),
      fire_at_epoch_ms: Math.round(fireAt(s, this.deps.leadMs())),
      sent_epoch_ms: null,
      state: 'waiting',
      error: null,
      announced: false,
    };
    rec.step = s.kind;
    rec.due_epoch_ms = Math.round(s.at);
    rec.fire_at_epoch_ms = Math.round(fireAt(s, this.deps.leadMs()));
    run.records.set(s, rec);
    if (!prev) {
      this.recent.push(rec);
      if (this.recent.length > RECENT) this.recent.shift();
    }
    return rec;
  }

  /** Blackout or the operator's Stop since the countdown began (our own cancels aside). */
  private overruled(run: Run): boolean {
    return this.deps.cancels() > run.cancelsAtStart;
  }

  private async drive(run: Run): Promise<void> {
    try {
      for (let i = 0; i < run.steps.length; i++) {
        if (run.dead) return;
        run.cursor = i;
        const step = run.steps[i] as Step;
        const rec = run.records.get(step) ?? this.record(run, step);
        const skip = (why: string): void => {
          rec.state = 'not_shown';
          rec.error = why;
          this.deps.settled(rec, why);
          this.deps.log.info({ step: step.kind, tone: step.tone, why }, 'race countdown step not shown');
        };
        if (this.deps.wall.now() > step.at + MAX_LATE_MS) {
          skip('late');
          continue;
        }
        const frames = this.deps.armFrames(step.kind);
        if (!frames || frames.length === 0) {
          skip('off');
          continue;
        }
        const foreign = this.deps.foreignScene();
        if (foreign !== null) {
          // Its turn passes unshown; the next step is looked at when this one is over.
          await this.until(run, step);
          if (run.dead) return;
          skip(`scene_running: ${foreign}`);
          continue;
        }
        const armed = await this.deps.send(frames, 'interactive');
        if (run.dead) return;
        if (!armed.ok) {
          skip(`not armed: ${armed.detail}`);
          continue;
        }
        run.armedOnNodes = true;
        rec.state = 'armed';
        await this.until(run, step);
        if (run.dead) return;
        if (this.overruled(run)) {
          this.blackedOut(run);
          return;
        }
        const other = this.deps.foreignScene();
        if (other !== null) {
          skip(`scene_running: ${other}`);
          continue;
        }
        if (this.deps.wall.now() > step.at + MAX_LATE_MS) {
          skip('late');
          continue;
        }
        rec.sent_epoch_ms = this.deps.wall.now();
        const out = await this.deps.send(this.deps.syncFrames(), 'urgent');
        run.armedOnNodes = false;
        if (!out.ok) {
          skip(`trigger not sent: ${out.detail}`);
          continue;
        }
        rec.state = 'shown';
        this.deps.settled(rec, null);
        this.deps.shown(frames.map(immediate));
      }
      if (!run.dead) {
        run.dead = true;
        run.release();
      }
    } catch (err) {
      this.deps.log.warn({ error: (err as Error).message }, 'race countdown failed');
      this.end(run, 'failed', true);
    }
  }

  /** Waits for a step's trigger moment; a tone event may re-time it, a cancel ends it. */
  private until(run: Run, step: Step): Promise<void> {
    return new Promise((resolve) => {
      let timer: { cancel(): void } | null = null;
      const arm = (): void => {
        timer?.cancel();
        if (run.dead) {
          run.waiting = null;
          resolve();
          return;
        }
        run.waiting = { step, retime: arm };
        timer = atWallTime(this.deps.wall, fireAt(step, this.deps.leadMs()), () => {
          run.waiting = null;
          resolve();
        });
      };
      arm();
    });
  }

  private blackedOut(run: Run): void {
    run.dead = true;
    run.release();
    for (const r of run.records.values())
      if (r.state === 'waiting' || r.state === 'armed') {
        r.state = 'cancelled';
        r.error = 'blackout';
        this.deps.settled(r, 'blackout');
      }
    // Blackout's PRESET leaves an armed CONTROL on the nodes: a later trigger SYNC (a
    // scene's) would light it. A dark immediate CONTROL drops it and keeps the gates dark.
    if (run.armedOnNodes) {
      const dark = run.restore.map((f) => ({
        ...f,
        request: { op: 'CONTROL' as const, groupId: groupOf(f), flags: 0, fields: { brightness: 0 } },
      }));
      if (dark.length > 0) void this.deps.send(dark, 'urgent');
    }
    this.deps.log.info({ source: run.source }, 'race countdown ended by Blackout or Stop');
  }
}

const ARM_ON_SYNC = 0x02;

function groupOf(f: CountdownFrame): number {
  return 'groupId' in f.request ? f.request.groupId : 255;
}

/** The armed frame as the look it became once fired (what the gates show now). */
function immediate(f: CountdownFrame): CountdownFrame {
  const r = f.request;
  if (r.op !== 'CONTROL') return f;
  return { ...f, request: { ...r, flags: r.flags & ~ARM_ON_SYNC } };
}
