/**
 * The MQTT bridge: keeps the broker's retained topics equal to the fleet (bridge state,
 * device and group state, availability, Home Assistant discovery), and turns `…/set` and
 * bridge requests into actions. It owns no radio and no command policy: the actions it is
 * handed go through the command path (host/mqtt.ts).
 *
 * Retained state: what the broker should hold is computed from the fleet (a map topic →
 * payload) and compared with what was published; only the difference goes out, in batches
 * that yield to the event loop. On every connect everything is published again, and topics
 * that are no longer wanted (a forgotten node, a renamed group) are cleared.
 */
import type { Logger } from '../../logger.ts';
import { Coalescer } from '../../util/coalesce.ts';
import { Repeats } from './dedupe.ts';
import { discoveryEntries } from './discovery.ts';
import { parseSet, toCommand, type Current, type EffectLookup, type LightCommand } from './set.ts';
import { deviceState, groupState, type Catalog, type DeviceRow, type GroupRow, type Rgb } from './state.ts';
import { parseIncoming, topicLevels, Topics } from './topics.ts';
import type { LinkMessage, MqttLink } from './client.ts';

export interface Outcome {
  sent: number;
  errors: readonly string[];
}

export type LightTarget = { kind: 'group'; id: number } | { kind: 'device'; addr: string };

export type FlagRequest = 'green' | 'yellow' | 'red' | 'clear';

export interface RaceView {
  flag: string | null;
  scene: string | null;
  gateway_ready: boolean;
}

/** What the bridge reads of the host. */
export interface BridgeFleet {
  devices(): readonly (DeviceRow & { model: string })[];
  groups(): readonly GroupRow[];
  catalog: Catalog;
  lookup: EffectLookup;
  /** Every effect name a `…/set` may use (the LED presets', then WLED's). */
  effectNames(): string[];
  race(): RaceView;
}

/**
 * What the bridge may do. Light, flag and scene calls throw a refusal (an Error whose message
 * says who holds the target) when the command path refuses them.
 */
export interface BridgeActions {
  light(target: LightTarget, command: LightCommand): Promise<Outcome>;
  blackout(): Promise<Outcome>;
  flag(action: FlagRequest): Promise<Outcome>;
  runScene(key: string): Promise<{ key: string }>;
  stopScene(): { stopped: string | null };
  discover(): { task_id: number };
  health(): Record<string, unknown>;
}

export interface MqttStats {
  connected: boolean;
  broker: string;
  base_topic: string;
  discovery_prefix: string;
  connected_since_epoch_ms: number | null;
  messages_in: number;
  messages_out: number;
  /** Commands not acted on: malformed, unknown topic or target, oversized, retained, refused by the path. */
  refused: number;
  /** Repeats of a command already acted on (the dedupe rule). */
  duplicates: number;
  /** Publish failures, broker errors. */
  errors: number;
  last_error: { at_epoch_ms: number; message: string } | null;
  reconnects: number;
  /** Retained topics the bridge keeps on the broker. */
  retained_topics: number;
}

export interface BridgeOptions {
  topics: Topics;
  discoveryPrefix: string;
  /** null: no Home Assistant discovery. */
  discovery: boolean;
  nodeId: string;
  version: string;
  broker: string;
  maxPayloadBytes: number;
  fleet: BridgeFleet;
  actions: BridgeActions;
  log: Logger;
  now(): number;
  /** Told when the counters or the connection changed (at most every 250 ms). */
  onStats?(s: MqttStats): void;
}

const BATCH = 200;
const SYNC_DELAY_MS = 250;
/** One Log line per kind of refusal per second at most: a flood must not flood the Log. */
const LOG_EVERY_MS = 1000;

const yieldLoop = (): Promise<void> => new Promise((r) => setImmediate(r));

export class MqttBridge {
  private link: MqttLink | null = null;
  /** Retained topics as published (NOT_KNOWN: published before this connection, re-sent). */
  private readonly published = new Map<string, string>();
  private readonly colors = new Map<string, Rgb>();
  private readonly queue = new Coalescer<void>();
  private readonly repeats: Repeats;
  private levels = { devices: new Map<string, string>(), groups: new Map<number, string>() };
  private byLevel = { devices: new Map<string, string>(), groups: new Map<string, number>() };
  /** The devices the last computed state held (null: none computed yet), for join/leave events. */
  private known: Map<string, string> | null = null;
  private discoveryMemo: { key: string; entries: Map<string, string> } | null = null;
  private syncing = false;
  private dirty = false;
  private timer: NodeJS.Timeout | null = null;
  private statsTimer: NodeJS.Timeout | null = null;
  private readonly logged = new Map<string, number>();
  private closed = false;
  /** Bumped by Blackout and a red flag: a set submitted before runs only if this is unchanged. */
  private era = 0;
  private everConnected = false;
  private readonly s: MqttStats;

