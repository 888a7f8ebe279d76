/**
 * Home Assistant MQTT discovery: one retained config message per entity, so a fleet shows
 * up in Home Assistant by itself. Pure. Each entity has a stable `unique_id` (a device's
 * address; a group's name, since group ids renumber when one is deleted), a `device` block
 * (one HA device per node, one for the bridge that groups, race and Blackout hang off) and
 * availability (the bridge's state, and the node's own for node entities).
 */
import type { Topics } from './topics.ts';

export interface DiscoveryEntry {
  topic: string;
  payload: string;
}

export interface DiscoveryInput {
  prefix: string;
  topics: Topics;
  /** Identifies this host (a base topic per host keeps several hosts apart). */
  nodeId: string;
  version: string;
  effects: readonly string[];
  devices: readonly { addr: string; name: string; level: string; devType: string }[];
  groups: readonly { name: string; level: string }[];
}

const slug = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '') || 'x';

export function discoveryEntries(i: DiscoveryInput): DiscoveryEntry[] {
  const t = i.topics;
  const bridgeId = `${i.nodeId}_bridge`;
  const bridgeDevice = {
    identifiers: [bridgeId],
    name: 'Lightnet',
    manufacturer: 'Lightnet',
    model: 'Lightnet host',
    sw_version: i.version,
  };
  const bridgeAvail = { topic: t.bridgeState, payload_available: 'online', payload_not_available: 'offline' };
  const out: DiscoveryEntry[] = [];
  const add = (component: string, object: string, sub: string, config: Record<string, unknown>): void => {
    out.push({ topic: `${i.prefix}/${component}/${object}/${sub}/config`, payload: JSON.stringify(config) });
  };
  const lightConfig = (stateTopic: string) => ({
    schema: 'json',
    state_topic: stateTopic,
    command_topic: `${stateTopic}/set`,
    brightness: true,
    brightness_scale: 255,
    supported_color_modes: ['rgb'],
    effect: true,
    effect_list: i.effects,
  });

  for (const d of i.devices) {
    const id = `${i.nodeId}_${slug(d.addr)}`;
    const stateTopic = t.device(d.level);
    const device = {
      identifiers: [id],
      name: d.name,
      manufacturer: 'Lightnet',
      model: d.devType,
      via_device: bridgeId,
    };
    const availability = [bridgeAvail, { topic: t.availability(d.level) }];
    const common = { device, availability, availability_mode: 'all', origin: { name: 'Lightnet' } };
    add('light', id, 'light', {
      ...common,
      name: null,
      unique_id: `${id}_light`,
      ...lightConfig(stateTopic),
    });
    const sensor = (key: string, name: string, extra: Record<string, unknown>) =>
      add('sensor', id, key, {
        ...common,
        name,
        unique_id: `${id}_${key}`,
        state_topic: stateTopic,
        value_template: `{{ value_json.${key} }}`,
        state_class: 'measurement',
        entity_category: 'diagnostic',
        ...extra,
      });
    sensor('battery_v', 'Battery', { device_class: 'voltage', unit_of_measurement: 'V' });
    sensor('rssi', 'Signal', { device_class: 'signal_strength', unit_of_measurement: 'dBm' });
    sensor('snr', 'Signal to noise', { unit_of_measurement: 'dB', icon: 'mdi:signal' });
  }

  for (const g of i.groups) {
    const id = `${i.nodeId}_group_${slug(g.name)}`;
    add('light', id, 'light', {
      name: `${g.name}`,
      unique_id: `${id}_light`,
      device: bridgeDevice,
      availability: [bridgeAvail],
      origin: { name: 'Lightnet' },
      ...lightConfig(t.group(g.level)),
    });
  }

  const bridge = { device: bridgeDevice, availability: [bridgeAvail], origin: { name: 'Lightnet' } };
  add('button', bridgeId, 'blackout', {
    ...bridge,
    name: 'Blackout',
    unique_id: `${bridgeId}_blackout`,
    command_topic: `${t.requestPrefix}blackout`,
    payload_press: '{}',
    icon: 'mdi:lightbulb-off',
  });
  for (const f of ['green', 'yellow', 'red', 'clear'] as const)
    add('button', bridgeId, `flag_${f}`, {
      ...bridge,
      name: f === 'clear' ? 'Clear flag' : `${f[0]?.toUpperCase()}${f.slice(1)} flag`,
      unique_id: `${bridgeId}_flag_${f}`,
      command_topic: `${t.requestPrefix}flag/${f}`,
      payload_press: '{}',
      icon: f === 'clear' ? 'mdi:flag-remove' : 'mdi:flag',
    });
  add('sensor', bridgeId, 'race_flag', {
    ...bridge,
    name: 'Race flag',
    unique_id: `${bridgeId}_race_flag`,
    state_topic: t.bridgeRace,
    value_template: "{{ value_json.flag or 'none' }}",
    device_class: 'enum',
    options: ['none', 'green', 'yellow', 'red'],
    icon: 'mdi:flag',
  });
  add('sensor', bridgeId, 'race_scene', {
    ...bridge,
    name: 'Running scene',
    unique_id: `${bridgeId}_race_scene`,
    state_topic: t.bridgeRace,
    value_template: "{{ value_json.scene or 'none' }}",
    icon: 'mdi:play-circle',
  });
  add('binary_sensor', bridgeId, 'gateway', {
    ...bridge,
    name: 'Gateway',
    unique_id: `${bridgeId}_gateway`,
    state_topic: t.bridgeRace,
    value_template: "{{ 'ON' if value_json.gateway_ready else 'OFF' }}",
    device_class: 'connectivity',
    entity_category: 'diagnostic',
  });
  return out;
}
