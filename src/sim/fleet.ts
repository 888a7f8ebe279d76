/**
 * A seeded fleet: one gateway and a realistic mix of nodes on a shared air. The same seed
 * gives the same MACs, device types, link qualities and battery voltages, and (for the same
 * host inputs) the same reply timing and collisions.
 */
import type { Clock } from '../clock.ts';
import type { RfConfig } from '../protocol/types.ts';
import { Prng } from '../util/prng.ts';
import { Air, snrForRssi, type LinkQuality } from './air.ts';
import { Faults } from './faults.ts';
import { SimScheduler } from './scheduler.ts';
import { SimGateway, type GatewayTiming, type SimGatewayOptions } from './gateway/gateway.ts';
import { SimNode, STARTBLOCK_TYPES, type NodeTiming } from './node/node.ts';

export interface FleetOptions {
  nodes: number;
  seed: number | string;
  clock: Clock;
  gatewayMac?: string;
  /**
   * The gateway was powered before the fleet starts (a board already plugged in when the
   * host starts): it is up at once instead of booting for its boot time. Default false.
   */
  gatewayUp?: boolean;
  /** Nodes power on at random times within this window after start (default 2000 ms). */
  bootSpreadMs?: number;
  /** Share of startblock nodes (types 50/51), default 0.15. */
  startblockShare?: number;
  /** Share of LED nodes that run on a battery (startblocks always do), default 0.25. */
  batteryShare?: number;
  rf?: RfConfig;
  lossRate?: number;
  resetOnOpen?: boolean;
  bootNoise?: SimGatewayOptions['bootNoise'];
  nodeTiming?: Partial<NodeTiming>;
  gatewayTiming?: Partial<GatewayTiming>;
  /** Per-index overrides of the seeded node properties (tests: fixed MACs, types, links). */
  nodeSpecs?: readonly (NodeSpec | undefined)[];
}

/**
 * The air, scheduler and taken addresses several fleets share (one fleet per gateway, see
 * fleets.ts): one stepped timeline, and no LoRa address twice on the air.
 */
export interface SharedAir {
  sched: SimScheduler;
  air: Air;
  used: Set<string>;
}

export interface NodeSpec {
  mac?: string;
  devType?: number;
  vbatMv?: number;
  quality?: LinkQuality;
}

export interface SimFleet {
  readonly gateway: SimGateway;
  readonly nodes: SimNode[];
  readonly air: Air;
  readonly faults: Faults;
  readonly sched: SimScheduler;
  readonly clock: Clock;
  /** Node by address (6 hex) or full MAC. */
  node(addr: string): SimNode | undefined;
  /**
   * Boots the gateway and powers the nodes on (within the boot spread). With `nodes:
   * false` only the gateway comes up; a later `start()` switches the field on (a host
   * that is already running when the gates are powered).
   */
  start(opts?: { nodes?: boolean }): void;
  stop(): void;
  /**
   * Benchmarks (common random numbers): every random stream of this fleet (its nodes' reply
   * delays and backoffs, the air's noise and loss) restarts from a state derived from the
   * seed and `label` only, so a measured phase draws the same numbers per node whatever the
   * phases before it drew. Nothing else changes (Prng.restart).
   */
  restartRandom(label: string): void;
}

/** LED node types reachable over LoRa with their weights (13/14 are Ethernet-only). */
const LED_TYPES: readonly (readonly [number, number])[] = [
  [10, 30],
  [11, 25],
  [12, 45],
];

/** Plausible vendor prefixes per hardware family (ESP32-C3, -S2, -S3, Heltec). */
const OUI: Record<number, readonly [number, number, number]> = {
  10: [0x34, 0x85, 0x18],
  11: [0x7c, 0xdf, 0xa1],
  12: [0x24, 0x6f, 0x28],
  50: [0x7c, 0xdf, 0xa1],
  51: [0x48, 0x27, 0xe2],
};

