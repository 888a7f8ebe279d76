/**
 * MQTT (issue 38): Lightnet as a Zigbee2MQTT-style bridge with Home Assistant discovery.
 * Pure parts (topics, state and set payloads, discovery, the repeat rule) and the bridge
 * runtime behind a link interface; host/mqtt.ts wires it to the host's services.
 */
export {
  MqttBridge,
  type BridgeActions,
  type BridgeFleet,
  type FlagRequest,
  type LightTarget,
  type MqttStats,
  type Outcome,
  type RaceView,
} from './bridge.ts';
export { connectLink, redactUrl, type LinkMessage, type MqttLink } from './client.ts';
export { Repeats } from './dedupe.ts';
export { discoveryEntries } from './discovery.ts';
export { parseSet, toCommand, type LightCommand } from './set.ts';
export { deviceState, groupState, type DeviceRow, type GroupRow, type Rgb } from './state.ts';
export { parseIncoming, topicLevels, Topics, usableLevel } from './topics.ts';

/** The command path's source for every MQTT command (automation, 40). */
export const MQTT_SOURCE = 'mqtt';

declare module '../../events.ts' {
  interface AppEvents {
    /** The MQTT bridge's connection and counters changed (the Integrations page's card). */
    mqtt: import('./bridge.ts').MqttStats;
  }
}
