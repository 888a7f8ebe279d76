/**
 * The application's event bus: state-change scopes, task snapshots, master and
 * gateway snapshots and scene progress. The SSE hub subscribes to it; services and
 * the Store publish on it. One instance per app (handed in by main.ts).
 */
import { TypedEmitter } from './util/typed-emitter.ts';
import type { GatewaySnapshot, MasterSnapshot } from './gateway/types.ts';
import type { Scope } from './state/scopes.ts';
import type { TaskSnapshot } from './tasks/task-types.ts';

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

export interface AppEvents extends Record<string, unknown> {
  /** A persisted change with its scope tokens. */
  scopes: readonly Scope[];
  task: TaskSnapshot;
  master: MasterSnapshot;
  gateway: GatewaySnapshot;
  scene_progress: SceneProgress;
}

export class EventBus extends TypedEmitter<AppEvents> {}
