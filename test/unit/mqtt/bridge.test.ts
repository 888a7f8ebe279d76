/**
 * The bridge with a fake link and fake host: retained state goes out only when it changes and
 * a forgotten device's topics are cleared; a reconnect publishes everything again; a set
 * waiting behind another is dropped by Blackout; a retained command is never acted on.
 */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/logger.ts';
import {
  MqttBridge,
  Topics,
  type BridgeActions,
  type DeviceRow,
  type LightCommand,
  type MqttLink,
} from '../../../src/services/mqtt/index.ts';
import { until } from '../../until.ts';

const row = (addr: string, name: string, o: Partial<DeviceRow> = {}): DeviceRow & { model: string } => ({
  addr,
  name,
  groupId: 1,
  online: true,
  brightness: 100,
  powerOn: true,
  presetId: 0,
  effectId: 0,
  voltage_mV: 0,
  host_rssi: 0,
  host_snr: 0,
  node_rssi: 0,
  node_snr: 0,
  last_seen_ts: 0,
  model: 'WLED',
  ...o,
});

function setup() {
  let devices = [row('A1', 'One'), row('A2', 'Two')];
  const published: { topic: string; payload: string }[] = [];
  const link: MqttLink & { up: boolean } = {
    up: true,
    get connected() {
      return this.up;
    },
    publish: async (topic, payload) => {
      published.push({ topic, payload });
    },
    subscribe: async () => undefined,
    close: async () => undefined,
  };
  const sent: LightCommand[] = [];
  const gates: (() => void)[] = [];
  const actions: BridgeActions = {
    light: async (_t, c) => {
      sent.push(c);
      await new Promise<void>((r) => gates.push(r));
      return { sent: 1, errors: [] };
    },
    blackout: async () => ({ sent: 2, errors: [] }),
    flag: async () => ({ sent: 1, errors: [] }),
    runScene: async (key) => ({ key }),
    stopScene: () => ({ stopped: null }),
    discover: () => ({ task_id: 1 }),
    health: () => ({}),
  };
  const bridge = new MqttBridge({
    topics: new Topics('lightnet'),
    discoveryPrefix: 'homeassistant',
    discovery: false,
    nodeId: 'lightnet',
    version: '1',
    broker: 'mqtt://b',
    maxPayloadBytes: 1024,
    fleet: {
      devices: () => devices,
      groups: () => [{ id: 1, name: 'Gates' }],
      catalog: { effectName: () => null, presetName: () => null },
      lookup: { preset: () => null, effect: () => null },
      effectNames: () => [],
      race: () => ({ flag: null, scene: null, gateway_ready: true }),
    },
    actions,
    log: silentLogger(),
    now: () => Date.now(),
  });
  bridge.attach(link);
  const setDevices = (d: typeof devices) => (devices = d);
  return { bridge, link, published, sent, gates, setDevices };
}

const msg = (topic: string, payload: string, retain = false) => ({
  topic,
  payload: Buffer.from(payload),
  retain,
});

describe('mqtt bridge', () => {
  it('publishes-only-changes-clears-forgotten-topics-and-republishes-on-connect', async () => {
    const { bridge, published, setDevices } = setup();
    bridge.connected();
    await until('first sync', () => published.some((p) => p.topic === 'lightnet/Two'));
    const first = published.length;
    await bridge.sync();
    expect(published.length).toBe(first);
    setDevices([row('A1', 'One', { brightness: 7 })]);
    await bridge.sync();
    const changed = published.slice(first).map((p) => `${p.topic}=${p.payload === '' ? '' : 'x'}`);
    expect(
      published.find((p) => p.topic === 'lightnet/bridge/event' && p.payload.includes('device_removed'))
        ?.payload,
    ).toBe('{"type":"device_removed","data":{"addr":"A2","name":"Two"}}');
    expect(changed.filter((c) => !c.startsWith('lightnet/bridge/event')).sort()).toEqual(
      ['lightnet/One=x', 'lightnet/group/Gates=x', 'lightnet/Two=', 'lightnet/Two/availability='].sort(),
    );
    const before = published.length;
    bridge.disconnected();
    bridge.connected();
    await until('the full republish', () => published.length - before >= 5);
    expect(bridge.stats().reconnects).toBe(1);
  });

  it('blackout-drops-a-set-waiting-behind-another', async () => {
    const { bridge, sent, gates } = setup();
    bridge.connected();
    await bridge.sync();
    bridge.message(msg('lightnet/group/Gates/set', '{"state":"OFF"}'));
    await until('the first set on its way', () => sent.length === 1);
    bridge.message(msg('lightnet/group/Gates/set', '{"brightness":50}'));
    bridge.dropWaiting();
    gates.shift()?.();
    await until('the waiting set refused', () => bridge.stats().refused === 1);
    expect(sent).toHaveLength(1);
  });

  it('a-retained-or-oversized-command-is-refused-and-never-acted-on', async () => {
    const { bridge, sent } = setup();
    bridge.connected();
    await bridge.sync();
    bridge.message(msg('lightnet/group/Gates/set', '{"state":"OFF"}', true));
    bridge.message(msg('lightnet/One/set', JSON.stringify({ state: 'ON', x: 'y'.repeat(2000) })));
    bridge.message(msg('lightnet/Nobody/set', '{"state":"OFF"}'));
    expect(bridge.stats().refused).toBe(3);
    expect(sent).toHaveLength(0);
  });
});
