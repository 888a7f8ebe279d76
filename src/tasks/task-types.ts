/**
 * What a task looks like from outside: its names and the snapshot published on the bus
 * and served by the API. Kept apart from the manager so the event bus can own these
 * shapes without importing the manager (which imports the bus).
 */
export const TASK_NAMES = [
  'discover',
  'status',
  'bulk_set_group',
  'force_groups',
  'special_config',
  'presets_download',
  'fwupdate',
  'link_test',
  'restore_groups',
  'channel_scan',
  'rf_rescue',
  'rf_migration',
] as const;
export type TaskName = (typeof TASK_NAMES)[number];

export interface TaskSnapshot {
  id: number;
  name: TaskName;
  state: 'running' | 'done' | 'error';
  started_ts: number;
  ended_ts: number | null;
  elapsed_s: number;
  meta: Record<string, unknown>;
  rx_replies: number;
  rx_window_events: number;
  rx_count_delta_total: number;
  last_error: string | null;
  result: unknown;
  cancel_requested: boolean;
}
