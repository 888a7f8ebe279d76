/**
 * The live event stream. One channel; every client gets the current `master` (and
 * the latest `task` snapshot, once a task has run) on connect, then `refresh`, `task`, `master`, `gateway` and
 * `scene_progress` as they happen, and a keep-alive comment about every 2 s.
 * Refresh and master bursts are coalesced (at most 10 per second), and a
 * client whose socket buffer keeps growing is dropped instead of buffered forever.
 * Opt-in extras: a client that connects with `?log=1` also gets `log` events (batches
 * of activity-log entries, at most 4 a second); one that connects with `?console=1`
 * (the web UI) also gets the refresh token `console` when the shared console settings
 * change, the refresh token `networks` when network records change, and the `networks`
 * event (bind state and readiness of every gateway; the host sends at most 4 a second) and the
 * `race_lights` cue (what of the race lights changed; at most 4 a second). Every other client
 * gets exactly the contract's events and tokens.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse, IncomingMessage } from 'node:http';
import { createChannel, createSession, type Session } from 'better-sse';
import type { EventBus, FlagEvent, RaceLightsChange } from '../events.ts';
import type { Logger } from '../logger.ts';
import {
  optInRefreshTokens,
  refreshTokens,
  type OptInRefreshToken,
  type RefreshToken,
} from '../state/scopes.ts';
import type { TaskSnapshot } from '../tasks/task-manager.ts';
import type { MasterSnapshot } from '../gateway/types.ts';
import type { LogBuffer, LogEntry } from '../services/logs/index.ts';
import type { RecoveryProgress } from '../services/devices/index.ts';

export const SSE_KEEPALIVE_MS = 2000;
const REFRESH_COALESCE_MS = 100;
/** A client with this much unsent data is considered stuck and dropped. */
const MAX_BUFFERED_BYTES = 1024 * 1024;

/** An event payload serialised once per broadcast and written to every client as it is. */
class Serialized {
  constructor(readonly json: string) {}
}
const serializer = (data: unknown): string => (data instanceof Serialized ? data.json : JSON.stringify(data));

interface SessionState {
  res: ServerResponse;
  /** Subscribed to the activity log's live feed. */
  log: boolean;
  /** Also gets the opt-in refresh tokens (`console`). */
  console: boolean;
}

const LOG_FLUSH_MS = 250;
const RACE_LIGHTS_FLUSH_MS = 250;
/** A burst beyond this between two flushes keeps only the newest entries (the route has them all). */
const LOG_BATCH_MAX = 500;

export class SseHub {
  private readonly channel = createChannel<Record<string, unknown>, SessionState>();
  private pending = new Set<RefreshToken>();
  private pendingOptIn = new Set<OptInRefreshToken>();
  private flushTimer: NodeJS.Timeout | null = null;
  private pendingMaster: MasterSnapshot | null = null;
  private masterTimer: NodeJS.Timeout | null = null;
  private readonly unsubscribe: (() => void)[] = [];
  private pendingLog: LogEntry[] = [];
  private logTimer: NodeJS.Timeout | null = null;
  private logClients = 0;
  private pendingRaceLights = new Set<RaceLightsChange['what']>();
  private raceLightsTimer: NodeJS.Timeout | null = null;

  constructor(
    bus: EventBus,
    private readonly seed: () => {
      master: MasterSnapshot;
      task: TaskSnapshot | null;
      recovery?: RecoveryProgress;
      flag?: FlagEvent;
    },
    private readonly log: Logger,
    logs?: LogBuffer,
  ) {
    if (logs) this.unsubscribe.push(logs.onEntry((e) => this.queueLog(e)));
    this.unsubscribe.push(
      bus.on('scopes', (scopes) => this.queueRefresh(refreshTokens(scopes), optInRefreshTokens(scopes))),
      bus.on('task', (t) => this.onTask(t)),
      bus.on('master', (m) => this.queueMaster(m)),
      bus.on('gateway', (g) => this.broadcast('gateway', g)),
      bus.on('scene_progress', (p) => this.broadcast('scene_progress', p)),
      bus.on('recovery', (p) => this.broadcast('recovery', p)),
      // Not in the contract: only the web UI's streams (`?console=1`) get it.
      bus.on('networks', (p) => this.broadcast('networks', p, (s) => s.console)),
      bus.on('race_lights', (c) => this.queueRaceLights(c.what)),
      bus.on('flag', (p) => this.broadcast('flag', p, (s) => s.console)),
      // Not in the contract either: the owners strip of the web UI.
      bus.on('owners', (p) => this.broadcast('owners', p, (s) => s.console)),
      // The Integrations page's MQTT card (throttled by the bridge: at most 4 a second).
      bus.on('mqtt', (p) => this.broadcast('mqtt', p, (s) => s.console)),
    );
  }

  get clientCount(): number {
    return this.channel.sessionCount;
  }

