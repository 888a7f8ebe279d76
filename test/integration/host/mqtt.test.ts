/**
 * MQTT against a real broker (Debian's mosquitto, started per test on a free port): the
 * bridge's retained state, device and group topics and Home Assistant discovery reach a
 * subscriber; a group `…/set` reaches the simulated nodes' air, through the command path (a
 * take-over refuses it, with why); Blackout and the flags as bridge requests; bad input is
 * counted and never reaches the radio; a broker restart is survived without a duplicate.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withHost, type Harness } from '../harness.ts';
import { discoverAll } from './helpers.ts';
import { until } from '../../until.ts';
import { startBroker, Watcher, type Broker } from '../../mqtt/broker.ts';
import { OPC } from '../../../src/protocol/types.ts';
import type { SimNode } from '../../../src/sim/node/node.ts';
import type { MqttStats } from '../../../src/services/mqtt/index.ts';

const STARTBLOCK = [50, 51];
const leds = (h: Harness): SimNode[] =>
  (h.host.sim?.fleet.nodes ?? []).filter((n) => !STARTBLOCK.includes(n.devType));
const look = (n: SimNode): string => {
  const s = n.snapshot();
  return `${s.bri}:${[...(s.segment.colors[0] ?? [])].join(',')}`;
};
const stats = async (h: Harness): Promise<MqttStats & { enabled: boolean }> =>
  (await h.get<MqttStats & { enabled: boolean }>('/api/mqtt')).body;
/** Frames that change a look (status requests and other housekeeping the host sends on its own do not count). */
function airCount(h: Harness): () => number {
  let n = 0;
  h.host.sim?.fleet.gateway.events.on('m2n', (m: { typeFull: number }) => {
    if ((m.typeFull & 0x7f) !== OPC.STATUS) n++;
  });
  return () => n;
}
const mqttOf = (b: Broker, extra: Record<string, unknown> = {}) => ({
  url: b.url,
  baseTopic: 'lightnet',
  discoveryPrefix: 'homeassistant',
  discovery: true,
  backoffMs: 100,
  ...extra,
});

let broker: Broker;
let watchers: Watcher[] = [];
const watch = async (topics = ['lightnet/#', 'homeassistant/#']): Promise<Watcher> => {
  const w = await Watcher.connect(broker.url, topics);
  watchers.push(w);
  return w;
};

