/**
 * Task `channel_scan`: one network's gateway visits channels and lists the nodes it hears
 * on each, known (with their network) and unknown — how a stranded node is found.
 *
 * Order: the likeliest first — where the sought nodes were last confirmed (`rf_seen`), the
 * old channel of a migration in progress, then the region's table (the home channel only
 * on request). Per channel: a volatile retune (verified), then single DEVICES rounds to
 * group 255 (boot announcements heard meanwhile count): at least 3 rounds while nothing was
 * found (one round misses a lone node about one time in ten at 5 % loss), 2 quiet rounds
 * after the last news; with `seek`, the scan stops as soon as every sought node is found.
 * Read-only towards the nodes: nobody is bound or moved. `finally` puts the gateway back on
 * the network's channel, verified — whatever happened.
 *
 * Who can answer: unbound nodes (a stranded node is: an RF change drops its master) and
 * nodes bound to this gateway. A node bound to another gateway ignores this one (W§8.2):
 * the result says which.
 */
import { RF_CHANNELS, channelOf, describeRf, sameRf, type RfRegion } from '../../domain/rf-channels.ts';
import { CONFIG_BYTE } from '../../protocol/flags.ts';
import type { Addr, RfConfig } from '../../protocol/types.ts';
import type { TaskSnapshot } from '../../tasks/task-manager.ts';
import type { IdentifyResult } from '../../gateway/types.ts';
import {
  goHome,
  homeRf,
  networkOf,
  readyGateway,
  recordSeen,
  rfSeen,
  takeLease,
  tuneVolatile,
  type RfMovesDeps,
} from './common.ts';

export interface ScanRequest {
  networkId: number;
  region?: RfRegion;
  channelIds?: number[];
  includeHome?: boolean;
  seek?: Addr[];
  /** Modem settle after each retune (default: 800 ms on serial, 0 in the simulator). */
  settleMs?: number;
}

export interface HeardNode {
  addr: Addr;
  mac: string;
  dev_type: number;
  /** The group the node reports (0 = unconfigured, as every stranded node is). */
  group_reported: number;
  rssi: number;
  snr: number;
  known: boolean;
  /** Known nodes: their name and stored network. */
  name: string | null;
  network_id: number | null;
  network_name: string | null;
  sought: boolean;
}

export interface ScanChannelResult {
  region: string | null;
  channel_id: number | null;
  name: string | null;
  channel: string;
  rf: RfConfig;
  why: 'rf_seen' | 'migration' | 'table' | 'home';
  rounds: number;
  /** Time spent on this channel (retune, settle, rounds). */
  seconds: number;
  heard: HeardNode[];
  error: string | null;
}

export interface ScanResult {
  network_id: number;
  network_name: string;
  home: { rf: RfConfig; channel: string };
  returned_home: boolean;
  channels: ScanChannelResult[];
  /** Sought nodes found (with the channel) and not found. */
  found: { addr: Addr; channel: string }[];
  not_found: Addr[];
  stopped_early: boolean;
  cannot_hear: {
    note: string;
    /** Per other network: its stored nodes this scan did not hear (`heard`: those it did). */
    networks: { id: number; name: string; devices: number; heard: number; pinned: number }[];
    devices: { addr: Addr; name: string; network_id: number; network_name: string; why: string }[];
  };
  summary: { channels: number; heard: number; known: number; unknown: number };
}

const MIN_ROUNDS_EMPTY = 3;
const QUIET_ROUNDS = 2;
const MAX_ROUNDS = 8;
/**
 * One round's window: a node answers DEVICES 50–300 ms after it (plus LBT and ~50 ms of
 * airtime), so 0.8 s hears a lone stranded node; the driver's 5 s discovery ceiling is for
 * a crowd whose replies queue up (the window still stays open while replies keep coming).
 */
const ROUND_WINDOW_MS = 800;

interface Planned {
  rf: RfConfig;
  why: ScanChannelResult['why'];
}

