/**
 * The one SSE stream per tab, opened with `?console=1` so that it also carries the
 * refresh token `console` (the shared console settings; not a contract token, so the host
 * sends it only to streams that ask). Refresh tokens reload the matching parts of the model,
 * task/master/gateway snapshots replace theirs. EventSource retries on its own after
 * a dropped connection, but gives up for good when the host answers with an error
 * (e.g. 503 while it boots after a restart), so a closed stream is reopened here with
 * back-off. The stream has no replay: every (re)open re-fetches the whole model.
 */
import { apiUrl } from './api.ts';
import {
  gateway,
  link,
  loadAll,
  loadDevices,
  loadGroups,
  loadHealth,
  loadMaster,
  loadNative,
  loadScenes,
  master,
  recovery,
  scheduleDevices,
  setTask,
  shaped,
  task,
} from './store.ts';
import { toast, toastReloadError } from './toasts.ts';
import { loadConsole } from './console.ts';
import type { Gateway, Master, RecoveryProgress, SceneProgress, Task } from './types.ts';
import { get } from './api.ts';
import { describeTaskEnd } from './task-text.ts';
import {
  applyNetworksEvent,
  loadNetworks,
  noteGateway,
  noteMaster,
  scheduleNetworks,
} from './networks/networks-store.ts';
import type { NetworksAnswer } from './networks/network-types.ts';
import { applyOwnersEvent, loadOwners, type OwnersView } from './owners/owners-store.ts';
import { applyFlagEvent, loadFlag, type FlagState } from './race/flags-store.ts';
import { applyMqtt, type MqttState } from './integrations/integrations-data.ts';

type Listener<T> = (data: T) => void;
const refreshListeners = new Map<string, Set<() => void>>();
const progressListeners = new Set<Listener<SceneProgress>>();
const taskListeners = new Set<Listener<Task>>();
const reconnectListeners = new Set<() => void>();
const raceLightsListeners = new Set<Listener<{ what: string[] }>>();

/** Pages register for their refresh tokens (scenes, native_presets, led_presets …). */
export function onRefresh(token: string, fn: () => void): () => void {
  const set = refreshListeners.get(token) ?? new Set();
  set.add(fn);
  refreshListeners.set(token, set);
  return () => set.delete(fn);
}
export function onSceneProgress(fn: Listener<SceneProgress>): () => void {
  progressListeners.add(fn);
  return () => progressListeners.delete(fn);
}
export function onTask(fn: Listener<Task>): () => void {
  taskListeners.add(fn);
  return () => taskListeners.delete(fn);
}
/** The host's cue that race-light state changed (which: `what`); the Race lights page re-reads. */
export function onRaceLights(fn: Listener<{ what: string[] }>): () => void {
  raceLightsListeners.add(fn);
  return () => raceLightsListeners.delete(fn);
}
/** Called after every reconnect, for pages that hold their own data. */
export function onReconnect(fn: () => void): () => void {
  reconnectListeners.add(fn);
  return () => reconnectListeners.delete(fn);
}

/** The longest the first screen waits for its shaping lists (store.ts shaped). */
const SHAPE_WAIT_MS = 3000;

let es: EventSource | null = null;
let retryMs = 1000;
let retryTimer: ReturnType<typeof setTimeout> | null = null;
let everOpened = false;
/** The lists' load at page start, until the stream's first open has waited for it. */
let firstLoad: Promise<void> | null = null;
/** Task ids whose end was already announced (the stream re-sends the last task on connect). */
const announced = new Set<number>();

function parse<T>(e: MessageEvent): T | null {
  try {
    return JSON.parse(e.data as string) as T;
  } catch {
    return null;
  }
}

function handleTask(t: Task): void {
  const prev = task.value;
  setTask(t);
  for (const fn of taskListeners) fn(t);
  if (t.state === 'running') return;
  // Announce only ends we saw happen (not the stale snapshot sent on connect).
  if (prev && prev.id === t.id && prev.state === 'running' && !announced.has(t.id)) {
    announced.add(t.id);
    const { text, ok } = describeTaskEnd(t);
    toast(text, ok ? 'ok' : 'error');
  }
}