  constructor(private readonly o: BridgeOptions) {
    this.repeats = new Repeats(o.now);
    this.s = {
      connected: false,
      broker: o.broker,
      base_topic: o.topics.base,
      discovery_prefix: o.discoveryPrefix,
      connected_since_epoch_ms: null,
      messages_in: 0,
      messages_out: 0,
      refused: 0,
      duplicates: 0,
      errors: 0,
      last_error: null,
      reconnects: 0,
      retained_topics: 0,
    };
  }

  stats(): MqttStats {
    return { ...this.s, retained_topics: this.published.size };
  }

  /** The link to publish on (set once, before it connects). */
  attach(link: MqttLink): void {
    this.link = link;
  }

  // ---- connection ----------------------------------------------------------------------

  connected(): void {
    if (this.everConnected) this.s.reconnects++;
    this.everConnected = true;
    this.s.connected = true;
    this.s.connected_since_epoch_ms = this.o.now();
    this.o.log.info({ broker: this.o.broker }, 'MQTT connected');
    // Everything goes out again: the broker may have restarted without its retained store.
    for (const k of this.published.keys()) this.published.set(k, '\u0000');
    this.changedStats();
    void this.announce();
  }

  disconnected(): void {
    if (!this.s.connected) return;
    this.s.connected = false;
    this.s.connected_since_epoch_ms = null;
    this.o.log.warn({ broker: this.o.broker }, 'MQTT connection lost: reconnecting');
    this.changedStats();
  }

  error(err: Error): void {
    this.noteError(`broker: ${err.message}`);
  }

  private async announce(): Promise<void> {
    const link = this.link;
    if (!link) return;
    try {
      await link.subscribe([...this.o.topics.subscriptions(), `${this.o.discoveryPrefix}/status`]);
      await this.put(this.o.topics.bridgeState, 'online', true);
    } catch (err) {
      this.noteError(`announce: ${(err as Error).message}`);
    }
    this.event('bridge', { state: 'online' });
    await this.sync();
  }

  // ---- retained state --------------------------------------------------------------------