export function planChannels(
  req: ScanRequest,
  home: RfConfig,
  seen: readonly RfConfig[],
  migrationFrom: RfConfig | null,
): Planned[] {
  const region: RfRegion = req.region ?? channelOf(home)?.region ?? 'EU868';
  const table = RF_CHANNELS.filter(
    (c) => c.region === region && (req.channelIds === undefined || req.channelIds.includes(c.id)),
  ).map((c) => c.rf);
  const out: Planned[] = [];
  const add = (rf: RfConfig, why: Planned['why']): void => {
    if (out.some((p) => sameRf(p.rf, rf))) return;
    if (sameRf(rf, home) && !req.includeHome) return;
    out.push({ rf, why: sameRf(rf, home) ? 'home' : why });
  };
  for (const rf of seen) add(rf, 'rf_seen');
  if (migrationFrom) add(migrationFrom, 'migration');
  for (const rf of table) add(rf, 'table');
  return out;
}

export function startScan(deps: RfMovesDeps, req: ScanRequest): TaskSnapshot {
  const { store, tasks, clock, log, registry } = deps;
  tasks.assertIdle();
  const net = networkOf(store, req.networkId);
  const gw = readyGateway(deps, net);
  const home = homeRf(net, gw);
  const sought = new Set(req.seek ?? []);
  const seen = [...sought]
    .map((a) => registry.find(a)?.rf_seen?.rf)
    .filter((rf): rf is RfConfig => rf !== undefined && rf !== null);
  const plan = planChannels(req, home, seen, net.migration?.from ?? null);
  const settleMs = req.settleMs ?? (gw.readiness().transport === 'sim' ? 0 : 800);
  const meta = { network_id: net.id, network_name: net.name, total: plan.length, seek: [...sought] };
  return tasks.start('channel_scan', { ...meta, stage: 'start', index: 0 }, async (ctx) => {
    const lease = takeLease(gw, net, 'scanning channels', 'channel_scan');
    const face = lease.driver;
    const channels: ScanChannelResult[] = [];
    const foundAt = new Map<Addr, string>();
    let stoppedEarly = false;
    let homeError: string | null = null;
    try {
      for (const [i, p] of plan.entries()) {
        ctx.checkpoint();
        if (sought.size > 0 && [...sought].every((a) => foundAt.has(a))) {
          stoppedEarly = true;
          break;
        }
        const c = channelOf(p.rf);
        const row: ScanChannelResult = {
          region: c?.region ?? null,
          channel_id: c?.id ?? null,
          name: c?.name ?? null,
          channel: describeRf(p.rf),
          rf: p.rf,
          why: p.why,
          rounds: 0,
          seconds: 0,
          heard: [],
          error: null,
        };
        channels.push(row);
        ctx.setMeta({ ...meta, stage: 'switch', index: i + 1, channel: row.channel, found: foundAt.size });
        const switchedAt = clock.now();
        const err = await tuneVolatile(face, p.rf);
        if (err) {
          row.error = `could not tune the gateway: ${err}`;
          continue;
        }
        if (settleMs > 0) await clock.sleep(settleMs, ctx.signal).catch(() => undefined);
        ctx.checkpoint();
        ctx.setMeta({ ...meta, stage: 'listen', index: i + 1, channel: row.channel, found: foundAt.size });
        const heard = new Map<Addr, IdentifyResult>();
        let quiet = 0;
        while (row.rounds < MAX_ROUNDS) {
          ctx.checkpoint();
          row.rounds++;
          let fresh = 0;
          try {
            const got = await face.discover({
              groupId: 255,
              rounds: 1,
              windowMs: ROUND_WINDOW_MS,
              priority: 'bulk',
              signal: ctx.signal,
            });
            for (const r of got) {
              // An announcement heard before this channel was tuned belongs to another one.
              if (r.ts < switchedAt || heard.has(r.addr)) continue;
              heard.set(r.addr, r);
              fresh++;
              ctx.bumpRx('rx_replies');
            }
          } catch (e) {
            ctx.checkpoint();
            row.error = `discovery failed: ${(e as Error).message}`;
            break;
          }
          quiet = fresh > 0 ? 0 : quiet + 1;
          for (const a of heard.keys()) if (sought.has(a) && !foundAt.has(a)) foundAt.set(a, row.channel);
          if (sought.size > 0 && [...sought].every((a) => foundAt.has(a))) break;
          if (heard.size === 0 ? row.rounds >= MIN_ROUNDS_EMPTY : quiet >= QUIET_ROUNDS) break;
        }
        row.heard = [...heard.values()].map((r) => heardNode(deps, r, sought));
        row.seconds = Math.round((clock.now() - switchedAt) / 100) / 10;
      }
    } finally {
      ctx.setMeta({ ...meta, stage: 'restore', index: channels.length, found: foundAt.size });
      homeError = await goHome(face, home, log);
      lease.release();
    }
    // rf_seen of every known node heard (same node: same full MAC).
    recordSeen(
      deps,
      channels.flatMap((c) =>
        c.heard.filter((h) => h.known).map((h) => ({ addr: h.addr, seen: rfSeen(c.rf, clock, 'scan') })),
      ),
    );
    const all = channels.flatMap((c) => c.heard);
    const result: ScanResult = {
      network_id: net.id,
      network_name: net.name,
      home: { rf: home, channel: describeRf(home) },
      returned_home: homeError === null,
      channels,
      found: [...foundAt].map(([addr, channel]) => ({ addr, channel })),
      not_found: [...sought].filter((a) => !foundAt.has(a)),
      stopped_early: stoppedEarly,
      cannot_hear: cannotHear(deps, net.id, sought, new Set(all.filter((h) => h.known).map((h) => h.addr))),
      summary: {
        channels: channels.length,
        heard: all.length,
        known: all.filter((h) => h.known).length,
        unknown: all.filter((h) => !h.known).length,
      },
    };
    if (homeError) throw new Error(`${homeError} (scan result: ${JSON.stringify(result.summary)})`);
    return result;
  });
}