describe('mqtt', () => {
  beforeEach(async () => {
    broker = await startBroker();
  });
  afterEach(async () => {
    for (const w of watchers) await w.close();
    watchers = [];
    await broker.stop();
  });

  it('publishes-bridge-device-group-and-discovery-and-sets-reach-the-air', async () => {
    // A command someone published retained: it would act on every reconnect, so never.
    const early = await watch([]);
    await early.publish('lightnet/group/Gates/set', '{"state":"OFF"}', { retain: true });
    await withHost({ nodes: 3, seed: 2, mqtt: mqttOf(broker) }, async (h) => {
      await until('the retained command refused', async () => (await stats(h)).refused === 1);
      await discoverAll(h, { newGroupName: 'Gates' });
      const w = await watch();
      await w.until(() => w.last('lightnet/bridge/state') === 'online', 'bridge online');
      expect(w.messages.find((m) => m.topic === 'lightnet/bridge/state')?.retain).toBe(true);
      const devices = h.host.services.store.state.devices;
      for (const d of devices) {
        // The retained state a new subscriber gets first may predate the group (states go out
        // at most every 250 ms): wait for the one that has it.
        await w.until(
          () =>
            w.json(`lightnet/${d.name}`)?.addr === d.addr && w.json(`lightnet/${d.name}`)?.group === 'Gates',
          `state of ${d.name} in Gates`,
        );
        expect(w.json(`lightnet/${d.name}`)).toMatchObject({ online: true, group: 'Gates' });
        expect(w.last(`lightnet/${d.name}/availability`)).toBe('online');
      }
      await w.until(() => w.json('lightnet/group/Gates')?.members === devices.length, 'group state');
      const cfgTopic = 'homeassistant/light/lightnet_group_gates/light/config';
      await w.until(() => w.json(cfgTopic) !== undefined, 'HA discovery of the group');
      expect(w.json(cfgTopic)).toMatchObject({
        schema: 'json',
        unique_id: 'lightnet_group_gates_light',
        command_topic: 'lightnet/group/Gates/set',
        state_topic: 'lightnet/group/Gates',
        device: { identifiers: ['lightnet_bridge'] },
        availability: [{ topic: 'lightnet/bridge/state' }],
        supported_color_modes: ['rgb'],
      });
      const first = devices[0]!;
      const lightTopic = `homeassistant/light/lightnet_${first.addr.toLowerCase()}/light/config`;
      await w.until(() => w.json(lightTopic) !== undefined, 'HA discovery of a device');
      const light = w.json<{ availability: { topic: string }[]; unique_id: string }>(lightTopic);
      expect(light?.availability.map((a) => a.topic)).toEqual([
        'lightnet/bridge/state',
        `lightnet/${first.name}/availability`,
      ]);
      await w.until(
        () => w.json('homeassistant/button/lightnet_bridge/blackout/config') !== undefined,
        'the Blackout button',
      );
      expect(w.json('homeassistant/button/lightnet_bridge/blackout/config')).toMatchObject({
        command_topic: 'lightnet/bridge/request/blackout',
      });

      // A colour on the group: on the air, and its state says so.
      const onAir = airCount(h);
      await w.publish(
        'lightnet/group/Gates/set',
        '{"state":"ON","brightness":200,"color":{"r":0,"g":0,"b":255}}',
      );
      await until('every node blue', () => leds(h).every((n) => look(n) === '200:0,0,255'));
      await w.until(
        () => w.json<{ color?: { b: number } }>('lightnet/group/Gates')?.color?.b === 255,
        'group state blue',
      );
      // The same set again at once is a repeat: not sent a second time.
      const framesAfterOne = onAir();
      await w.publish(
        'lightnet/group/Gates/set',
        '{"state":"ON","brightness":200,"color":{"r":0,"g":0,"b":255}}',
      );
      await until('the repeat counted', async () => (await stats(h)).duplicates === 1);
      expect(onAir()).toBe(framesAfterOne);

      // Bad input: counted, never on the air.
      const before = onAir();
      await w.publish('lightnet/group/Gates/set', 'not json');
      await w.publish('lightnet/group/Gates/set', '{"brightness":999}');
      await w.publish('lightnet/group/Nope/set', '{"state":"OFF"}');
      await w.publish('lightnet/group/Gates/set', JSON.stringify({ state: 'ON', pad: 'x'.repeat(20_000) }));
      await until('five refused', async () => (await stats(h)).refused === 5);
      expect(onAir()).toBe(before);

      // A device set, by name, with an effect name (WLED's).
      await w.publish(`lightnet/${first.name}/set`, '{"effect":"Solid","color":{"r":255,"g":0,"b":0}}');
      const node = leds(h).find((n) => n.addr === first.addr)!;
      await until('the first node red', () => look(node) === '200:255,0,0');

      // The operator takes the group over: the next set is refused, and says why.
      expect((await h.post('/api/control/take-over', { target: { kind: 'group', id: 1 } })).status).toBe(200);
      await w.publish('lightnet/group/Gates/set', '{"state":"OFF"}');
      await w.until(
        () => w.json<{ type: string }>('lightnet/bridge/event')?.type === 'command_refused',
        'the refusal event',
      );
      expect(JSON.stringify(w.json('lightnet/bridge/event'))).toMatch(/operator/i);
      expect(leds(h).every((n) => n.snapshot().bri > 0)).toBe(true);

      // Blackout outranks the take-over; its answer echoes the transaction, once.
      await w.publish('lightnet/bridge/request/blackout', '{"transaction":"t-1"}');
      await w.until(() => w.json('lightnet/bridge/response/blackout') !== undefined, 'blackout response');
      expect(w.json('lightnet/bridge/response/blackout')).toMatchObject({ status: 'ok', transaction: 't-1' });
      await until('every node dark', () => leds(h).every((n) => n.snapshot().bri === 0));
      const afterBlackout = onAir();
      await w.publish('lightnet/bridge/request/blackout', '{"transaction":"t-1"}');
      await w.until(
        () => w.messages.filter((m) => m.topic === 'lightnet/bridge/response/blackout').length === 2,
        'the repeated answer',
      );
      expect(onAir()).toBe(afterBlackout);

      await w.publish('lightnet/bridge/request/flag/red', '{}');
      await w.until(() => w.json('lightnet/bridge/race')?.flag === 'red', 'race flag red');
      await w.publish('lightnet/bridge/request/nope', '{"transaction":7}');
      await w.until(() => w.json('lightnet/bridge/response/nope') !== undefined, 'unknown request answer');
      expect(w.json('lightnet/bridge/response/nope')).toMatchObject({ status: 'error', transaction: 7 });
      expect(String(w.json('lightnet/bridge/response/nope')?.error)).toMatch(/unknown request/);

      const s = await stats(h);
      expect(s).toMatchObject({ enabled: true, connected: true, broker: broker.url, errors: 0 });
      expect(s.messages_in).toBeGreaterThan(10);
    });
  });

  it('survives-a-broker-restart-re-announces-and-acts-once', async () => {
    await withHost({ nodes: 2, seed: 3, mqtt: mqttOf(broker) }, async (h) => {
      await discoverAll(h, { newGroupName: 'Gates' });
      const w0 = await watch();
      await w0.until(() => w0.json('lightnet/group/Gates') !== undefined, 'group state');
      await w0.close();
      watchers = [];
      await broker.restart();
      // The broker lost its retained store: everything comes from the host again.
      await until('reconnected', async () => {
        const s = await stats(h);
        return s.connected && s.reconnects === 1;
      });
      const w = await watch();
      await w.until(() => w.last('lightnet/bridge/state') === 'online', 'bridge online again');
      await w.until(() => w.json('lightnet/group/Gates') !== undefined, 'group state again');
      await w.until(
        () => w.json('homeassistant/light/lightnet_group_gates/light/config') !== undefined,
        'discovery again',
      );
      const onAir = airCount(h);
      await w.publish(
        'lightnet/group/Gates/set',
        '{"state":"ON","brightness":90,"color":{"r":0,"g":255,"b":0}}',
      );
      await w.publish(
        'lightnet/group/Gates/set',
        '{"state":"ON","brightness":90,"color":{"r":0,"g":255,"b":0}}',
      );
      await until('green', () => leds(h).every((n) => look(n) === '90:0,255,0'));
      await until('the repeat counted', async () => (await stats(h)).duplicates === 1);
      // One group colour is one broadcast frame.
      expect(onAir()).toBe(1);
    });
  });

  it('a-user-and-password-connect-and-a-wrong-password-is-reported', async () => {
    await broker.stop();
    broker = await startBroker({ users: { lightnet: 's3cret-pw' } });
    await withHost(
      { nodes: 1, mqtt: mqttOf(broker, { username: 'lightnet', password: 'wrong' }) },
      async (h) => {
        await until('the refusal reported', async () => (await stats(h)).last_error !== null);
        const s = await stats(h);
        expect(s.connected).toBe(false);
        expect(JSON.stringify(s)).not.toContain('wrong');
      },
    );
    await withHost(
      { nodes: 1, mqtt: mqttOf(broker, { username: 'lightnet', password: 's3cret-pw' }) },
      async (h) => {
        await until('connected', async () => (await stats(h)).connected);
        // Readable by the broker's user only, not by the test's anonymous clients.
        const w = await Watcher.connect(broker.url, ['lightnet/bridge/state'], {
          username: 'lightnet',
          password: 's3cret-pw',
        });
        watchers.push(w);
        await w.until(() => w.last('lightnet/bridge/state') === 'online', 'bridge online');
      },
    );
  });

  it('the-last-will-says-offline-when-the-host-process-is-killed', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-mqtt-will-'));
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/main.ts',
        '--gateway',
        'sim',
        '--port',
        '0',
        '--data-dir',
        dataDir,
        '--sim-nodes',
        '2',
        '--mqtt',
        broker.url,
        '--wifi',
        'none',
      ],
      { stdio: 'ignore', env: { ...process.env, LIGHTNET_LOG_LEVEL: 'warn' } },
    );
    try {
      const w = await watch(['lightnet/bridge/state']);
      await w.until(() => w.last('lightnet/bridge/state') === 'online', 'the child host online', 60_000);
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await gone;
      // The broker notices the dead connection (a reset socket) and publishes the will.
      await w.until(() => w.last('lightnet/bridge/state') === 'offline', 'the last will');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