  /** The fleet changed (a scope, a flag, a scene): publish the difference soon. */
  fleetChanged(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.sync();
    }, SYNC_DELAY_MS);
  }

  /** Publishes what differs from the broker's retained state; one run at a time. */
  async sync(): Promise<void> {
    if (this.syncing) {
      this.dirty = true;
      return;
    }
    this.syncing = true;
    try {
      do {
        this.dirty = false;
        await this.syncOnce();
      } while (this.dirty && !this.closed);
    } finally {
      this.syncing = false;
    }
  }

  private async syncOnce(): Promise<void> {
    const link = this.link;
    if (!link?.connected) return;
    const want = this.desired();
    const out: [string, string][] = [];
    for (const [topic, payload] of want)
      if (this.published.get(topic) !== payload) out.push([topic, payload]);
    // Cleared with an empty retained message: Home Assistant removes the entity.
    for (const topic of this.published.keys()) if (!want.has(topic)) out.push([topic, '']);
    for (let i = 0; i < out.length; i += BATCH) {
      if (!link.connected || this.closed) return; // the next connect publishes everything
      const batch = out.slice(i, i + BATCH);
      await Promise.all(batch.map(([topic, payload]) => this.putRetained(topic, payload)));
      await yieldLoop();
    }
  }

  private async putRetained(topic: string, payload: string): Promise<void> {
    try {
      await this.put(topic, payload, true);
      if (payload === '') this.published.delete(topic);
      else this.published.set(topic, payload);
    } catch (err) {
      this.noteError(`publish ${topic}: ${(err as Error).message}`);
    }
  }

  private async put(topic: string, payload: string, retain: boolean): Promise<void> {
    const link = this.link;
    if (!link?.connected) throw new Error('not connected');
    await link.publish(topic, payload, { retain, qos: 1 });
    this.s.messages_out++;
    this.changedStats();
  }

  /** Every retained topic and its payload as the fleet is now. */
  private desired(): Map<string, string> {
    const t = this.o.topics;
    const f = this.o.fleet;
    const devices = f.devices();
    const groups = f.groups();
    const devLevels = topicLevels(devices.map((d) => ({ key: d.addr, name: d.name })));
    const grpLevels = topicLevels(groups.map((g) => ({ key: String(g.id), name: g.name })));
    this.levels = {
      devices: devLevels,
      groups: new Map(groups.map((g) => [g.id, grpLevels.get(String(g.id)) ?? String(g.id)])),
    };
    this.byLevel = {
      devices: new Map([...devLevels].map(([addr, level]) => [level, addr])),
      groups: new Map([...this.levels.groups].map(([id, level]) => [level, id])),
    };
    this.noteMembership(devices);
    const out = new Map<string, string>();
    const groupName = new Map(groups.map((g) => [g.id, g.name]));
    const members = new Map<number, DeviceRow[]>();
    for (const d of devices) {
      const level = devLevels.get(d.addr) ?? d.addr;
      const state = deviceState(
        d,
        groupName.get(d.groupId) ?? null,
        this.colors.get(`d:${d.addr}`),
        f.catalog,
      );
      out.set(t.device(level), JSON.stringify(state));
      out.set(t.availability(level), d.online ? 'online' : 'offline');
      const list = members.get(d.groupId);
      if (list) list.push(d);
      else members.set(d.groupId, [d]);
    }
    for (const g of groups) {
      const level = this.levels.groups.get(g.id) ?? String(g.id);
      const state = groupState(g, members.get(g.id) ?? [], this.colors.get(`g:${g.id}`), f.catalog);
      out.set(t.group(level), JSON.stringify(state));
    }
    out.set(t.bridgeRace, JSON.stringify(f.race()));
    if (this.o.discovery) for (const [k, v] of this.discovery(devices, groups)) out.set(k, v);
    return out;
  }

  /** `device_joined` / `device_removed` on the event topic (not for the fleet found at start). */
  private noteMembership(devices: readonly DeviceRow[]): void {
    const now = new Map(devices.map((d) => [d.addr, d.name]));
    const before = this.known;
    this.known = now;
    if (!before) return;
    for (const [addr, name] of now) if (!before.has(addr)) this.event('device_joined', { addr, name });
    for (const [addr, name] of before) if (!now.has(addr)) this.event('device_removed', { addr, name });
  }

  /** Discovery configs change only with the catalog (names, members, presets): memoised. */
  private discovery(devices: readonly (DeviceRow & { model: string })[], groups: readonly GroupRow[]) {
    const effects = this.o.fleet.effectNames();
    const devs = devices.map((d) => ({
      addr: d.addr,
      name: d.name,
      level: this.levels.devices.get(d.addr) ?? d.addr,
      devType: d.model,
    }));
    const grps = groups.map((g) => ({ name: g.name, level: this.levels.groups.get(g.id) ?? String(g.id) }));
    const key = JSON.stringify([effects, devs, grps]);
    if (this.discoveryMemo?.key === key) return this.discoveryMemo.entries;
    const entries = discoveryEntries({
      prefix: this.o.discoveryPrefix,
      topics: this.o.topics,
      nodeId: this.o.nodeId,
      version: this.o.version,
      effects,
      devices: devs,
      groups: grps,
    });
    this.discoveryMemo = { key, entries: new Map(entries.map((e) => [e.topic, e.payload])) };
    return this.discoveryMemo.entries;
  }

  // ---- events -------------------------------------------------------------------------

  /** `<base>/bridge/event`: discovery, task, flag and refusal events (not retained). */
  event(type: string, data: unknown): void {
    if (!this.link?.connected) return;
    this.put(this.o.topics.bridgeEvent, JSON.stringify({ type, data }), false).catch((err: unknown) =>
      this.noteError(`event: ${(err as Error).message}`),
    );
  }

  // ---- incoming -------------------------------------------------------------------------

  message(m: LinkMessage): void {
    this.s.messages_in++;
    this.changedStats();
    if (m.topic === `${this.o.discoveryPrefix}/status`) {
      // Home Assistant (re)started: it asks for the discovery configs again.
      if (m.payload.toString() === 'online' && this.o.discovery) {
        for (const [k] of this.discoveryMemo?.entries ?? [])
          if (this.published.has(k)) this.published.set(k, '\u0000');
        void this.sync();
      }
      return;
    }
    if (m.payload.length > this.o.maxPayloadBytes)
      return this.refuse(
        'oversized',
        m.topic,
        `payload of ${m.payload.length} bytes (limit ${this.o.maxPayloadBytes})`,
      );
    const target = parseIncoming(this.o.topics, m.topic);
    // A set that arrives before the first sync (right after subscribing) still finds its light.
    if (this.known === null) this.desired();
    if (!target) return this.refuse('unknown_topic', m.topic, 'not a topic Lightnet answers');
    if (m.retain)
      // A retained command would act again on every reconnect: never acted on.
      return this.refuse('retained', m.topic, 'retained command ignored (publish commands without retain)');
    const payload = m.payload.toString('utf8');
    if (target.kind === 'request') {
      void this.request(m.topic, target.name, payload);
      return;
    }
    const light: LightTarget | null =
      target.kind === 'group_set' ? this.groupTarget(target.level) : this.deviceTarget(target.level);
    if (!light)
      return this.refuse(
        'unknown_target',
        m.topic,
        `no ${target.kind === 'group_set' ? 'group' : 'device'} '${target.level}'`,
      );
    const parsed = parseSet(payload);
    if (!parsed.ok) return this.refuse('malformed', m.topic, parsed.error);
    if (this.repeats.repeatOfSet(m.topic, payload)) {
      this.s.duplicates++;
      this.o.log.debug({ topic: m.topic }, 'MQTT set repeated: acted on once');
      return;
    }
    const cmd = toCommand(parsed.payload, this.current(light), this.o.fleet.lookup);
    if (!cmd.ok) return this.refuse('malformed', m.topic, cmd.error);
    const key = light.kind === 'group' ? `g:${light.id}` : `d:${light.addr}`;
    // Latest value per light wins, one on its way at a time: a slider never builds a backlog.
    const era = this.era;
    this.queue
      .submit(key, async () => {
        if (era !== this.era)
          return this.refuse('dropped', m.topic, 'dropped: Blackout or a red flag came after it');
        const r = await this.o.actions.light(light, cmd.command);
        if (r.sent > 0) this.noteLook(light, cmd.command);
        else this.refuse('not_sent', m.topic, r.errors[0] ?? 'gateway unavailable');
      })
      .catch((err: unknown) => this.refuse('refused', m.topic, (err as Error).message));
  }

  private groupTarget(level: string): LightTarget | null {
    const id = this.byLevel.groups.get(level);
    return id === undefined ? null : { kind: 'group', id };
  }

  private deviceTarget(level: string): LightTarget | null {
    const addr = this.byLevel.devices.get(level);
    return addr === undefined ? null : { kind: 'device', addr };
  }

  private current(t: LightTarget): Current {
    const devices = this.o.fleet.devices();
    const rows =
      t.kind === 'group'
        ? devices.filter((d) => d.groupId === t.id)
        : devices.filter((d) => d.addr === t.addr);
    const lit = rows.find((d) => d.brightness > 0) ?? rows[0];
    return {
      brightness: rows.reduce((m, d) => Math.max(m, d.brightness), 0),
      presetId: lit?.presetId ?? 0,
      effectId: lit?.effectId ?? 0,
      color: this.colors.get(t.kind === 'group' ? `g:${t.id}` : `d:${t.addr}`),
    };
  }

  /** The colour a command showed is the colour reported (the nodes do not report theirs). */
  private noteLook(t: LightTarget, c: LightCommand): void {
    if (c.kind === 'off') return;
    const keys =
      t.kind === 'group'
        ? [`g:${t.id}`, ...this.o.fleet.devices().flatMap((d) => (d.groupId === t.id ? [`d:${d.addr}`] : []))]
        : [`d:${t.addr}`];
    for (const k of keys) {
      if (c.kind === 'effect') this.colors.set(k, c.color);
      else this.colors.delete(k);
    }
    this.fleetChanged();
  }

  private async request(topic: string, name: string, payload: string): Promise<void> {
    let body: Record<string, unknown> = {};
    if (payload.trim() !== '') {
      try {
        const j: unknown = JSON.parse(payload);
        if (typeof j !== 'object' || j === null || Array.isArray(j)) throw new Error('not an object');
        body = j as Record<string, unknown>;
      } catch {
        this.s.refused++;
        return this.respond(name, { status: 'error', data: {}, error: 'payload is not a JSON object' }, null);
      }
    }
    const tx = body.transaction;
    const transaction = typeof tx === 'string' || typeof tx === 'number' ? String(tx) : null;
    if (transaction !== null) {
      const again = this.repeats.answer(topic, transaction);
      if (again !== null) {
        this.s.duplicates++;
        this.put(this.o.topics.response(name), again, false).catch(() => undefined);
        return;
      }
    }
    let response: { status: 'ok' | 'error'; data: unknown; error?: string };
    try {
      response = { status: 'ok', data: await this.dispatch(name, body) };
    } catch (err) {
      this.refuse('request', topic, (err as Error).message);
      response = { status: 'error', data: {}, error: (err as Error).message };
    }
    this.respond(name, response, transaction === null ? null : { topic, id: tx as string | number });
  }

  private respond(
    name: string,
    r: { status: 'ok' | 'error'; data: unknown; error?: string },
    tx: { topic: string; id: string | number } | null,
  ): void {
    const text = JSON.stringify({ ...r, ...(tx ? { transaction: tx.id } : {}) });
    if (tx) this.repeats.remember(tx.topic, String(tx.id), text);
    this.put(this.o.topics.response(name), text, false).catch((err: unknown) =>
      this.noteError(`response ${name}: ${(err as Error).message}`),
    );
  }

  private async dispatch(name: string, body: Record<string, unknown>): Promise<unknown> {
    const a = this.o.actions;
    const sent = (r: Outcome) => {
      if (r.sent === 0) throw new Error(`not sent: ${r.errors[0] ?? 'gateway unavailable'}`);
      return { sent: r.sent };
    };
    const flag = /^flag\/(green|yellow|red|clear)$/.exec(name);
    if (flag) return { flag: flag[1], ...sent(await a.flag(flag[1] as FlagRequest)) };
    switch (name) {
      case 'blackout':
        return sent(await a.blackout());
      case 'scene/run': {
        const key = body.key;
        if (typeof key !== 'string' || key === '')
          throw new Error('key: the scene key is required (a string)');
        return a.runScene(key);
      }
      case 'scene/stop':
        return a.stopScene();
      case 'devices/discover':
        return a.discover();
      case 'health_check':
        return { healthy: true, mqtt: this.stats(), ...a.health() };
      default:
        throw new Error(
          `unknown request '${name}' (blackout, flag/<green|yellow|red|clear>, scene/run, scene/stop, devices/discover, health_check)`,
        );
    }
  }

  /** Blackout or a red flag: sets still waiting their turn are not sent after it. */
  dropWaiting(): void {
    this.era++;
  }

  // ---- counters ---------------------------------------------------------------------------

  private refuse(kind: string, topic: string, why: string): void {
    this.s.refused++;
    this.changedStats();
    if (kind === 'refused' || kind === 'not_sent' || kind === 'dropped')
      this.event('command_refused', { topic, error: why });
    const now = this.o.now();
    const last = this.logged.get(kind) ?? 0;
    if (now - last < LOG_EVERY_MS) return;
    this.logged.set(kind, now);
    this.o.log.info({ topic: topic.slice(0, 200), kind, reason: why }, 'MQTT message not acted on');
  }

  private noteError(message: string): void {
    this.s.errors++;
    this.s.last_error = { at_epoch_ms: this.o.now(), message };
    this.changedStats();
    const now = this.o.now();
    if (now - (this.logged.get('error') ?? 0) < LOG_EVERY_MS) return;
    this.logged.set('error', now);
    this.o.log.warn({ error: message }, 'MQTT error');
  }

  private changedStats(): void {
    if (!this.o.onStats || this.statsTimer || this.closed) return;
    this.statsTimer = setTimeout(() => {
      this.statsTimer = null;
      this.o.onStats?.(this.stats());
    }, 250);
  }

  /** Goes offline on purpose: `offline` retained (the will is for a crash), then disconnects. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.statsTimer) clearTimeout(this.statsTimer);
    await this.link?.close({ topic: this.o.topics.bridgeState, payload: 'offline' });
  }
}

export { Topics };
