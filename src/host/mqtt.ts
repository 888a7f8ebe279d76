/**
 * The MQTT bridge wired to the host's services (the composition root's part): the fleet it
 * publishes, the actions its commands run — every one through the command path as source
 * `mqtt` (automation, 40), Blackout at Blackout's priority — and the bus events it follows.
 * Loaded only with `--mqtt` (a dynamic import: an install without MQTT pays nothing).
 */
import { readFile } from 'node:fs/promises';
import { buildControlFlags, FLAG } from '../protocol/flags.ts';
import { deviceTypeInfo } from '../protocol/device-types.ts';
import { ledEffects } from '../domain/led-effects.ts';
import type { AppServices } from '../services/index.ts';
import type { Logger } from '../logger.ts';
import { sceneTargets } from '../services/command-path/index.ts';
import {
  connectLink,
  MQTT_SOURCE,
  MqttBridge,
  redactUrl,
  Topics,
  type BridgeActions,
  type BridgeFleet,
  type MqttStats,
  type Outcome,
} from '../services/mqtt/index.ts';

export interface MqttOptions {
  url: string;
  username?: string;
  password?: string;
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  baseTopic: string;
  discoveryPrefix: string;
  discovery: boolean;
  /** First reconnect delay (tests shorten it). */
  backoffMs?: number;
}

export interface MqttHandle {
  stats(): MqttStats;
  close(): Promise<void>;
}

const DEADLINE_MS = 10_000;
/** A command larger than this is refused unread (a set is a few dozen bytes). */
const MAX_PAYLOAD_BYTES = 16 * 1024;
const VERSION = '0.1.0';

