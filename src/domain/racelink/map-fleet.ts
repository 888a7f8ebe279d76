/**
 * RaceLink devices, groups and networks → Lightnet's (networks.md §4.2, host-behaviour.md
 * §9.1, §14.2). Matching, so a second import changes nothing: a device is the same device
 * when its radio address (the last 3 MAC bytes, how Lightnet addresses nodes) matches; a
 * group is the same group when its name matches (the k-th RaceLink group of a name matches
 * the k-th Lightnet group of that name, so two same-named groups stay two). Matched records
 * take RaceLink's values; runtime fields (online, last seen, signal, battery) start fresh.
 */
import { MAX_GROUP_ID, RESERVED_GROUP_NAMES, newDevice, type Device, type StateModel } from '../model.ts';
import { normalizeAddr } from '../../protocol/addr.ts';
import { deviceTypeInfo } from '../../protocol/device-types.ts';
import { materializeSpecials, type Capability } from '../specials/options.ts';
import { fitName } from '../text.ts';
import type { Json } from '../input.ts';
import type { RaceLinkState } from './read.ts';
import type { ReportBuilder } from './report.ts';

/** Name limits of the device and group services (services/devices: meta.ts, groups.ts). */
export const MAX_DEVICE_NAME = 64;
export const MAX_GROUP_NAME = 64;

const int = (v: unknown, dflt: number, min = 0, max = 255): number => {
  const n = typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max ? n : dflt;
};

/** A name from RaceLink fitted to our rules; what was changed goes to the report. */
export function importName(raw: unknown, max: number, what: string, r: ReportBuilder): string {
  const s = typeof raw === 'string' ? raw : '';
  const f = fitName(s, max);
  if (f.cleaned) r.warn(`${what} "${f.text}": control or text-direction characters removed from the name`);
  if (f.cut) r.map(`${what} name cut to ${max} characters`, s, f.text);
  return f.text;
}

/** Groups: RaceLink list position → Lightnet group id (0 = Unconfigured). */
export function mapGroups(state: StateModel, rl: RaceLinkState, r: ReportBuilder): Map<number, number> {
  const map = new Map<number, number>();
  const seen = new Map<string, number>();
  rl.groups.forEach((g, pos) => {
    const rawName = typeof g.name === 'string' ? g.name.trim() : '';
    // The hidden all-nodes entry (position 0, static) means "Unconfigured" here.
    if (
      g.static_group === 1 ||
      g.static_group === true ||
      (pos === 0 && rawName.toLowerCase().startsWith('all '))
    ) {
      map.set(pos, 0);
      return;
    }
    if (!rawName || RESERVED_GROUP_NAMES.includes(rawName.toLowerCase())) {
      map.set(pos, 0);
      r.item(
        'group',
        rawName || `(position ${pos})`,
        'skip',
        'reserved or empty name: its devices go to Unconfigured',
      );
      return;
    }
    const name = importName(rawName, MAX_GROUP_NAME, 'group', r);
    const devType = int(g.dev_type, 0);
    const nth = seen.get(name) ?? 0;
    seen.set(name, nth + 1);
    const existing = state.groups.filter((x) => x.name === name)[nth];
    if (existing) {
      map.set(pos, existing.id);
      if (existing.dev_type !== devType) {
        existing.dev_type = devType;
        r.item('group', name, 'update', `device type ${devType}`);
      } else r.item('group', name, 'unchanged');
    } else if (state.groups.length >= MAX_GROUP_ID) {
      map.set(pos, 0);
      r.item(
        'group',
        name,
        'skip',
        `Lightnet has at most ${MAX_GROUP_ID} groups: its devices go to Unconfigured`,
      );
      return;
    } else {
      const id = state.groups.length + 1;
      state.groups.push({ id, name, dev_type: devType });
      map.set(pos, id);
      r.item('group', name, 'create');
    }
    if (map.get(pos) !== pos) r.map('group id', `${pos} "${name}"`, map.get(pos) ?? 0);
  });
  return map;
}

/** Specials under our key names (`wled_*` → `led_*`); the later loader also reads them at the top level. */
function specialsOf(d: Json, caps: Capability[]): Record<string, number> {
  const src: Record<string, unknown> = {};
  const take = (o: Json): void => {
    for (const [k, v] of Object.entries(o)) {
      const key = k.replace(/^wled_/, 'led_');
      if (/^(led|startblock)_/.test(key)) src[key] = v;
    }
  };
  take(d);
  if (d.specials && typeof d.specials === 'object' && !Array.isArray(d.specials)) take(d.specials as Json);
  return materializeSpecials(caps, src);
}

/**
 * What an import sets on a device Lightnet already has: what the operator authored in
 * RaceLink (name, group, options). Identity (type, firmware version, MAC) and the last
 * control state come from the node itself, so Lightnet's values are as new or newer.
 */
const AUTHORED = ['name', 'groupId', 'specials'] as const;
const sameAuthored = (a: Device, b: Device): boolean =>
  a.name === b.name && a.groupId === b.groupId && JSON.stringify(a.specials) === JSON.stringify(b.specials);

