/** Options, progress and per-node entries of the field recovery (see recovery.ts). */
import type { Addr } from '../../../protocol/types.ts';
import type { RecoveryTrigger } from '../../../events.ts';

// The bus carries the progress, so it owns these shapes (like SceneProgress).
export type { RecoveryProgress, RecoveryTrigger } from '../../../events.ts';

export interface RecoveryOptions {
  /**
   * How long the host keeps trying to put one node back into its group before it calls it
   * offline (from the moment the node became `rejoining`). A field is switched on over a
   * minute or two, so this must outlast the slowest gate plus a few passes.
   */
  budgetMs: number;
  /** SET_GROUP exchanges in flight (the pipeline's measured default). */
  depth: number;
  /**
   * SET_GROUP exchanges in flight of each network's sweep when several networks restore in
   * parallel (per-network.ts). One gateway keeps `depth`.
   */
  legDepth: number;
  /**
   * Reply window of one SET_GROUP try (SF7/125 kHz ms; the driver stretches it at slower
   * RF settings). An ACK comes 50–300 ms + CAD + ~45 ms airtime after the request, rarely
   * later after an LBT backoff of 100–200 ms: 1 s covers it; the driver's default 1.5 s
   * window would make every still-dark node cost half as much again.
   */
  attemptTimeoutMs: number;
  /** Tries of one node within a pass (quick retries of a collided exchange). */
  attemptsPerPass: number;
  /** Pause before a node's next pass: min(passBackoffMs · 2^(passes − 1), passBackoffMaxMs). */
  passBackoffMs: number;
  passBackoffMaxMs: number;
  /**
   * Before the first pass of an automatic sweep: the boot announcements of a field that
   * was just switched on arrive within ~5 s (§8.6) and restore their nodes at once, so the
   * sweep then only has to reach the nodes whose announcements collided.
   */
  settleMs: number;
  /** This many boot announcements of known nodes within `burstWindowMs` mean a field power-up. */
  burstCount: number;
  burstWindowMs: number;
  /**
   * A status poll that leaves at least this many known nodes silent hands them to the
   * recovery (rejoining) instead of calling them offline at once; fewer go offline as before.
   */
  pollSilentMin: number;
  /** A gateway reconnect sweeps the known nodes not heard from within this long. */
  reconnectFreshMs: number;
  /** Immediate restores of announcing nodes running at once, and their per-node cooldown. */
  immediateParallel: number;
  immediateCooldownMs: number;
}

export const DEFAULT_RECOVERY_OPTIONS: RecoveryOptions = {
  budgetMs: 300_000,
  depth: 2,
  // Measured (bench:networks, race morning, 2 × 150, seeds 1–3, 99 % restored): depth 2
  // 59.1/66.9/54.5 s, 3 48.1/51.5/50.0 s, 4 46.9/47.0/47.0 s but 100 % later on two seeds.
  legDepth: 3,
  attemptTimeoutMs: 1000,
  attemptsPerPass: 3,
  passBackoffMs: 1000,
  passBackoffMaxMs: 8000,
  settleMs: 2000,
  burstCount: 3,
  burstWindowMs: 10_000,
  pollSilentMin: 3,
  reconnectFreshMs: 60_000,
  immediateParallel: 4,
  immediateCooldownMs: 3000,
};

/** One rejoining node. */
export interface RejoinEntry {
  addr: Addr;
  trigger: RecoveryTrigger;
  /** Clock ms when it became rejoining, and when the host gives up on it. */
  since: number;
  deadline: number;
  /** Passes that ended without an answer, tries in all, next pass not before. */
  passes: number;
  tries: number;
  nextAt: number;
  inFlight: boolean;
  lastError: string | null;
}
