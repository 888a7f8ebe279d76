/**
 * The command path's vocabulary: who sends (a source of a class, with a priority), what a
 * command aims at (targets that overlap: all ⊃ group ⊃ device), and the holds a source
 * keeps on targets. Plain data, no behaviour: the decision (decide.ts) is a function of it.
 */

/** The ranks of the sources, highest first. Each class has a default priority (configurable). */
export const SOURCE_CLASSES = [
  'blackout',
  'safety',
  'race',
  'live',
  'operator',
  'automation',
  'passive',
] as const;
export type SourceClass = (typeof SOURCE_CLASSES)[number];

/** Issue 37's defaults. Blackout is fixed at the top: nothing may outrank it. */
export const DEFAULT_CLASS_PRIORITY: Readonly<Record<SourceClass, number>> = {
  blackout: 100,
  safety: 90,
  race: 80,
  live: 70,
  operator: 60,
  automation: 40,
  passive: 20,
};

/**
 * The operator's take-over: above the race (80) and live control (70) it takes a target from,
 * below a safety flag (90) and Blackout (100), so a red flag still shows on a taken gate.
 */
export const DEFAULT_TAKE_OVER_PRIORITY = 85;

/** A live source's hold lapses after this much silence (sACN receivers use 2.5–3 s). */
export const DEFAULT_LIVE_TIMEOUT_MS = 3000;

/** What a command aims at. A device carries its group (null: none known), so overlap is pure. */
export type Target =
  { kind: 'all' } | { kind: 'group'; id: number } | { kind: 'device'; addr: string; group: number | null };

/**
 * How an accepted command holds its targets:
 * - `none`: it holds nothing (a plain control, a lap flash);
 * - `live`: held until the source has been silent for the live timeout (refreshed by each command);
 * - `run`: held while the command runs (a race look's scene), released by the path when it ends;
 * - `until-release`: held until the source releases it (a red flag, the operator's take-over).
 */
export type HoldMode = 'none' | 'live' | 'run' | 'until-release';

export interface Hold {
  target: Target;
  /** The source's id (`ui`, `rotorhazard`, `osc`, …). */
  source: string;
  sourceClass: SourceClass;
  priority: number;
  mode: Exclude<HoldMode, 'none'>;
  /** Epoch ms the hold was taken. */
  since: number;
  /** Epoch ms a live hold lapses (refreshed by each command); null otherwise. */
  expiresAt: number | null;
  /** What the holder is doing, for the owners view (`control`, `look race_start`, `take over`). */
  action: string;
  /** The command that last set this hold (a run's end releases only its own holds). */
  ticket: number;
}

/** One command as the decision sees it. */
export interface Intent {
  source: string;
  sourceClass: SourceClass;
  priority: number;
  targets: readonly Target[];
  hold: HoldMode;
  /** For live holds: how long silence keeps the hold. */
  liveTimeoutMs: number;
  action: string;
  now: number;
  /** Unique per command (the path counts them). */
  ticket: number;
}

export type Decision =
  | {
      ok: true;
      /** The table after the command: lapsed holds gone, lower overlapping holds dropped, its own added. */
      holds: Hold[];
      /** Other sources' holds this command took away (lower priority, overlapping). */
      dropped: Hold[];
      /** Live holds that had lapsed (removed as a side effect of deciding). */
      lapsed: Hold[];
    }
  | {
      ok: false;
      /** The hold that refuses it (the highest-priority one overlapping the first refused target). */
      holder: Hold;
      /** The command's target that was refused. */
      target: Target;
    };
