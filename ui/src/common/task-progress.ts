/**
 * What a running task is doing in an operator's words: the phase, found/expected or
 * done/total counts, how far along (0..1) and an estimate of the time left from the
 * rate so far in this phase. Pure: the status bar tracks when each phase began.
 */
import { RF_STAGES } from '../networks/rf-task-words.ts';
import type { Task } from '../types.ts';

export interface ProgressView {
  /** "listening for nodes (pass 2)", "polling", "assigning groups". */
  phase: string;
  /** "found 252", "answered 120 of 300", "30 of 42". */
  counts: string;
  fraction: number | null;
  /** Seconds left in this phase, when the rate so far says. */
  leftS: number | null;
  /** Identifies the phase (a change restarts the rate). */
  key: string;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

const PHASES: Record<string, string> = {
  DISCOVER: 'listening for nodes',
  ASSIGN: 'assigning groups',
  PARK: 'parking found nodes',
  UNPARK: 'placing nodes in their groups',
  POLL: 'polling',
  FOLLOW_UP: 'asking silent devices one by one',
  ...RF_STAGES,
};

/** `phaseElapsedS`: seconds since this phase (see `key`) began; `foundSoFar`: the most found so far. */
export function progressView(
  t: Task & { rx_replies?: number },
  phaseElapsedS: number,
  foundSoFar = 0,
): ProgressView {
  const m = t.meta;
  const stage = typeof m.stage === 'string' ? m.stage : '';
  const pass = num(m.pass);
  const phase = (PHASES[stage] ?? stage.toLowerCase()) + (pass && pass > 1 ? ` (pass ${pass})` : '');
  const key = `${t.id}:${stage}:${pass ?? ''}`;
  const index = num(m.index);
  const total = num(m.total);
  const expected = num(m.expected);
  const answered = num(m.answered);
  let done: number | null = null;
  let of: number | null = null;
  let counts = '';
  if ((stage === 'POLL' || stage === 'FOLLOW_UP') && answered !== null && total !== null && total > 0) {
    // The status poll reports its answered devices against the devices in scope.
    done = answered;
    of = total;
    counts = `answered ${answered} of ${total}`;
  } else if (index !== null && total !== null && total > 0) {
    done = index;
    of = total;
    counts = `${index} of ${total}`;
  } else if (stage === 'POLL' && expected !== null && expected > 0) {
    done = Math.min(expected, t.rx_replies ?? 0);
    of = expected;
    counts = `answered ${done} of ${expected}`;
  } else if (stage === 'DISCOVER') {
    counts = `found ${Math.max(num(m.found) ?? 0, foundSoFar)}`;
  }
  if (stage !== 'DISCOVER' && foundSoFar > 0 && t.name === 'discover')
    counts = `found ${foundSoFar} · ${counts}`;
  const fraction = done !== null && of ? Math.min(1, done / of) : null;
  const leftS =
    done !== null && of !== null && done > 0 && phaseElapsedS > 1
      ? ((of - done) * phaseElapsedS) / done
      : null;
  return { phase, counts, fraction, leftS, key };
}