  async connect(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const session: Session<SessionState> = await createSession<SessionState>(req, res, {
      keepAlive: SSE_KEEPALIVE_MS,
      retry: 2000,
      headers: { Connection: 'close', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' },
      state: { res, log: optedIn(req.url, 'log'), console: optedIn(req.url, 'console') },
      serializer,
    });
    if (session.state.log) {
      this.logClients++;
      session.once('disconnected', () => this.logClients--);
    }
    const { master, task, recovery, flag } = this.seed();
    session.push(master, 'master');
    // The web UI sees a raised flag at once (a reconnect after a missed change included).
    if (session.state.console && flag) session.push(flag, 'flag');
    // A client that connects during a field recovery sees its progress at once.
    if (recovery?.active) session.push(recovery, 'recovery');
    // The `task` payload is always a snapshot: a client that connects before any task ran gets none.
    if (task) session.push(task, 'task');
    this.channel.register(session);
  }

  /** Ends every stream (shutdown). */
  close(): void {
    for (const u of this.unsubscribe) u();
    if (this.flushTimer) clearTimeout(this.flushTimer);
    if (this.masterTimer) clearTimeout(this.masterTimer);
    if (this.logTimer) clearTimeout(this.logTimer);
    if (this.raceLightsTimer) clearTimeout(this.raceLightsTimer);
    for (const s of this.channel.activeSessions) s.state.res.end();
  }

  /** The master snapshot changes with every reply: send the latest at most 10 times a second. */
  private queueMaster(m: MasterSnapshot): void {
    this.pendingMaster = m;
    if (this.masterTimer) return;
    this.masterTimer = setTimeout(() => {
      this.masterTimer = null;
      const latest = this.pendingMaster;
      this.pendingMaster = null;
      if (latest) this.broadcast('master', latest);
    }, REFRESH_COALESCE_MS);
  }

  /**
   * A task that ends flushes the coalesced refreshes first: a client that reacts to `done` by reading
   * what the task produced (a downloaded preset file, stored specials) has already been told to reload.
   */
  private onTask(t: TaskSnapshot): void {
    if (t.state !== 'running' && this.flushTimer) {
      clearTimeout(this.flushTimer);
      this.flushRefresh();
    }
    this.broadcast('task', t);
  }

  private flushRefresh(): void {
    this.flushTimer = null;
    const what = [...this.pending];
    const extra = [...this.pendingOptIn];
    this.pending = new Set();
    this.pendingOptIn = new Set();
    if (extra.length === 0) {
      if (what.length > 0) this.broadcast('refresh', { what });
      return;
    }
    // The opt-in token never reaches a contract client; a change of only the console
    // settings sends them nothing at all.
    if (what.length > 0) this.broadcast('refresh', { what }, (s) => !s.console);
    this.broadcast('refresh', { what: [...what, ...extra] }, (s) => s.console);
  }

  private queueRefresh(tokens: RefreshToken[], extra: OptInRefreshToken[]): void {
    if (tokens.length === 0 && extra.length === 0) return;
    for (const t of tokens) this.pending.add(t);
    for (const t of extra) this.pendingOptIn.add(t);
    if (this.flushTimer) return;
    this.flushTimer = setTimeout(() => this.flushRefresh(), REFRESH_COALESCE_MS);
  }

  /**
   * The Race lights page's cue to re-read (web UI streams only): what changed, at most 4 a
   * second however fast laps come. Nothing is queued while no web UI is connected.
   */
  private queueRaceLights(what: RaceLightsChange['what']): void {
    if (this.channel.sessionCount === 0) return;
    this.pendingRaceLights.add(what);
    if (this.raceLightsTimer) return;
    this.raceLightsTimer = setTimeout(() => {
      this.raceLightsTimer = null;
      const changed = [...this.pendingRaceLights];
      this.pendingRaceLights = new Set();
      this.broadcast('race_lights', { what: changed }, (s) => s.console);
    }, RACE_LIGHTS_FLUSH_MS);
  }

  private queueLog(e: LogEntry): void {
    if (this.logClients <= 0) return;
    this.pendingLog.push(e);
    if (this.pendingLog.length > LOG_BATCH_MAX)
      this.pendingLog.splice(0, this.pendingLog.length - LOG_BATCH_MAX);
    if (this.logTimer) return;
    this.logTimer = setTimeout(() => {
      this.logTimer = null;
      const entries = this.pendingLog;
      this.pendingLog = [];
      if (entries.length > 0) this.broadcast('log', { entries }, (s) => s.log);
    }, LOG_FLUSH_MS);
  }

  private broadcast(event: string, data: unknown, only?: (s: SessionState) => boolean): void {
    // One JSON.stringify and one id per event, not per client (100 tablets watching a poll).
    const payload = new Serialized(JSON.stringify(data));
    const id = randomUUID();
    for (const s of this.channel.activeSessions) {
      if (only && !only(s.state)) continue;
      const res = s.state.res;
      if (res.writableLength > MAX_BUFFERED_BYTES) {
        this.log.warn({ buffered: res.writableLength }, 'dropping slow SSE client');
        this.channel.deregister(s);
        res.destroy();
        continue;
      }
      s.push(payload, event, id);
    }
  }
}

/**
 * `?log=1` on the stream's URL subscribes to the activity log's live feed, `?console=1`
 * to the `console` refresh token (each also as true/yes; both may be given).
 */
function optedIn(url: string | undefined, flag: 'log' | 'console'): boolean {
  const q = url?.split('?')[1];
  if (!q) return false;
  const v = new URLSearchParams(q).get(flag);
  return v === '1' || v === 'true' || v === 'yes';
}
