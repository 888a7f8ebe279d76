/**
 * Networks: one gateway identity (its MAC) + the radio settings its nodes are tuned to + the
 * devices on it. A single-gateway install has exactly one, network 1, which existing installs
 * are migrated into (state schema 4) and which binds itself to the first gateway that
 * connects. Pure code: records, the tolerant loader used by the state migration, and the
 * binding decision taken when a gateway identifies itself.
 */
import type { RfConfig } from '../protocol/types.ts';
import { validateRfConfig } from '../protocol/rf.ts';

export interface Network {
  /** ≥ 1, never reused; 1 = the network existing installs migrate into. */
  id: number;
  /** Operator label, 1–48 characters, unique. */
  name: string;
  /** 12 upper-case hex from the gateway's identify answer; null = no gateway assigned yet. */
  gateway_mac: string | null;
  /**
   * What the network's nodes are tuned to (the host's only record of it); null = not known
   * yet, learned from the gateway at its first contact.
   */
  rf: RfConfig | null;
  /**
   * An RF migration in progress (task `rf_migration`): the nodes may be on either channel,
   * so a crash mid-way resumes knowing both, and the gateway is accepted on either.
   */
  migration: NetworkMigration | null;
}

export interface NetworkMigration {
  from: RfConfig;
  to: RfConfig;
  /** Epoch ms. */
  started_ts: number;
}

export const DEFAULT_NETWORK_ID = 1;
export const NETWORK_NAME_MAX = 48;

export const defaultNetworkName = (id: number): string => `Network ${id}`;

export const newNetwork = (
  id: number,
  gatewayMac: string | null = null,
  rf: RfConfig | null = null,
): Network => ({
  id,
  name: defaultNetworkName(id),
  gateway_mac: gatewayMac,
  rf,
  migration: null,
});

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const RF_KEYS: readonly (keyof RfConfig)[] = [
  'freqHz',
  'bwKhzX10',
  'sf',
  'crDen',
  'syncWord',
  'txPowerDbm',
  'preamble',
];

function loadRf(v: unknown): RfConfig | null {
  if (!isRecord(v)) return null;
  if (!RF_KEYS.every((k) => typeof v[k] === 'number')) return null;
  const rf = Object.fromEntries(RF_KEYS.map((k) => [k, v[k]])) as unknown as RfConfig;
  return validateRfConfig(rf) === null ? rf : null;
}

function loadMigration(v: unknown): NetworkMigration | null {
  if (!isRecord(v)) return null;
  const from = loadRf(v.from);
  const to = loadRf(v.to);
  const ts = v.started_ts;
  if (!from || !to || typeof ts !== 'number' || !Number.isFinite(ts)) return null;
  return { from, to, started_ts: ts };
}

export const normalizeGatewayMac = (v: unknown): string | null => {
  if (typeof v !== 'string') return null;
  const hex = v.replace(/[:\-\s]/g, '').toUpperCase();
  return /^[0-9A-F]{12}$/.test(hex) ? hex : null;
};

/**
 * Stored network records, checked one by one: a bad record is dropped with a note, never
 * fails the file. Always returns at least network 1 (every device must belong somewhere).
 */
export function loadNetworks(raw: unknown): { networks: Network[]; notes: string[] } {
  const notes: string[] = [];
  const out: Network[] = [];
  const ids = new Set<number>();
  const names = new Set<string>();
  const macs = new Set<string>();
  for (const [i, r] of (Array.isArray(raw) ? raw : []).entries()) {
    const id = isRecord(r) ? r.id : undefined;
    if (!isRecord(r) || typeof id !== 'number' || !Number.isInteger(id) || id < 1 || ids.has(id)) {
      notes.push(`networks.${i}: not a network record with a unique id ≥ 1, dropped`);
      continue;
    }
    let name = typeof r.name === 'string' ? r.name.trim().slice(0, NETWORK_NAME_MAX) : '';
    if (!name || names.has(name.toLowerCase())) {
      notes.push(`networks.${i}.name: missing or taken, named ${defaultNetworkName(id)}`);
      name = defaultNetworkName(id);
    }
    let mac =
      r.gateway_mac === null || r.gateway_mac === undefined ? null : normalizeGatewayMac(r.gateway_mac);
    if (r.gateway_mac != null && mac === null) notes.push(`networks.${i}.gateway_mac: not 12 hex, cleared`);
    if (mac !== null && macs.has(mac)) {
      notes.push(`networks.${i}.gateway_mac: gateway ${mac} already belongs to another network, cleared`);
      mac = null;
    }
    const rf = r.rf == null ? null : loadRf(r.rf);
    if (r.rf != null && rf === null) notes.push(`networks.${i}.rf: invalid radio settings, cleared`);
    const migration = r.migration == null ? null : loadMigration(r.migration);
    if (r.migration != null && migration === null)
      notes.push(`networks.${i}.migration: not a migration record (from, to, started_ts), cleared`);
    ids.add(id);
    names.add(name.toLowerCase());
    if (mac) macs.add(mac);
    out.push({ id, name, gateway_mac: mac, rf, migration });
  }
  if (out.length === 0) out.push(newNetwork(DEFAULT_NETWORK_ID));
  out.sort((a, b) => a.id - b.id);
  return { networks: out, notes };
}

/** The id for a new network: above every id in use and the persisted counter (never reused). */
export const nextNetworkId = (networks: readonly Network[], counter = 0): number =>
  Math.max(counter, ...networks.map((n) => n.id + 1), DEFAULT_NETWORK_ID);

export type BindDecision =
  | { kind: 'bound'; networkId: number }
  /** Exactly one network without a gateway and this is the only gateway: it takes this MAC. */
  | { kind: 'adopt'; networkId: number }
  /** No network can take it without the operator choosing. */
  | { kind: 'unassigned' };

/**
 * Which network a gateway that identified itself with `mac` serves. A network already
 * naming the MAC wins; otherwise the only network without a gateway takes it, but only when
 * it is the only gateway attached (how a migrated install binds to the gateway it already
 * uses, and how a fresh single-gateway install binds); anything else needs the operator.
 */
export function bindGateway(
  networks: readonly Network[],
  mac: string,
  gatewaysAttached: number,
): BindDecision {
  const own = networks.find((n) => n.gateway_mac === mac);
  if (own) return { kind: 'bound', networkId: own.id };
  const free = networks.filter((n) => n.gateway_mac === null);
  if (free.length === 1 && gatewaysAttached === 1) return { kind: 'adopt', networkId: free[0]!.id };
  return { kind: 'unassigned' };
}
