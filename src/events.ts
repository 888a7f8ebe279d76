/**
 * The application's event bus: state-change scopes, task snapshots, master and
 * gateway snapshots and scene progress. The SSE hub subscribes to it; services and
 * the Store publish on it. One instance per app (handed in by main.ts).
 */
import { TypedEmitter } from './util/typed-emitter.ts';
import type { GatewaySnapshot, MasterSnapshot } from './gateway/types.ts';
import type { Scope } from './state/scopes.ts';
import type { TaskSnapshot } from './tasks/task-types.ts';

/** What started a field-recovery episode (services/devices/recovery/recovery.ts). */
export type RecoveryTrigger =
  'start' | 'gateway_reconnect' | 'status_poll' | 'boot_announcements' | 'announcement' | 'manual';

/** The recovery's progress: the status bar's "Restoring 212/300". */
export interface RecoveryProgress {
  active: boolean;
  /** What started the current (or last) episode. */
  trigger: RecoveryTrigger | null;
  /** Nodes that became rejoining during the episode. */
  total: number;
  restored: number;
  /** Given up: offline with a reason. */
  failed: number;
  /** Still rejoining. */
  rejoining: number;
  /** Unix seconds. */
  started_ts: number | null;
  ended_ts: number | null;
  budget_s: number;
}

export interface SceneProgress {
  key: string;
  index: number;
  total: number;
  phase: 'start' | 'end';
  ok?: boolean;
  error?: string;
  action_kind: string;
  /** `started`, then the outcome: ok, error, degraded, skipped, cancelled. */
  state?: 'started' | 'ok' | 'error' | 'degraded' | 'skipped' | 'cancelled';
  /** Time spent in the action (end events). */
  duration_ms?: number;
}

/** The networks' bind and readiness state (the `networks` SSE event, web UI streams only). */
export interface NetworksEvent {
  networks: readonly object[];
  unassigned: readonly object[];
  alerts: readonly object[];
}

/**
 * Something the Race lights page shows changed (the `race_lights` SSE event, web UI streams
 * only): a source's state, the lights (a flash, a phase look, the pass counters), the settings.
 */
export interface RaceLightsChange {
  what: 'rotorhazard' | 'fpvtrackside' | 'lights' | 'settings';
}

export interface AppEvents extends Record<string, unknown> {
  /** A persisted change with its scope tokens. */
  scopes: readonly Scope[];
  task: TaskSnapshot;
  master: MasterSnapshot;
  gateway: GatewaySnapshot;
  scene_progress: SceneProgress;
  /** Field recovery progress (rejoining nodes being put back into their groups). */
  recovery: RecoveryProgress;
  /** A gateway was bound, released, went missing, came back (at most 4 a second). */
  networks: NetworksEvent;
  race_lights: RaceLightsChange;
  /** The race flag changed (raised, cleared): the web UI's streams and OSC feedback. */
  flag: FlagEvent;
  /**
   * Blackout was pressed (any path), before its frames go out: adapters drop the commands
   * they still hold back (a set waiting behind another must not light the field after it).
   */
  blackout: { at_epoch_ms: number };
}

/** The race flag that is up (null: none), since when and who raised it. */
export interface FlagEvent {
  flag: 'green' | 'yellow' | 'red' | null;
  since_epoch_ms: number | null;
  source: string | null;
}

export class EventBus extends TypedEmitter<AppEvents> {}
