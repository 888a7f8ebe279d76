/**
 * The UI's model: signals filled from the API and kept current by the SSE stream.
 * Device reloads are coalesced and patched in place (unchanged rows keep their
 * object identity, so only changed rows re-render and flash).
 */
import { computed, signal } from '@preact/signals';
import { get } from './api.ts';
import { sameRecord } from './format.ts';
import { EMPTY_STATS, groupStatsOf, type GroupStats } from './common/group-stats.ts';
export type { GroupStats } from './common/group-stats.ts';
import type { NativeSchema } from './effect-fields.ts';
import type {
  Device,
  Gateway,
  Group,
  Health,
  Master,
  NativePreset,
  RecoveryProgress,
  Scene,
  Task,
} from './types.ts';
import { toastReloadError } from './toasts.ts';
import { loadConsole } from './console.ts';

export const devices = signal<Device[]>([]);
export const groups = signal<Group[]>([]);
export const master = signal<Master | null>(null);
export const gateway = signal<Gateway | null>(null);
export const task = signal<Task | null>(null);
export const recovery = signal<RecoveryProgress | null>(null);
/** Wall time (ms) at which the current task snapshot arrived, to tick its elapsed time. */
export const taskReceivedAt = signal(0);
export const health = signal<Health | null>(null);
/**
 * The lists that decide the first screen's layout (status, banners, sidebar, rows) are in:
 * until then the banners and the page are not drawn, so nothing a finger is about to tap
 * moves when a later list lands (the status bar, with Blackout, is drawn from the start).
 */
export const shaped = signal(false);
/** SSE link: 'connecting' before the first open, 'open', 'lost' while reconnecting. */
export const link = signal<'connecting' | 'open' | 'lost'>('connecting');
/** Devices whose row changed in the last reload (for the flash), by addr → change time. */
export const changedAt = signal<Map<string, number>>(new Map());
/** Effect names by id (from the native-preset schema, when the host offers it). */
export const effectNames = signal<Map<number, string>>(new Map());
export const nativeSchema = signal<NativeSchema | null>(null);
export const nativePresets = signal<NativePreset[]>([]);
export const scenes = signal<Scene[]>([]);
/** Ticks every 5 s so relative times stay fresh. */
export const nowS = signal(Date.now() / 1000);
setInterval(() => (nowS.value = Date.now() / 1000), 5000);

export const groupsById = computed(() => new Map(groups.value.map((g) => [g.id, g])));
/**
 * Per-group device counts and capabilities, derived from the live device list: a node
 * announcing itself refreshes `devices` only, so the group rows' own counts can lag.
 */
export const groupStats = computed(() => groupStatsOf(devices.value));
export const statsOf = (gid: number): GroupStats => groupStats.value.get(gid) ?? EMPTY_STATS;
export const taskRunning = computed(() => task.value?.state === 'running');

function patchDevices(next: Device[]): void {
  const old = new Map(devices.value.map((d) => [d.addr, d]));
  const changed = new Map(changedAt.value);
  const now = Date.now();
  let anyChange = next.length !== devices.value.length;
  const merged = next.map((d) => {
    const prev = old.get(d.addr);
    if (prev && sameRecord(prev, d)) return prev;
    anyChange = true;
    if (prev) changed.set(d.addr, now);
    return d;
  });
  if (!anyChange) return;
  for (const [k, t] of changed) if (now - t > 2000) changed.delete(k);
  changedAt.value = changed;
  devices.value = merged;
}

/**
 * A loader whose answers are applied in the order they were asked for: the page loads
 * everything at once on opening and again when the live stream connects, and an older
 * answer that arrives late must not overwrite a newer one.
 */
function newestWins<T>(fetch: () => Promise<T>, apply: (v: T) => void): () => Promise<void> {
  let asked = 0;
  let applied = 0;
  return async () => {
    const n = ++asked;
    const v = await fetch();
    if (n < applied) return;
    applied = n;
    apply(v);
  };
}

