/**
 * The network records the operator edits: create (its radio settings picked by region +
 * channel, or custom within the firmware's limits, separation-checked against every other
 * network), rename (unique, 1–48 characters), delete (only an empty network without a
 * gateway, never the last one). Every change goes through the Store and is durable before
 * the route answers (scope NETWORKS).
 */
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import { defaultNetworkName, nextNetworkId, NETWORK_NAME_MAX, type Network } from '../../domain/networks.ts';
import {
  checkSeparation,
  describeRf,
  findChannel,
  firstFreeChannel,
  invalidRfField,
  type RfRegion,
} from '../../domain/rf-channels.ts';
import type { RfConfig } from '../../protocol/types.ts';
import type { Store } from '../../state/store.ts';

export interface CreateNetworkInput {
  name: string;
  region?: RfRegion;
  channel_id?: number;
  rf?: RfConfig;
}

export function uniqueNetworkName(networks: readonly Network[], id: number): string {
  const taken = new Set(networks.map((n) => n.name.toLowerCase()));
  for (let k = id; ; k++) if (!taken.has(defaultNetworkName(k).toLowerCase())) return defaultNetworkName(k);
}

/** A trimmed name that no other network uses (case-insensitive); 400 naming the field. */
export function checkName(
  networks: readonly Network[],
  raw: string,
  selfId: number | null,
  field = 'name',
): string {
  const name = raw.trim();
  if (name.length < 1 || name.length > NETWORK_NAME_MAX)
    throw new ValidationError(`${field}: must be 1–${NETWORK_NAME_MAX} characters`);
  const other = networks.find((n) => n.id !== selfId && n.name.toLowerCase() === name.toLowerCase());
  if (other) throw new ValidationError(`${field}: network ${other.id} is already called "${other.name}"`);
  return name;
}

/** 400 naming both networks when `rf` would share the air with another network. */
export function checkRfSeparation(
  networks: readonly Network[],
  selfId: number | null,
  selfName: string,
  rf: RfConfig,
): void {
  const clash = checkSeparation(selfId, rf, networks);
  if (!clash) return;
  const other = networks.find((n) => n.id === clash.other.id);
  throw new ValidationError(
    `rf: ${selfName} (${describeRf(rf)}) and ${clash.other.name} (${other?.rf ? describeRf(other.rf) : '?'}) ` +
      `are ${Math.round(clash.distanceHz / 1000)} kHz apart; networks need at least ` +
      `${Math.round(clash.requiredHz / 1000)} kHz so their packets do not collide`,
  );
}

/** The radio settings a create asks for: a channel, the first free one of a region, custom, or none. */
function requestedRf(networks: readonly Network[], input: CreateNetworkInput): RfConfig | null {
  if (input.rf) {
    if (input.region !== undefined || input.channel_id !== undefined)
      throw new ValidationError('rf: give either rf or region/channel_id, not both');
    const bad = invalidRfField(input.rf);
    if (bad) throw new ValidationError(`rf.${bad}: outside the firmware's limits`);
    return { ...input.rf };
  }
  if (input.channel_id !== undefined) {
    if (input.region === undefined) throw new ValidationError('region: is required with channel_id');
    const c = findChannel(input.region, input.channel_id);
    if (!c) throw new ValidationError(`channel_id: ${input.region} has no channel ${input.channel_id}`);
    return { ...c.rf };
  }
  if (input.region !== undefined) {
    const c = firstFreeChannel(
      input.region,
      networks.map((n) => n.rf),
    );
    if (!c) throw new ValidationError(`region: every ${input.region} channel is taken by another network`);
    return { ...c.rf };
  }
  // Learned from its gateway when one is assigned (checked then).
  return null;
}

export async function createNetwork(store: Store, input: CreateNetworkInput): Promise<Network> {
  const networks = store.state.networks;
  const name = checkName(networks, input.name, null);
  const rf = requestedRf(networks, input);
  if (rf) checkRfSeparation(networks, null, name, rf);
  return createNetworkRecord(store, name, null, rf);
}

/** Appends a checked record (fresh id, never reused); durable when it resolves. */
export function createNetworkRecord(
  store: Store,
  name: string,
  gatewayMac: string | null,
  rf: RfConfig | null,
): Promise<Network> {
  return store.commit(['NETWORKS'], (state) => {
    const id = nextNetworkId(state.networks, state.next_ids?.networks);
    const n: Network = { id, name, gateway_mac: gatewayMac, rf, migration: null };
    // The MAC leaves any other network.
    if (gatewayMac) for (const o of state.networks) if (o.gateway_mac === gatewayMac) o.gateway_mac = null;
    state.networks.push(n);
    state.next_ids = { native_presets: 0, scenes: 0, ...state.next_ids, networks: id + 1 };
    return n;
  });
}

export function requireNetwork(store: Store, id: number): Network {
  const n = store.state.networks.find((x) => x.id === id);
  if (!n) throw new NotFoundError(`network not found: ${id}`);
  return n;
}

export async function renameNetwork(store: Store, id: number, raw: string): Promise<Network> {
  const n = requireNetwork(store, id);
  const name = checkName(store.state.networks, raw, id);
  if (name === n.name) return n;
  return store.commit(['NETWORKS'], () => {
    n.name = name;
    return n;
  });
}

export async function deleteNetwork(store: Store, id: number): Promise<void> {
  const n = requireNetwork(store, id);
  if (store.state.networks.length <= 1)
    throw new ValidationError(`${n.name} is the only network: every device must belong to one`);
  const devices = store.state.devices.filter((d) => d.network_id === id).length;
  if (devices > 0)
    throw new ConflictError(
      `${n.name} still has ${devices} device(s): forget them (Devices → tick them → Forget…, or POST /api/devices/forget) or let another network's gateway discover them first${n.gateway_mac !== null ? `, then release its gateway ${n.gateway_mac} (Release gateway… on its card, or POST /api/gateways/${n.gateway_mac}/release)` : ''}`,
      {
        code: 'network_in_use',
        devices,
      },
    );
  if (n.gateway_mac !== null)
    throw new ConflictError(
      `${n.name} still has gateway ${n.gateway_mac}: release it first (Release gateway… on its card, or POST /api/gateways/${n.gateway_mac}/release)`,
      {
        code: 'network_in_use',
        gateway_mac: n.gateway_mac,
      },
    );
  if (n.migration !== null)
    throw new ConflictError(`${n.name} is moving to another channel: finish or cancel that first`, {
      code: 'network_in_use',
    });
  await store.commit(['NETWORKS'], (state) => {
    state.networks = state.networks.filter((x) => x.id !== id);
  });
}