export async function startMqtt(o: MqttOptions, svc: AppServices, log: Logger): Promise<MqttHandle> {
  svc.commandPath.registerSource({
    id: MQTT_SOURCE,
    sourceClass: 'automation',
    label: 'MQTT',
    external: true,
    http: false,
  });
  // A frame of ours still queued when red or Blackout goes out would land after them.
  let era = new AbortController();
  let bridgeRef: MqttBridge | null = null;
  const dropQueued = (): void => {
    era.abort();
    era = new AbortController();
    bridgeRef?.dropWaiting();
  };
  const effects = ledEffects();
  const effectById = new Map(effects.map((e) => [e.id, e.name]));
  const effectByName = new Map(effects.map((e) => [e.name.toLowerCase(), e.id]));
  const presets = () => svc.ledPresets.ledPresetOptions();

  const fleet: BridgeFleet = {
    devices: () =>
      svc.store.state.devices.map((d) => ({
        addr: d.addr,
        name: d.name,
        groupId: d.groupId,
        online: d.online,
        brightness: d.brightness,
        powerOn: (d.flags & FLAG.POWER_ON) !== 0,
        presetId: d.presetId,
        effectId: d.effectId,
        voltage_mV: d.voltage_mV,
        host_rssi: d.host_rssi,
        host_snr: d.host_snr,
        node_rssi: d.node_rssi,
        node_snr: d.node_snr,
        last_seen_ts: d.last_seen_ts,
        model: deviceTypeInfo(d.dev_type).name,
      })),
    groups: () => svc.store.state.groups.map((g) => ({ id: g.id, name: g.name })),
    catalog: {
      effectName: (id) => effectById.get(id) ?? null,
      presetName: (id) => presets().find((p) => p.id === id)?.name ?? null,
    },
    lookup: {
      preset: (name) => presets().find((p) => p.name.toLowerCase() === name.toLowerCase())?.id ?? null,
      effect: (name) => effectByName.get(name.toLowerCase()) ?? null,
    },
    effectNames: () => {
      const own = presets().map((p) => p.name);
      const taken = new Set(own.map((n) => n.toLowerCase()));
      return [...own, ...effects.map((e) => e.name).filter((n) => !taken.has(n.toLowerCase()))];
    },
    race: () => ({
      flag: svc.flags.state().flag,
      scene: svc.sceneDispatch.running(),
      gateway_ready: svc.driver.readiness().ready,
    }),
  };

  const sent = (r: { sent: number; errors: Record<string, string> }): Outcome => ({
    sent: r.sent,
    errors: Object.values(r.errors),
  });
  const actions: BridgeActions = {
    light: async (target, c) => {
      const t = target.kind === 'group' ? ({ kind: 'group', id: target.id } as const) : target;
      svc.commandPath.admit({ source: MQTT_SOURCE, targets: [t], action: c.kind === 'off' ? 'off' : c.kind });
      const ctlTarget = target.kind === 'group' ? { groupId: target.id } : { macs: [target.addr] };
      if (c.kind !== 'effect') {
        const presetId = c.kind === 'off' ? 0 : c.presetId;
        const brightness = c.kind === 'off' ? 0 : c.brightness;
        return sent(
          await svc.control.control(
            { target: ctlTarget, flags: 0, presetId, brightness },
            { signal: era.signal },
          ),
        );
      }
      // Planned as a scene's native effect (its addressing and offset flag), sent on our terms.
      const frames = svc.sceneDispatch.planEffect(
        target.kind === 'group'
          ? { kind: 'groups', value: [target.id] }
          : { kind: 'device', value: target.addr },
        { mode: c.mode, brightness: c.brightness, color1: [c.color.r, c.color.g, c.color.b] },
      );
      const outs = await Promise.all(
        frames.map((f) =>
          svc.driver.send(f.receiver, f.request, {
            priority: 'interactive',
            deadlineMs: DEADLINE_MS,
            signal: era.signal,
          }),
        ),
      );
      const errors = outs.flatMap((x) => (x.ok ? [] : [x.detail]));
      const ok = outs.length - errors.length;
      if (ok > 0)
        svc.store.mutate(['DEVICES'], (s) => {
          for (const d of s.devices) {
            if (target.kind === 'group' ? d.groupId !== target.id : d.addr !== target.addr) continue;
            d.brightness = c.brightness;
            d.effectId = c.mode;
            d.presetId = 0;
            d.flags = buildControlFlags(0, c.brightness);
          }
        });
      return { sent: ok, errors };
    },
    blackout: async () => {
      svc.commandPath.blackout();
      // (The blackout service's start tells the bus, which drops what MQTT holds back.)
      const r = await svc.blackout.blackout();
      svc.flags.afterBlackout();
      return { sent: r.sent, errors: r.errors };
    },
    flag: async (action) => {
      if (action === 'red') dropQueued();
      const r = await svc.flags.raise(action, MQTT_SOURCE);
      return { sent: r.sent, errors: r.errors };
    },
    runScene: async (key) => {
      if (svc.scenes.lookup(key) === undefined) throw new Error(`key: scene '${key}' not found`);
      const other = svc.sceneDispatch.running();
      if (other !== null) throw new Error(`scene_running: ${other}`);
      // Admitted first (throws when refused); the scene's targets are held while it runs.
      const targets = sceneTargets(svc.sceneDispatch.actionsOf(key, {}));
      const a = svc.commandPath.admit({ source: MQTT_SOURCE, targets, action: `scene ${key}`, hold: 'run' });
      svc.sceneDispatch
        .run(key, {})
        .catch((err: unknown) =>
          log.warn({ scene: key, error: (err as Error).message }, 'MQTT scene run failed'),
        )
        .finally(() => svc.commandPath.end(a.ticket));
      return { key };
    },
    stopScene: () => {
      const running = svc.sceneDispatch.running();
      void svc.sceneDispatch.cancel();
      return { stopped: running };
    },
    discover: () => ({ task_id: svc.discovery.start({}).id }),
    health: () => ({
      phase: svc.phase(),
      gateway_ready: svc.driver.readiness().ready,
      devices: svc.store.state.devices.length,
      online: svc.store.state.devices.filter((d) => d.online).length,
    }),
  };

  const topics = new Topics(o.baseTopic);
  const broker = redactUrl(o.url);
  const bridge = new MqttBridge({
    topics,
    discoveryPrefix: o.discoveryPrefix,
    discovery: o.discovery,
    nodeId: o.baseTopic.replace(/[^A-Za-z0-9]+/g, '_'),
    version: VERSION,
    broker,
    maxPayloadBytes: MAX_PAYLOAD_BYTES,
    fleet,
    actions,
    log,
    now: () => Date.now(),
    onStats: (s) => svc.bus.emit('mqtt', s),
  });
  bridgeRef = bridge;
  const changed = (): void => bridge.fleetChanged();
  let lastTask = '';
  const offs = [
    svc.bus.on('scopes', changed),
    svc.bus.on('scene_progress', changed),
    svc.bus.on('gateway', changed),
    svc.bus.on('blackout', dropQueued),
    svc.bus.on('flag', (f) => {
      if (f.flag === 'red') dropQueued();
      bridge.event('flag', f);
      changed();
    }),
    svc.bus.on('task', (t) => {
      // Started and ended only: a task's progress snapshots would flood the event topic.
      const said = `${t.id}:${t.state}`;
      if (said === lastTask) return;
      lastTask = said;
      bridge.event('task', { id: t.id, name: t.name, state: t.state, last_error: t.last_error });
    }),
  ];
  const file = async (p: string | undefined) => (p ? await readFile(p) : undefined);
  const link = await connectLink(
    {
      url: o.url,
      ...(o.username !== undefined ? { username: o.username } : {}),
      ...(o.password !== undefined ? { password: o.password } : {}),
      ca: await file(o.caFile),
      cert: await file(o.certFile),
      key: await file(o.keyFile),
      will: { topic: topics.bridgeState, payload: 'offline' },
      ...(o.backoffMs !== undefined ? { backoffMs: o.backoffMs } : {}),
    },
    {
      connected: () => bridge.connected(),
      disconnected: () => bridge.disconnected(),
      message: (m) => bridge.message(m),
      error: (err) => bridge.error(err),
    },
  );
  bridge.attach(link);
  log.info({ broker, base_topic: o.baseTopic, discovery: o.discovery }, 'MQTT bridge started');
  return {
    stats: () => bridge.stats(),
    close: async () => {
      offs.forEach((off) => off());
      await bridge.close();
    },
  };
}