export function createFleet(opts: FleetOptions, shared?: SharedAir): SimFleet {
  if (!Number.isInteger(opts.nodes) || opts.nodes < 0 || opts.nodes > 5000) {
    throw new RangeError(`nodes must be an integer in 0..5000 (got ${opts.nodes})`);
  }
  const root = new Prng(typeof opts.seed === 'number' ? opts.seed : String(opts.seed));
  const sched = shared?.sched ?? new SimScheduler(opts.clock);
  const air = shared?.air ?? new Air(sched, root.fork('air'));
  if (opts.lossRate !== undefined) air.lossRate = opts.lossRate;
  const gwOpts: SimGatewayOptions = { resetOnOpen: opts.resetOnOpen ?? false };
  if (opts.gatewayMac) gwOpts.mac = opts.gatewayMac;
  if (opts.rf) gwOpts.rf = opts.rf;
  if (opts.gatewayTiming) gwOpts.timing = opts.gatewayTiming;
  if (opts.bootNoise) gwOpts.bootNoise = opts.bootNoise;
  const gateway = new SimGateway(air, sched, gwOpts);

  const mix = root.fork('mix');
  const types = fleetTypes(opts.nodes, opts.startblockShare ?? 0.15, mix);
  const used = shared?.used ?? new Set<string>();
  for (const a of [gateway.addr, 'FFFFFF', '000000']) used.add(a);
  const nodes: SimNode[] = types.map((devType, i) => {
    const r = root.fork(`node-${i}`);
    const spec = opts.nodeSpecs?.[i] ?? {};
    const type = spec.devType ?? devType;
    const seededMac = uniqueMac(type, r, used);
    const battery = STARTBLOCK_TYPES.includes(type) || r.chance(opts.batteryShare ?? 0.25);
    const seededVbat = battery ? r.int(3300, 4200) : 0;
    const seededQuality = linkQuality(r);
    const mac = spec.mac ?? seededMac;
    if (spec.mac)
      used.add(
        mac
          .replace(/[^0-9a-fA-F]/g, '')
          .toUpperCase()
          .slice(-6),
      );
    const nodeOpts = {
      mac,
      devType: type,
      vbatMv: spec.vbatMv ?? seededVbat,
      quality: spec.quality ?? seededQuality,
      ...(opts.rf ? { rf: opts.rf } : {}),
      ...(opts.nodeTiming ? { timing: opts.nodeTiming } : {}),
    };
    const node = new SimNode(nodeOpts, air, sched, r.fork('behaviour'));
    if (shared) air.setHome(node.addr, gateway.addr);
    return node;
  });
  const faults = new Faults({ air, gateway, nodes, sched, rng: root });
  const spread = Math.max(0, opts.bootSpreadMs ?? 2000);
  const bootOffsets = nodes.map((_, i) => root.fork(`boot-${i}`).int(0, Math.floor(spread)));
  let gatewayStarted = false;
  let nodesStarted = false;

  return {
    gateway,
    nodes,
    air,
    faults,
    sched,
    clock: opts.clock,
    node(addr: string) {
      const hex = addr
        .replace(/[^0-9a-fA-F]/g, '')
        .toUpperCase()
        .slice(-6);
      return nodes.find((n) => n.addr === hex);
    },
    start(o = {}) {
      const withNodes = o.nodes ?? true;
      sched.runExternal(() => {
        if (!gatewayStarted) gateway.boot(opts.gatewayUp ? 0 : undefined);
        gatewayStarted = true;
        if (!withNodes || nodesStarted) return;
        nodesStarted = true;
        nodes.forEach((n, i) => sched.after(bootOffsets[i] ?? 0, () => n.powerOn()));
      });
    },
    stop() {
      sched.stop();
      gateway.stop();
      for (const n of nodes) n.powerOff();
    },
    restartRandom(label: string) {
      root.restart(label);
      air.restartRandom(label);
    },
  };
}

/** Startblocks get a fixed share (at least one in fleets of 3+), placed at random. */
function fleetTypes(n: number, share: number, rng: Prng): number[] {
  const sb = n >= 3 ? Math.max(1, Math.round(n * share)) : 0;
  const types: number[] = [];
  for (let i = 0; i < n; i++) {
    types.push(i < sb ? (rng.chance(0.65) ? 50 : 51) : weighted(LED_TYPES, rng));
  }
  // Fisher–Yates, so startblocks are not all at the front.
  for (let i = types.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [types[i], types[j]] = [types[j] as number, types[i] as number];
  }
  return types;
}

function weighted(table: readonly (readonly [number, number])[], rng: Prng): number {
  const total = table.reduce((s, [, w]) => s + w, 0);
  let x = rng.next() * total;
  for (const [v, w] of table) {
    x -= w;
    if (x < 0) return v;
  }
  return (table[table.length - 1] as readonly [number, number])[0];
}

function uniqueMac(devType: number, rng: Prng, used: Set<string>): string {
  const oui = OUI[devType] ?? [0x24, 0x6f, 0x28];
  for (;;) {
    const tail = [rng.int(0, 255), rng.int(0, 255), rng.int(0, 255)];
    const last3 = tail.map((b) => b.toString(16).padStart(2, '0').toUpperCase()).join('');
    if (used.has(last3)) continue;
    used.add(last3);
    return [...oui, ...tail].map((b) => b.toString(16).padStart(2, '0').toUpperCase()).join('');
  }
}

/** Most nodes are well within range; a few sit near the edge (−40 … −115 dBm). */
function linkQuality(rng: Prng): LinkQuality {
  const rssi = -40 - 75 * rng.next() ** 1.4;
  const snr = Math.max(-8, Math.min(12, snrForRssi(rssi) + rng.range(-2, 2)));
  return { rssi, snr };
}