function heardNode(deps: RfMovesDeps, r: IdentifyResult, sought: ReadonlySet<Addr>): HeardNode {
  const d = deps.registry.find(r.addr);
  const known = d !== undefined && (d.full_mac === null || d.full_mac === r.reply.mac);
  const net = known ? deps.store.state.networks.find((n) => n.id === d.network_id) : undefined;
  return {
    addr: r.addr,
    mac: r.reply.mac,
    dev_type: r.reply.devType,
    group_reported: r.reply.groupId,
    rssi: r.rssi,
    snr: r.snr,
    known,
    name: known ? d.name : null,
    network_id: known ? d.network_id : null,
    network_name: net?.name ?? null,
    sought: sought.has(r.addr),
  };
}

/**
 * Nodes of other networks this scan did not hear: a node bound to its own network's gateway
 * (by a SET_GROUP since it started) ignores every other sender (W§8.2; with master
 * persistence on, even after a reboot). One no gateway has bound yet — announced at power-up
 * and still in group 0 — answers any gateway's DEVICES, so the scan may list it on its own
 * network's channel: those are counted as heard, not as unhearable. Per network a count, and
 * the sought ones by name.
 */
function cannotHear(
  deps: RfMovesDeps,
  networkId: number,
  sought: ReadonlySet<Addr>,
  heardAddrs: ReadonlySet<Addr>,
): ScanResult['cannot_hear'] {
  const networks = deps.store.state.networks
    .filter((n) => n.id !== networkId)
    .map((n) => {
      const own = deps.store.state.devices.filter((d) => d.network_id === n.id);
      const unheard = own.filter((d) => !heardAddrs.has(d.addr));
      return {
        id: n.id,
        name: n.name,
        devices: unheard.length,
        heard: own.length - unheard.length,
        pinned: unheard.filter((d) => d.configByte & CONFIG_BYTE.MASTER_PERSIST).length,
      };
    })
    .filter((n) => n.devices > 0);
  const names = new Map(deps.store.state.networks.map((n) => [n.id, n.name]));
  const devices = deps.store.state.devices
    .filter((d) => d.network_id !== networkId && sought.has(d.addr) && !heardAddrs.has(d.addr))
    .map((d) => ({
      addr: d.addr,
      name: d.name,
      network_id: d.network_id,
      network_name: names.get(d.network_id) ?? `network ${d.network_id}`,
      why:
        d.configByte & CONFIG_BYTE.MASTER_PERSIST
          ? 'bound to the gateway of its network with master persistence on (even after a reboot)'
          : 'bound to the gateway of its network (until it reboots or changes channel)',
    }));
  return {
    note:
      networks.length === 0
        ? 'Cannot hear: none — every stored node can answer this gateway (when unbound or bound to it)'
        : 'Not heard here: these nodes of other networks — bound to their own gateway (a bound node ignores every other one), or out of reach of this one. Nodes no gateway has bound yet (e.g. in group 0 since they started) answer any gateway and are listed above. Scan with their network to find the rest',
    networks,
    devices,
  };
}