function open(): void {
  if (retryTimer) clearTimeout(retryTimer);
  retryTimer = null;
  es?.close();
  const src = new EventSource(apiUrl('sse?console=1'));
  es = src;
  src.onopen = () => {
    retryMs = 1000;
    // Counted from the stream's first open, not from its first full load: a host that went
    // away while that load was still running is still announced when it is back.
    const reopened = link.value === 'lost' && everOpened;
    everOpened = true;
    link.value = 'open';
    // The stream seeds an active recovery; a finished one is fetched so the bar clears.
    void get<{ recovery: RecoveryProgress }>('recovery')
      .then((r) => (recovery.value = r.recovery))
      .catch(() => undefined);
    // Who holds what: the stream tells each change from now on, this is the state until then.
    void loadOwners().catch(() => undefined);
    // The race flag: the stream seeds only a raised one, so a flag cleared while this tab
    // was away must be read, not kept.
    void loadFlag().catch(() => undefined);
    // After the page's first load has finished, not beside it: the lists then go out as
    // conditional requests (they carry ETags and no-cache) and come back as 304s, instead of
    // every list travelling twice at once on a cold open.
    const pending = firstLoad ?? Promise.resolve();
    firstLoad = null;
    void pending
      .then(() => Promise.all([loadAll(), loadNetworks()]))
      .then(() => {
        for (const fn of reconnectListeners) fn();
        if (reopened) toast('Connection to host re-established');
      })
      .catch((err) => toastReloadError('Loading state failed', err));
  };
  src.onerror = () => {
    if (es !== src) return;
    link.value = 'lost';
    if (src.readyState === EventSource.CLOSED) scheduleReopen();
  };
  src.addEventListener('refresh', (e) => {
    const data = parse<{ what: string[] }>(e as MessageEvent);
    for (const what of data?.what ?? []) {
      // The host's own token (the networks' device counts follow the device list itself).
      if (what === 'networks') scheduleNetworks();
      if (what === 'devices') scheduleDevices();
      else if (what === 'groups')
        void loadGroups().catch((err) => toastReloadError('Loading groups failed', err));
      else if (what === 'native_presets')
        void loadNative().catch((err) => toastReloadError('Loading presets failed', err));
      else if (what === 'scenes')
        void loadScenes().catch((err) => toastReloadError('Loading scenes failed', err));
      else if (what === 'console')
        void loadConsole().catch((err) => toastReloadError('Loading console settings failed', err));
      for (const fn of refreshListeners.get(what) ?? []) fn();
    }
  });
  src.addEventListener('task', (e) => {
    const t = parse<Task>(e as MessageEvent);
    if (t) handleTask(t);
  });
  src.addEventListener('master', (e) => {
    const m = parse<Master>(e as MessageEvent);
    if (!m) return;
    master.value = m;
    noteMaster(m);
  });
  // Sent by hosts that announce networks changes themselves (bind, readiness, rename).
  src.addEventListener('networks', (e) => {
    const n = parse<Partial<NetworksAnswer>>(e as MessageEvent);
    if (n) applyNetworksEvent(n);
  });
  // Who holds which target (command path): sent on every change, live lapses included.
  src.addEventListener('owners', (e) => {
    const v = parse<OwnersView>(e as MessageEvent);
    if (v) applyOwnersEvent(v);
  });
  // The MQTT bridge's connection and counters (the Integrations page's card).
  src.addEventListener('mqtt', (e) => {
    const m = parse<Omit<MqttState, 'enabled'>>(e as MessageEvent);
    if (m) applyMqtt(m);
  });
  src.addEventListener('flag', (e) => {
    const f = parse<FlagState>(e as MessageEvent);
    if (f) applyFlagEvent(f);
  });
  src.addEventListener('gateway', (e) => {
    const g = parse<Gateway>(e as MessageEvent);
    if (!g) return;
    const prev = gateway.value;
    const was = prev?.ready;
    gateway.value = g;
    noteGateway(prev, g);
    if (was === false && g.ready) toast('Gateway connection re-established');
  });
  src.addEventListener('recovery', (e) => {
    const p = parse<RecoveryProgress>(e as MessageEvent);
    if (!p) return;
    const was = recovery.value?.active;
    recovery.value = p;
    if (was && !p.active && p.total > 0)
      toast(
        `Field restored: ${p.restored} of ${p.total} back in their groups${p.failed ? `, ${p.failed} offline` : ''}`,
      );
  });
  src.addEventListener('race_lights', (e) => {
    const c = parse<{ what: string[] }>(e as MessageEvent);
    if (c) for (const fn of raceLightsListeners) fn(c);
  });
  src.addEventListener('scene_progress', (e) => {
    const p = parse<SceneProgress>(e as MessageEvent);
    if (p) for (const fn of progressListeners) fn(p);
  });
}

function scheduleReopen(): void {
  if (retryTimer) return;
  retryTimer = setTimeout(async () => {
    retryTimer = null;
    try {
      const h = await loadHealth();
      if (h.phase !== 'ready') throw new Error('booting');
      open();
    } catch {
      retryMs = Math.min(retryMs * 2, 10_000);
      scheduleReopen();
    }
  }, retryMs);
}

/** Opens the stream and loads the lists; resolves once the first load is in (or failed). */
export function startLive(): Promise<void> {
  // The lists load at once, not after the stream connects (that costs a round trip and
  // more before the first row shows); the load on connect below still runs after it (as
  // revalidations), so nothing changed between the two is missed, and unchanged rows keep
  // their objects (no redraw).
  const shape = [loadMaster(), loadGroups(), loadDevices(), loadNetworks(), loadHealth()];
  const first = Promise.all([...shape, loadNative(), loadScenes(), loadConsole()])
    .then(() => undefined)
    .catch(() => undefined);
  // A list that fails or hangs must not keep the page blank: it shows what it has then.
  void Promise.allSettled(shape).then(() => (shaped.value = true));
  setTimeout(() => (shaped.value = true), SHAPE_WAIT_MS);
  firstLoad = first;
  open();
  // Release the connection at once when the tab goes away (browsers cap them per host).
  addEventListener('pagehide', () => es?.close());
  addEventListener('pageshow', (e) => {
    if ((e as PageTransitionEvent).persisted) open();
  });
  return first;
}
