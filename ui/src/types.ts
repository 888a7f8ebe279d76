/** Shapes of the host's public API (spec/host-api.md plus README decisions). */

export interface Device {
  addr: string;
  full_mac: string | null;
  name: string;
  dev_type: number;
  dev_type_name: string;
  dev_type_caps: string[];
  caps: number;
  groupId: number;
  group_pending?: boolean;
  flags: number;
  configByte: number;
  presetId: number;
  effectId: number;
  brightness: number;
  specials: Record<string, unknown>;
  voltage_mV: number;
  node_rssi: number;
  node_snr: number;
  host_rssi: number;
  host_snr: number;
  version: number;
  last_seen_ts: number | null;
  online: boolean;
  /** online, rejoining (rebooted, being put back into its group) or offline. */
  state?: 'online' | 'rejoining' | 'offline';
  /** Why the device is offline (state offline), else null. */
  offline_reason?: string | null;
  /** The network (gateway) the device belongs to; hosts before networks leave it out. */
  network_id?: number;
}

/** Field recovery progress (SSE `recovery`, GET /api/recovery): the host's own type. */
export type { RecoveryProgress } from '../../src/events.ts';

export interface Group {
  id: number;
  name: string;
  static: boolean;
  dev_type: number;
  device_count: number;
  caps_in_group: Record<string, number>;
}

export type TaskState = 'running' | 'done' | 'error';

export interface Task {
  id: number;
  name: string;
  state: TaskState;
  started_ts: number;
  ended_ts: number | null;
  meta: Record<string, unknown>;
  last_error: string | null;
  result: unknown;
  elapsed_s?: number;
  rx_replies?: number;
  cancel_requested?: boolean;
}

export interface Master {
  state: string;
  state_byte: number;
  state_metadata_ms: number;
  last_event: string;
  last_event_ts: number;
  last_error: string | null;
  /** With several gateways: each network's own snapshot (the top level is the worst). */
  networks?: (Omit<Master, 'networks'> & { network_id: number | null; network: string })[];
}

export interface Gateway {
  ready: boolean;
  last_error: string | null;
  failure_count: number;
  transport?: string;
  port?: string | null;
  gateway_mac?: string | null;
  next_retry_in_s?: number | null;
  stats?: Record<string, number>;
  /**
   * With several gateways: each one's readiness and its network (the top level aggregates
   * the networks); a gateway in no network has `network_id: null` and does not count.
   */
  gateways?: (Omit<Gateway, 'gateways'> & { network_id: number | null; network: string })[];
  networks_ready?: number;
  networks_total?: number;
}

export interface Health {
  ok: boolean;
  ts: number;
  phase: 'booting' | 'ready';
  warnings?: string[];
  /** The current write failure (null when writes work) and the "started empty" alarm. */
  persistence?: { error: string | null; alarm: string | null };
  /** A password protects this host (sessions exist, so logging out means something). */
  auth?: boolean;
  /** The folder the host keeps its state in; `simulated`: the simulator's own one. */
  data?: {
    dir: string;
    simulated: boolean;
    /** The real data folder (`dir` on a real gateway; on the simulator another one, unless --sim-data-dir names it). */
    real_dir?: string;
    simulated_leftovers?: string[];
    /** On the simulator: what the real data folder holds (not shown here), or null. */
    real?: { dir: string; devices: number; groups: number; scenes: number } | null;
  };
}

/** SSE `scene_progress`: the host's own type. */
export type { SceneProgress } from '../../src/events.ts';

export interface NativePreset {
  id: number;
  key: string;
  label: string;
  params: Record<string, number | boolean | [number, number, number] | string | null>;
  flags: number;
  created?: string;
  updated?: string;
}

export type Target =
  { kind: 'broadcast' } | { kind: 'groups'; value: number[] } | { kind: 'device'; value: string };

export interface SceneAction {
  kind: string;
  target?: Target;
  params?: Record<string, unknown>;
  flags_override?: Record<string, boolean>;
  duration_ms?: number;
  offset?: Record<string, unknown>;
  actions?: SceneAction[];
  [k: string]: unknown;
}

export interface Scene {
  id?: number;
  key: string;
  label: string;
  actions: SceneAction[];
  stop_on_error: boolean;
  /** Several gateways: the explicit network scope (absent: automatic). */
  networks?: number[];
  created?: string;
  updated?: string;
}
