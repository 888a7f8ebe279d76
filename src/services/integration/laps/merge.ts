/**
 * Pure rules of the lap flashes: passes are merged per gate while the radio is busy with
 * the previous flash, a batch older than its age limit is dropped instead of sent late, and
 * a race's announced times become scheduled phase moments.
 *
 * Why merge and drop: one CONTROL frame is on the air for tens of ms (more at slow RF
 * settings). Four pilots crossing the line together would otherwise queue four frames, the
 * last one shown a whole airtime-chain after its pass — and the queue would sit in front
 * of the next lap. So passes that meet a busy radio join the waiting batch of their gate
 * (up to three colours: the CONTROL frame carries color1..3), and a batch that could not go
 * out within its window is counted as dropped.
 */
import type { Rgb } from '../../../protocol/types.ts';

/** The CONTROL frame carries three colours. */
export const MAX_COLORS = 3;

export interface Pass {
  seat: number;
  gateKey: string;
  color: Rgb;
  /** Wall-clock ms the pass reached the host. */
  at: number;
}

export interface GateBatch {
  gateKey: string;
  colors: Rgb[];
  seats: number[];
  /** Arrival of the batch's first pass: its age decides whether it is still worth sending. */
  firstAt: number;
}

const sameColor = (a: Rgb, b: Rgb): boolean => a[0] === b[0] && a[1] === b[1] && a[2] === b[2];

/**
 * Adds a pass to the waiting batches. Same gate: merged into that batch (a colour already
 * in it is not repeated); a fourth distinct colour does not fit and is an overflow.
 */
export function addPass(pending: GateBatch[], p: Pass): 'new' | 'merged' | 'overflow' {
  const b = pending.find((x) => x.gateKey === p.gateKey);
  if (!b) {
    pending.push({ gateKey: p.gateKey, colors: [p.color], seats: [p.seat], firstAt: p.at });
    return 'new';
  }
  if (!b.colors.some((c) => sameColor(c, p.color))) {
    if (b.colors.length >= MAX_COLORS) return 'overflow';
    b.colors.push(p.color);
  }
  if (!b.seats.includes(p.seat)) b.seats.push(p.seat);
  return 'merged';
}

/**
 * The next batch to send (oldest first), and the batches that waited longer than `maxAgeMs`
 * (removed: a late flash reads as belonging to the wrong pass).
 */
export function takeBatch(
  pending: GateBatch[],
  now: number,
  maxAgeMs: number,
): { batch: GateBatch | null; stale: GateBatch[] } {
  const stale: GateBatch[] = [];
  for (let i = pending.length - 1; i >= 0; i--) {
    const b = pending[i] as GateBatch;
    if (now - b.firstAt > maxAgeMs) stale.unshift(...pending.splice(i, 1));
  }
  let oldest = -1;
  pending.forEach((b, i) => {
    if (oldest < 0 || b.firstAt < (pending[oldest] as GateBatch).firstAt) oldest = i;
  });
  const batch = oldest < 0 ? null : (pending.splice(oldest, 1)[0] ?? null);
  return { batch, stale };
}

/** The flash's color1..3: one pilot fills all three, two alternate, three each get one. */
export function flashColors(colors: readonly Rgb[]): [Rgb, Rgb, Rgb] {
  const c = colors.length > 0 ? colors : ([[255, 255, 255]] as Rgb[]);
  return [c[0] as Rgb, c[1 % c.length] as Rgb, c[2 % c.length] as Rgb];
}

/** How long a pass may wait for the radio: its own frame's airtime, twice (never under 20 ms). */
export function maxWaitMs(flashAirtimeMs: number): number {
  return Math.max(20, Math.round(2 * flashAirtimeMs));
}

export interface StageTimes {
  /** When staging (the tones) begins, as the timing application announced it. */
  staging_epoch_ms?: number | null;
  /** The race's start instant. */
  start_epoch_ms?: number | null;
}

export interface PhaseMoment {
  phase: 'staging' | 'start';
  at_epoch_ms: number;
}

/**
 * The announced moments of a staged race: staging at its announced time (now when already
 * past), the start at its instant. A start in the past, or further ahead than `maxAheadMs`,
 * is not scheduled (it is handled when its event arrives).
 */
export function stagePlan(t: StageTimes, now: number, maxAheadMs: number): PhaseMoment[] {
  const out: PhaseMoment[] = [];
  const ok = (v: number | null | undefined): v is number =>
    typeof v === 'number' && Number.isFinite(v) && v <= now + maxAheadMs;
  if (ok(t.staging_epoch_ms) && (!ok(t.start_epoch_ms) || t.staging_epoch_ms <= t.start_epoch_ms)) {
    out.push({ phase: 'staging', at_epoch_ms: Math.max(now, Math.round(t.staging_epoch_ms)) });
  }
  if (ok(t.start_epoch_ms) && t.start_epoch_ms > now) {
    out.push({ phase: 'start', at_epoch_ms: Math.round(t.start_epoch_ms) });
  }
  return out;
}

/** `#rrggbb` → [r, g, b]. */
export function hexToRgb(hex: string): Rgb {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}