export function mapDevices(
  state: StateModel,
  rl: RaceLinkState,
  groups: Map<number, number>,
  r: ReportBuilder,
): void {
  const taken = new Map<string, string>();
  for (const d of rl.devices) {
    const rawAddr = typeof d.addr === 'string' ? d.addr : '';
    const hex = rawAddr.replace(/[^0-9a-fA-F]/g, '').toUpperCase();
    const label = typeof d.name === 'string' && d.name.trim() ? d.name.trim() : rawAddr || '(no address)';
    const addr = normalizeAddr(rawAddr);
    if (!addr || (hex.length !== 12 && hex.length !== 6)) {
      r.item('device', label, 'skip', `address ${JSON.stringify(rawAddr)} is not a 12-hex MAC`);
      continue;
    }
    const mac = hex.length === 12 ? hex : null;
    const other = taken.get(addr);
    if (other !== undefined) {
      r.item(
        'device',
        label,
        'skip',
        `same radio address ${addr} as "${other}" (Lightnet addresses nodes by the last 3 MAC bytes)`,
      );
      continue;
    }
    taken.set(addr, label);
    const devType = int(d.dev_type ?? d.device_type ?? d.caps ?? d.type, 0);
    const caps = deviceTypeInfo(devType).caps;
    const rlGroup = int(d.groupId, 0, 0, 0xffff);
    let groupId = groups.get(rlGroup);
    if (groupId === undefined) {
      groupId = 0;
      if (rlGroup !== 0)
        r.warn(
          `device "${label}": RaceLink group ${rlGroup} does not exist; the device goes to Unconfigured`,
        );
    }
    const existing = state.devices.find((x) => x.addr === addr);
    if (existing && existing.full_mac && mac && existing.full_mac !== mac) {
      r.item(
        'device',
        label,
        'skip',
        `radio address ${addr} is already used by "${existing.name}" (MAC ${existing.full_mac})`,
      );
      continue;
    }
    const want: Device = newDevice(addr, mac, devType);
    want.name =
      (typeof d.name === 'string' && d.name.trim() ? importName(d.name, MAX_DEVICE_NAME, 'device', r) : '') ||
      want.name;
    want.groupId = groupId;
    want.version = int(d.version, 0, 0, 0xffff);
    want.flags = int(d.flags, 1);
    want.presetId = int(d.presetId, 1);
    want.effectId = int(d.effectId, 0);
    want.brightness = int(d.brightness, 70);
    want.configByte = int(d.configByte, 0);
    want.specials = specialsOf(d, caps);
    if (!existing) {
      // The node may still carry an older RaceLink group on air: the host confirms or pushes ours.
      want.group_pending = true;
      state.devices.push(want);
      r.item('device', want.name, 'create', groupId ? `group ${groupId}` : undefined);
      continue;
    }
    const macFilled = existing.full_mac === null && mac !== null;
    if (macFilled) existing.full_mac = mac;
    // Options are compared on the device's own type (the node told Lightnet which it is).
    want.specials = specialsOf(d, deviceTypeInfo(existing.dev_type).caps);
    if (!macFilled && sameAuthored(existing, want)) {
      r.item('device', want.name, 'unchanged');
      continue;
    }
    const changed: string[] = AUTHORED.filter((k) => JSON.stringify(existing[k]) !== JSON.stringify(want[k]));
    if (macFilled) changed.push('MAC');
    if (existing.groupId !== want.groupId) existing.group_pending = true;
    Object.assign(existing, { name: want.name, groupId: want.groupId, specials: want.specials });
    r.item(
      'device',
      want.name,
      'update',
      changed.join(', ').replace('groupId', 'group').replace('specials', 'options'),
    );
  }
}

/**
 * Networks (state schema 2+): shown, not created. Lightnet's networks are made by its
 * gateways (one each, bound when they answer), so the imported devices join network 1 and a
 * device heard by another network's gateway is moved there by its full MAC.
 */
export function reportNetworks(rl: RaceLinkState, r: ReportBuilder): void {
  if (!rl.networks.length) return;
  for (const n of rl.networks) {
    const id = typeof n.id === 'string' ? n.id : '';
    const devices = rl.devices.filter((d) => d.network_id === id).length;
    const mac = typeof n.gateway_mac === 'string' && n.gateway_mac ? n.gateway_mac : 'no gateway bound';
    const kind = typeof n.kind === 'string' ? n.kind : 'rf';
    const channel =
      n.channel_id === null || n.channel_id === undefined
        ? 'custom channel'
        : `channel ${String(n.channel_id)}`;
    r.item(
      'network',
      typeof n.name === 'string' && n.name ? n.name : id || '(unnamed)',
      'skip',
      `${kind}, gateway ${mac}, ${typeof n.region === 'string' ? n.region : 'EU868'} ${channel}; ` +
        `${devices} devices: networks are not imported, they join network 1`,
    );
  }
  if (rl.networks.length > 1)
    r.warn(
      `${rl.networks.length} RaceLink networks: their devices all join Lightnet's network 1. With the other ` +
        'gateways plugged in, give each its own network (Settings → Networks…: new network, assign its gateway); ' +
        'a device that gateway hears then moves to its network by itself',
    );
  if (rl.networks.some((n) => n.kind === 'ethernet'))
    r.warn('Ethernet networks are not supported by Lightnet: their devices are kept but cannot be reached');
}
