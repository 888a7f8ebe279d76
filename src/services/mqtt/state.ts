/**
 * The retained state payloads (JSON, Home Assistant's JSON light schema plus the node's
 * radio and battery readings). Pure: the fleet's rows in, strings out, so "published only on
 * change" is a string comparison.
 */

export interface Rgb {
  r: number;
  g: number;
  b: number;
}

/** What the bridge needs of a device row (a subset of the store's Device). */
export interface DeviceRow {
  addr: string;
  name: string;
  groupId: number;
  online: boolean;
  brightness: number;
  /** The node's power bit (wire flags bit 0). */
  powerOn: boolean;
  presetId: number;
  effectId: number;
  voltage_mV: number;
  host_rssi: number;
  host_snr: number;
  node_rssi: number;
  node_snr: number;
  last_seen_ts: number;
}

export interface GroupRow {
  id: number;
  name: string;
}

/** Names for the ids a node reports: a WLED effect, an LED preset of the active file. */
export interface Catalog {
  effectName(id: number): string | null;
  presetName(id: number): string | null;
}

export interface LightState {
  state: 'ON' | 'OFF';
  brightness: number;
  color_mode?: 'rgb';
  color?: Rgb;
  effect: string | null;
}

export interface DeviceState extends LightState {
  addr: string;
  name: string;
  group: string | null;
  online: boolean;
  /** Volts, or null until the node reported one. */
  battery_v: number | null;
  /** How the gateway hears the node (dBm, dB), null until heard. */
  rssi: number | null;
  snr: number | null;
  /** How the node hears the gateway. */
  node_rssi: number | null;
  node_snr: number | null;
  last_seen_ts: number | null;
}

/** The effect a node shows: its LED preset's name when it runs one, else its WLED effect's. */
function effectOf(d: DeviceRow, c: Catalog): string | null {
  if (d.presetId > 0) {
    const p = c.presetName(d.presetId);
    if (p) return p;
  }
  return c.effectName(d.effectId);
}

const on = (d: DeviceRow): boolean => d.powerOn && d.brightness > 0;
const heard = (d: DeviceRow): boolean => d.last_seen_ts > 0;

function light(isOn: boolean, brightness: number, effect: string | null, color: Rgb | undefined): LightState {
  return {
    state: isOn ? 'ON' : 'OFF',
    brightness,
    ...(color ? { color_mode: 'rgb' as const, color } : {}),
    effect,
  };
}

export function deviceState(
  d: DeviceRow,
  groupName: string | null,
  color: Rgb | undefined,
  c: Catalog,
): DeviceState {
  return {
    ...light(on(d), d.brightness, effectOf(d, c), color),
    addr: d.addr,
    name: d.name,
    group: groupName,
    online: d.online,
    battery_v: d.voltage_mV > 0 ? Math.round(d.voltage_mV / 10) / 100 : null,
    rssi: heard(d) ? d.host_rssi : null,
    snr: heard(d) ? d.host_snr : null,
    node_rssi: heard(d) ? d.node_rssi : null,
    node_snr: heard(d) ? d.node_snr : null,
    last_seen_ts: heard(d) ? d.last_seen_ts : null,
  };
}

export interface GroupState extends LightState {
  id: number;
  name: string;
  members: number;
  online: number;
}

/**
 * A group is ON when any member is (Zigbee2MQTT's rule); its brightness is the brightest
 * member's; its effect is the members' when they all show the same one.
 */
export function groupState(
  g: GroupRow,
  members: readonly DeviceRow[],
  color: Rgb | undefined,
  c: Catalog,
): GroupState {
  const lit = members.filter(on);
  const effects = new Set(members.map((d) => effectOf(d, c)));
  return {
    ...light(
      lit.length > 0,
      members.reduce((m, d) => Math.max(m, d.brightness), 0),
      effects.size === 1 ? ([...effects][0] ?? null) : null,
      color,
    ),
    id: g.id,
    name: g.name,
    members: members.length,
    online: members.filter((d) => d.online).length,
  };
}
