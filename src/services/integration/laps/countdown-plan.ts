/**
 * Pure arithmetic of the race countdown: which steps a staged race has (one per staging
 * tone, then GO at the start), when each is due on our wall clock, and when its trigger
 * must be handed to the radio so the gates change at that instant.
 *
 * Clocks (timers reference §1.6): RotorHazard announces its moments in its own
 * `time.monotonic()` seconds. It runs on this machine (the integration API is loopback
 * only) and Python's monotonic clock is the same Linux CLOCK_MONOTONIC as Node's
 * `process.hrtime`, so a moment converts to our wall clock through one fresh reading of both
 * clocks. Its `*_epoch_ms` fields go through an offset RotorHazard computed once at its own
 * start and never refreshes: a wall-clock step since (NTP on a Pi without RTC) would move
 * every cue, so they are only the fallback.
 */

export type StepKind = 'tone' | 'last_tone' | 'go';

export interface Step {
  kind: StepKind;
  /** The staging tone's index (0-based); null for GO. */
  tone: number | null;
  /** Wall-clock ms at which the gates must show this step. */
  at: number;
}

/** Both clocks read together: wall ms and monotonic ms. */
export interface ClockPair {
  wallMs: number;
  monoMs: number;
}

/** A timer's monotonic seconds → our wall-clock ms. */
export function monotonicToWall(monoS: number, now: ClockPair): number {
  return now.wallMs + (monoS * 1000 - now.monoMs);
}

/** Tones are a second apart, counted from the staging instant (RotorHazard `stage()`, §1.4). */
export const TONE_SPACING_MS = 1000;

/**
 * The steps of a staged race from its staging instant, its start and its tone count: tone
 * i at staging + i s (only those before the start), the last one `last_tone`, GO at the
 * start. RotorHazard 4.4.0 announces no tones; 4.4.1-dev's tone events land on the same
 * moments and only correct them (`withTone`).
 */
export function stagedSteps(t: { stagingAt: number | null; startAt: number; tones: number }): Step[] {
  const out: Step[] = [];
  if (t.stagingAt !== null) {
    for (let i = 0; i < t.tones; i++) {
      const at = t.stagingAt + i * TONE_SPACING_MS;
      if (at >= t.startAt) break;
      out.push({ kind: 'tone', tone: i, at });
    }
  }
  const last = out.at(-1);
  if (last) last.kind = 'last_tone';
  out.push({ kind: 'go', tone: null, at: t.startAt });
  return out;
}

/**
 * A timer that only announces its start (FPVTrackside's RacePreStart): a tone on each of the
 * last `count` whole seconds that still lie `minAheadMs` ahead (time to arm the gates),
 * then GO at the start.
 */
export function secondsBefore(startAt: number, now: number, count: number, minAheadMs: number): Step[] {
  const out: Step[] = [];
  for (let k = count; k >= 1; k--) {
    const at = startAt - k * TONE_SPACING_MS;
    if (at >= now + minAheadMs) out.push({ kind: 'tone', tone: count - k, at });
  }
  const last = out.at(-1);
  if (last) last.kind = 'last_tone';
  out.push({ kind: 'go', tone: null, at: startAt });
  return out;
}

/**
 * A tone the timer announced (4.4.1-dev `RACE_STAGE_TONE`): it replaces the derived step of
 * the same index (its time is the timer's own), or is added in time order. `remaining` 0 is
 * the last tone. Returns the steps, sorted.
 */
export function withTone(
  steps: readonly Step[],
  tone: { index: number; remaining: number; at: number },
): Step[] {
  const kind: StepKind = tone.remaining === 0 ? 'last_tone' : 'tone';
  const out = steps.filter((s) => s.tone !== tone.index);
  out.push({ kind, tone: tone.index, at: tone.at });
  out.sort((a, b) => a.at - b.at || (a.kind === 'go' ? 1 : 0) - (b.kind === 'go' ? 1 : 0));
  // Only one last tone: a later announcement wins over an earlier derivation.
  if (kind === 'last_tone')
    for (const s of out) if (s.kind === 'last_tone' && s.tone !== tone.index) s.kind = 'tone';
  return out;
}

/**
 * When to hand a step's trigger to the radio: the gates change when the trigger frame has
 * been received, so it leaves `leadMs` early (its time on air plus the link to the radio).
 */
export function fireAt(step: Step, leadMs: number): number {
  return step.at - leadMs;
}
