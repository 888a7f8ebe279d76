/** The race lights' shapes: what the host wires in and what the timers' events carry. */
import type { Logger } from '../../../logger.ts';
import type { M2NRequest } from '../../../protocol/types.ts';
import type { TxOutcome } from '../../../gateway/types.ts';
import type { WallTimer } from '../at-time.ts';
import type { Heat } from '../heat.ts';
import type { LookMemory } from './looks.ts';
import type { StageTimes } from './merge.ts';
import type { LookRunner } from './phase-player.ts';
import type { SceneTarget } from './phases.ts';
import type { Phase, RaceLightsSettings } from './settings.ts';

export interface Frame {
  receiver: string;
  request: M2NRequest;
  /** The network whose gateway sends it (several gateways). */
  network?: number;
}

export interface RaceLightsDeps {
  log: Logger;
  wall: WallTimer;
  heat(): Heat | null;
  /** Frames of a native effect to a target, planned as a scene action would be. */
  planEffect(target: SceneTarget, params: { mode: number; brightness: number }): Frame[];
  /**
   * Asks the command path whether `source` may flash `target` now: null when it may, else
   * why not (a higher source holds the gate). Absent: every flash may.
   */
  admit?(target: SceneTarget, source: string): string | null;
  /** Hands one lap frame to the driver (interactive, dropped after `deadlineMs` unsent). */
  send(frame: Frame, deadlineMs: number): Promise<TxOutcome>;
  /** Frames waiting in the driver's queue (other traffic): a pass meeting any is dropped. */
  radioBacklog(): number;
  /** Airtime of one flash frame at the current RF settings (ms). */
  flashAirtimeMs(): number;
  /** The scene runner, for the phase looks (phase-player.ts). */
  runner: LookRunner;
  looks: LookMemory;
  settings(): RaceLightsSettings;
  /** Why race looks may not show now (a red flag is up), or null. */
  suppressed?(): string | null;
  /** The radio side of the countdown (absent: no countdown; staging and start looks as before). */
  countdown?: CountdownRadio;
}

/** What the countdown needs of the scenes and the radio (host wiring in index.ts). */
export interface CountdownRadio {
  /** A look (a stored scene's key, or a draft's actions) as armed frames. */
  planArmed(look: string | readonly unknown[]): Frame[];
  /** One trigger SYNC per network. */
  syncFrames(): Frame[];
  /** Hands frames to their gateways in the same turn; the first failure, else ok. */
  send(frames: readonly Frame[], priority: 'urgent' | 'interactive'): Promise<TxOutcome>;
  holdBulk(frames: readonly Frame[]): () => void;
  /** Time on air of the SYNC (the longest of the networks') plus the link to the radio, ms. */
  leadMs(): number;
  /** This machine's monotonic clock in ms (the clock RotorHazard's `*_at_s` moments are in). */
  monotonicMs(): number;
}

/** A staging tone the timer announced (RotorHazard 4.4.1-dev RACE_STAGE_TONE). */
export interface ToneEvent {
  tone_index: number;
  tones_remaining: number;
  /** When the tone is due: the timer's monotonic seconds (same machine), else epoch ms. */
  at_monotonic_s: number | null;
  at_epoch_ms: number | null;
}

export interface LapEvent {
  seat: number;
  lap_number: number;
  color: string | null;
  late: boolean;
  event_epoch_ms: number | null;
  /** From an Event Action: runs even when the automatic reactions are off. */
  force: boolean;
}

export interface PhaseEvent extends StageTimes {
  phase: Phase | 'stage';
  seat: number | null;
  color: string | null;
  force: boolean;
  /** RotorHazard's own clock for the stage moments (preferred over the epoch fields). */
  staging_monotonic_s?: number | null;
  start_monotonic_s?: number | null;
  /** How many staging tones RotorHazard will sound (RACE_STAGE `staging_tones`). */
  staging_tones?: number | null;
}
