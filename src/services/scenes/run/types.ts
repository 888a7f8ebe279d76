/**
 * What a scene run answers: per action, per network share, and the whole run. A leaf:
 * the runner builds these and parts.ts (one action across networks) fills its share, so
 * neither needs the other's file for a shape.
 */

export type ActionState = 'ok' | 'error' | 'degraded' | 'skipped' | 'cancelled';

export interface ActionResult {
  index: number;
  kind: string;
  ok: boolean;
  state: ActionState;
  /** Why the action failed; null when it succeeded (the contract's `{ok, error, …}`). */
  error: string | null;
  degraded?: true;
  duration_ms: number;
  /** Frames planned / confirmed sent (TX done; a STREAM: acknowledged). */
  frames_planned: number;
  frames_sent: number;
  detail?: Record<string, unknown>;
  /** Several gateways: each network's share of the action. */
  networks?: NetworkPartResult[];
}

export interface NetworkPartResult {
  network_id: number;
  ok: boolean;
  /** `degraded`: this network sent nothing (its gateway is missing, or the plan had nothing). */
  state: 'ok' | 'error' | 'degraded' | 'cancelled';
  error: string | null;
  frames_planned: number;
  frames_sent: number;
}

/** A failed network share, listed once per action in the run result. */
export interface NetworkFailure {
  network_id: number;
  index: number;
  state: NetworkPartResult['state'];
  error: string;
}

export interface RunResult {
  scene_key: string;
  label: string;
  draft: boolean;
  ok: boolean;
  error: string | null;
  cancelled: boolean;
  aborted_at_index?: number;
  actions: ActionResult[];
  /** Unix seconds. */
  started_ts: number;
  ended_ts: number;
  total_duration_ms: number;
  /** Several gateways: every network share that failed (empty when all went out). */
  network_failures?: NetworkFailure[];
}

/** A frame that did not go out; `offchannel`: its gateway is leased by an RF task. */
export interface FrameError {
  text: string;
  offchannel: boolean;
}