export const loadDevices = newestWins(
  () => get<{ devices: Device[] }>('devices'),
  (r) => patchDevices(r.devices),
);

export const loadGroups = newestWins(
  () => get<{ groups: Group[] }>('groups'),
  (r) => (groups.value = r.groups),
);

export const loadMaster = newestWins(
  () => get<{ master: Master; task: Task | null; gateway: Gateway }>('master'),
  (r) => {
    master.value = r.master;
    gateway.value = r.gateway;
    setTask(r.task);
  },
);

export async function loadHealth(): Promise<Health> {
  const r = await get<Health>('health');
  health.value = r;
  return r;
}

// A write failure (full or read-only disk) shows as a banner and clears once writes work:
// health is re-read every 10 s (one small GET) so both show without a reload.
setInterval(() => void loadHealth().catch(() => {}), 10_000);

/** The native-preset schema (effect names for the table, the 14-field editor) and the library. */
export const loadNative = newestWins(
  () =>
    Promise.all([
      get<{ schema: NativeSchema }>('native-presets/schema'),
      get<{ presets: NativePreset[] }>('native-presets'),
    ]),
  ([schema, list]) => {
    nativeSchema.value = schema.schema;
    effectNames.value = extractEffectNames(schema.schema);
    nativePresets.value = list.presets;
  },
);

export const loadScenes = newestWins(
  () => get<{ scenes: Scene[] }>('scenes'),
  (r) => (scenes.value = r.scenes),
);

function extractEffectNames(schema: unknown): Map<number, string> {
  const out = new Map<number, string>();
  const visit = (node: unknown, depth: number): void => {
    if (!node || typeof node !== 'object' || depth > 4) return;
    const o = node as Record<string, unknown>;
    const mode = (o.mode ?? (o.fields as Record<string, unknown> | undefined)?.mode) as
      Record<string, unknown> | undefined;
    const opts = mode?.options;
    if (Array.isArray(opts)) {
      for (const op of opts as Record<string, unknown>[]) {
        const v = Number(op.value ?? op.id);
        const l = op.label ?? op.name;
        if (Number.isFinite(v) && typeof l === 'string') out.set(v, l);
      }
      return;
    }
    for (const v of Object.values(o)) visit(v, depth + 1);
  };
  visit(schema, 0);
  return out;
}

export function setTask(t: Task | null): void {
  task.value = t;
  taskReceivedAt.value = Date.now();
}

let devTimer: ReturnType<typeof setTimeout> | null = null;
let devInFlight = false;
let devAgain = false;

/** A reload at most every 250 ms however many refresh tokens arrive. */
export function scheduleDevices(): void {
  if (devTimer) return;
  devTimer = setTimeout(async () => {
    devTimer = null;
    if (devInFlight) {
      devAgain = true;
      return;
    }
    devInFlight = true;
    try {
      await loadDevices();
    } catch (err) {
      toastReloadError('Loading devices failed', err);
    } finally {
      devInFlight = false;
      if (devAgain) {
        devAgain = false;
        scheduleDevices();
      }
    }
  }, 250);
}

/**
 * The rows a request of this tab just changed (a flag, Blackout): their answer means the host
 * has written them, so they are read now rather than at the stream's coalesced refresh (100 ms
 * on the host, 250 ms here, then the read), which left the rows a moment behind the toast
 * that said the field was red or dark. Other tabs still follow through the stream.
 */
export async function reloadDevicesNow(): Promise<void> {
  try {
    await loadDevices();
  } catch (err) {
    toastReloadError('Loading devices failed', err);
  }
}

/** Everything the pages need (after opening and after every reconnect), the shared console settings too. */
export async function loadAll(): Promise<void> {
  await Promise.all([
    loadMaster(),
    loadGroups(),
    loadDevices(),
    loadHealth(),
    loadNative(),
    loadScenes(),
    loadConsole(),
  ]);
}
