/**
 * The Radio: what services use instead of the one driver when several gateways run (one
 * unchanged driver per gateway, each bound to a network). It has the driver's face, so no
 * service changes: a unicast goes through the gateway of the device's network, a group
 * send through every network with members of the group, broadcasts and discovery rounds
 * go to every network at once, and a status poll runs per network in parallel, each with
 * its own devices. A network whose gateway is not connected fails at once with an error
 * naming it: it never waits out the send queue's deadline, and never delays the others.
 *
 * With one gateway that serves its network, every call passes straight through to the
 * driver ("solo"): today's bytes, timings and snapshots, exactly. The host builds the Radio
 * even for one gateway so that a gateway which belongs to no network (a swapped board) or
 * whose radio settings differ from its network's record carries no traffic, and so that a
 * gateway found while running can be added (`addGateway`).
 */
import type { Addr, M2NRequest, RfConfig } from '../../protocol/types.ts';
import { TypedEmitter } from '../../util/typed-emitter.ts';
import { radioMaster, radioReadiness, type RadioView } from './snapshots.ts';
import { GatewayTable, type GatewayHold, type RadioGateway } from './table.ts';

export type { GatewayHold, RadioGateway } from './table.ts';
import { sumStats, targetNetworks, type RouteFacts } from './routing.ts';
import type {
  DriverStats,
  GatewayDriver,
  GatewayDriverEvents,
  GatewayReadiness,
  IdentifyResult,
  MasterSnapshot,
  Priority,
  Reply,
  SendOptions,
  StatusResult,
  StatusTarget,
  TxOutcome,
} from '../types.ts';

/** The networks as the router sees them (wired from the state in host/networks.ts). */
export interface RadioDirectory extends RouteFacts {
  networks(): readonly { id: number; name: string; gateway_mac: string | null }[];
  /** Whether any stored device belongs to the network. */
  hasDevices(networkId: number): boolean;
}

type Failure = { ok: false; reason: 'link_down'; detail: string };
const fail = (detail: string): Failure => ({ ok: false, reason: 'link_down', detail });
/** Addresses heard announcing, for unicasts to nodes not stored yet (bounded). */
const LAST_HEARD_MAX = 8192;

/** The per-network legs of a fleet task, or null with one gateway (the driver itself). */
export function networkLegs(driver: GatewayDriver): { networkId: number; driver: GatewayDriver }[] | null {
  return driver instanceof Radio && driver.multi ? driver.legs() : null;
}

export class Radio implements GatewayDriver {
  private readonly emitter = new TypedEmitter<GatewayDriverEvents>();
  private readonly table = new GatewayTable();
  private readonly lastHeard = new Map<Addr, number>();
  /** Runs on a gateway's readiness change before the Radio re-emits it (binding first). */
  private binder: ((index: number, r: GatewayReadiness) => void) | null = null;
  private binding = false;

  /** Every gateway attached so far, retired ones included (indexes stay stable). */
  get gateways(): readonly RadioGateway[] {
    return this.table.gateways;
  }

  constructor(
    gateways: readonly RadioGateway[],
    private readonly dir: RadioDirectory,
  ) {
    for (const g of gateways) this.addGateway(g);
  }

  /** Adds a gateway (at start, or found while running); returns its index. */
  addGateway(g: RadioGateway): number {
    const i = this.table.add(g);
    g.driver.on('packet', (p) => {
      const networkId = this.table.bound.get(i);
      // An unassigned gateway's packets are not ours to apply.
      if (networkId === undefined) return;
      if (p.reply?.kind === 'IDENTIFY_REPLY') this.noteHeard(p.packet.sender, networkId);
      this.emitter.emit('packet', { ...p, network_id: networkId });
    });
    g.driver.on('readiness', (r) => {
      // Bound first, then one readiness event (bind() stays quiet meanwhile).
      this.binding = true;
      try {
        this.binder?.(i, r);
      } finally {
        this.binding = false;
      }
      this.emitter.emit('readiness', this.readiness());
    });
    g.driver.on('master', () => this.emitter.emit('master', this.master()));
    g.driver.on('handed', (f) => {
      const networkId = this.table.bound.get(i);
      this.emitter.emit('handed', networkId === undefined ? f : { ...f, network_id: networkId });
    });
    return i;
  }

  /** Who binds a gateway on its readiness change, before anyone else hears of it. */
  setBinder(fn: ((index: number, r: GatewayReadiness) => void) | null): void {
    this.binder = fn;
  }

  /**
   * Binds gateway `index` to a network, or holds it (no traffic) with the reason; the
   * networks service decides (services/networks/binding.ts).
   */
  bind(index: number, networkId: number | null, hold?: GatewayHold): void {
    const before = this.binding ? '' : JSON.stringify(this.readiness());
    this.table.set(index, networkId, hold);
    if (!this.binding && JSON.stringify(this.readiness()) !== before)
      this.emitter.emit('readiness', this.readiness());
  }

  /** Takes a gateway out for good (its board came back on another port); stops its driver. */
  retire(index: number): void {
    void this.table.retire(index)?.stop();
  }

  /** The gateways still in service (their ports are owned: a rescan never opens them). */
  live(): RadioGateway[] {
    return this.table.live();
  }

  /**
   * The driver when one gateway serves the only network that has a gateway: everything
   * passes straight through (today's single-gateway behaviour, byte for byte).
   */
  private solo(): GatewayDriver | null {
    // Counted without retired drivers: one gateway that came back on another socket is
    // still one gateway (its old port's driver is out for good).
    const only = this.table.soleLive();
    if (only === null || this.table.held.has(only)) return null;
    const id = this.table.bound.get(only);
    if (id === undefined) {
      // Not identified yet (unplugged at start, connecting): the driver's own not-ready
      // answers, as a single gateway always gave them — unless several networks wait.
      const withGateway = this.dir.networks().filter((n) => n.gateway_mac !== null).length;
      return withGateway <= 1 ? (this.gateways[only]?.driver ?? null) : null;
    }
    for (const n of this.dir.networks()) if (n.gateway_mac !== null && n.id !== id) return null;
    return this.gateways[only]?.driver ?? null;
  }

  /** Several gateways in service (per-network legs and routes); retired drivers do not count. */
  get multi(): boolean {
    return this.live().length > 1;
  }

  networkOfGateway(index: number): number | null {
    return this.table.bound.get(index) ?? null;
  }

  /** The driver serving a network, or null when its gateway is not attached. */
  driverOf(networkId: number): GatewayDriver | null {
    return this.table.driverOf(networkId);
  }

  /** The gateway of a network: bound to it, or attached but held for it (its RF differs). */
  gatewayFor(networkId: number): GatewayDriver | null {
    return this.table.gatewayFor(networkId);
  }

  private networkName(id: number): string {
    return this.dir.networks().find((n) => n.id === id)?.name ?? `network ${id}`;
  }

  private noteHeard(addr: Addr, networkId: number): void {
    if (this.lastHeard.size >= LAST_HEARD_MAX && !this.lastHeard.has(addr)) this.lastHeard.clear();
    this.lastHeard.set(addr, networkId);
  }

  /** The driver for a network, or a failure naming the network (never a wait). */
  private ready(networkId: number): GatewayDriver | Failure {
    const d = this.driverOf(networkId);
    if (!d) {
      // Attached but held (its radio settings differ from the network's): say so.
      const held = this.table.holdOf(networkId);
      return fail(
        held
          ? `gateway of ${this.networkName(networkId)} carries no traffic: ${held.reason}`
          : `gateway of ${this.networkName(networkId)} is not connected`,
      );
    }
    if (!d.readiness().ready) return fail(`gateway of ${this.networkName(networkId)} is not ready`);
    return d;
  }

  private unicastDriver(addr: Addr): GatewayDriver | Failure {
    const solo = this.solo();
    if (solo) return solo;
    const id = this.dir.networkOf(addr) ?? this.lastHeard.get(addr) ?? null;
    if (id === null) return fail(`no network knows device ${addr}`);
    return this.ready(id);
  }

  // ── lifecycle and snapshots ──

  async start(): Promise<void> {
    await Promise.all(this.gateways.map((g) => g.driver.start()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.gateways.map((g) => g.driver.stop()));
  }

  async retry(): Promise<GatewayReadiness> {
    const solo = this.solo();
    if (solo) return solo.retry();
    await Promise.all(this.live().map((g) => g.driver.retry()));
    return this.readiness();
  }

  /** What the snapshots are made of (snapshots.ts). */
  private view(): RadioView {
    return {
      gateways: this.gateways,
      retired: this.table.retired,
      bound: this.table.bound,
      held: this.table.held,
      networks: () => this.dir.networks(),
      networkName: (id) => this.networkName(id),
      hasDevices: (id) => this.dir.hasDevices(id),
    };
  }

  readiness(): GatewayReadiness {
    return this.solo()?.readiness() ?? radioReadiness(this.view());
  }

  master(): MasterSnapshot {
    return this.solo()?.master() ?? radioMaster(this.view());
  }

  stats(): DriverStats {
    const solo = this.solo();
    if (solo) return solo.stats();
    return sumStats(this.live().map((g) => g.driver.stats()));
  }

  /** The first network's settings: pacing and estimates assume one modulation for all. */
  radioSettings(): { rf: RfConfig; source: 'gateway' | 'default' } {
    const first = this.table.boundIds()[0];
    const d = (first !== undefined ? this.driverOf(first) : null) ?? this.live()[0]?.driver;
    if (!d) throw new Error('radio: no gateway');
    return d.radioSettings();
  }

  on<K extends keyof GatewayDriverEvents>(
    event: K,
    listener: (p: GatewayDriverEvents[K]) => void,
  ): () => void {
    return this.emitter.on(event, listener);
  }

  async queryState(): Promise<{ ok: boolean; state: string; state_byte: number; state_metadata_ms: number }> {
    const solo = this.solo();
    if (solo) return solo.queryState();
    const answers = await Promise.all(this.live().map((g) => g.driver.queryState()));
    const m = this.master();
    return {
      ok: answers.every((a) => a.ok),
      state: m.state,
      state_byte: m.state_byte,
      state_metadata_ms: m.state_metadata_ms,
    };
  }

  // ── traffic ──

  /** Holds bulk traffic on every gateway (attached now; one plugged in later is not held). */
  hold(cls: 'bulk'): () => void {
    const releases = this.gateways.map((g) => g.driver.hold?.(cls));
    return () => releases.forEach((r) => r?.());
  }

  /** Summed over the gateways: the lap flash asks whether any radio has work before it. */
  queuedAhead(priority: Priority): number {
    const solo = this.solo();
    const drivers = solo ? [solo] : this.live().map((g) => g.driver);
    return drivers.reduce((n, d) => n + (d.queuedAhead?.(priority) ?? d.stats().queueDepth), 0);
  }

  /** One frame per target network, all at once; ok only if every part is. */
  async send(receiver: Addr, request: M2NRequest, opts: SendOptions = {}): Promise<TxOutcome> {
    const solo = this.solo();
    if (solo) return solo.send(receiver, request, opts);
    const ids = targetNetworks(
      receiver,
      request,
      this.table.boundIds(),
      this.dir,
      (a) => this.lastHeard.get(a) ?? null,
    );
    if (ids.length === 0) {
      if (receiver === 'FFFFFF') return fail('no gateway is connected');
      const known = this.dir.networkOf(receiver);
      if (known === null) return fail(`no network knows device ${receiver}`);
      const d = this.ready(known);
      return 'ok' in d ? d : fail(`gateway of ${this.networkName(known)} is not connected`);
    }
    let pending = ids.length;
    const onSent = opts.onSent;
    // The caller's reply window starts when the last part has left its antenna.
    const partOpts: SendOptions = onSent
      ? { ...opts, onSent: (ts) => (--pending === 0 ? onSent(ts) : undefined) }
      : opts;
    const outcomes = await Promise.all(
      ids.map(async (id): Promise<[number, TxOutcome]> => {
        const d = this.ready(id);
        return [id, 'ok' in d ? d : await d.send(receiver, request, partOpts)];
      }),
    );
    const bad = outcomes.find(([, o]) => !o.ok);
    if (!bad || bad[1].ok) return { ok: true };
    return { ...bad[1], detail: `${this.networkName(bad[0])}: ${bad[1].detail}` };
  }

  async discover(opts: Parameters<GatewayDriver['discover']>[0]): Promise<IdentifyResult[]> {
    const solo = this.solo();
    if (solo) return solo.discover(opts);
    const drivers = this.table.readyDrivers();
    const parts = await Promise.all(drivers.map((d) => d.discover(opts)));
    return parts.flat();
  }

  async statusBroadcast(opts: Parameters<GatewayDriver['statusBroadcast']>[0]): Promise<StatusResult[]> {
    const solo = this.solo();
    if (solo) return solo.statusBroadcast(opts);
    const drivers = this.table.readyDrivers();
    if (!opts.targets) return (await Promise.all(drivers.map((d) => d.statusBroadcast(opts)))).flat();
    // Each network polls its own devices; a missing network's devices simply do not answer.
    const byDriver = new Map<GatewayDriver, StatusTarget[]>();
    for (const t of opts.targets) {
      const id = this.dir.networkOf(t.addr);
      const d = id === null ? null : this.driverOf(id);
      if (!d || !drivers.includes(d)) continue;
      const list = byDriver.get(d) ?? [];
      list.push(t);
      byDriver.set(d, list);
    }
    const parts = await Promise.all(
      [...byDriver].map(([d, targets]) => d.statusBroadcast({ ...opts, targets, expected: targets.length })),
    );
    return parts.flat();
  }

  /**
   * One leg per network whose gateway is connected: a fleet task runs its own loop on each,
   * in parallel (each gateway's air is its own), inside the one task slot.
   */
  legs(): { networkId: number; driver: GatewayDriver }[] {
    return this.table.legs();
  }

  /** The lease text of the device's network's gateway (or of any, without an address). */
  offchannel(addr?: Addr): string | null {
    if (addr === undefined) {
      for (const g of this.gateways) {
        const t = g.driver.offchannel?.() ?? null;
        if (t) return t;
      }
      return null;
    }
    const id = this.dir.networkOf(addr) ?? this.lastHeard.get(addr) ?? null;
    return id === null ? null : (this.driverOf(id)?.offchannel?.() ?? null);
  }

  statusUnicast(...a: Parameters<GatewayDriver['statusUnicast']>): Promise<Reply<StatusResult>> {
    const d = this.unicastDriver(a[0]);
    return 'ok' in d ? Promise.resolve(d) : d.statusUnicast(...a);
  }

  setGroup(...a: Parameters<GatewayDriver['setGroup']>): ReturnType<GatewayDriver['setGroup']> {
    const d = this.unicastDriver(a[0]);
    return 'ok' in d ? Promise.resolve(d) : d.setGroup(...a);
  }

  config(...a: Parameters<GatewayDriver['config']>): ReturnType<GatewayDriver['config']> {
    const d = this.unicastDriver(a[0]);
    return 'ok' in d ? Promise.resolve(d) : d.config(...a);
  }

  getConfig(...a: Parameters<GatewayDriver['getConfig']>): ReturnType<GatewayDriver['getConfig']> {
    const d = this.unicastDriver(a[0]);
    return 'ok' in d ? Promise.resolve(d) : d.getConfig(...a);
  }

  stream(...a: Parameters<GatewayDriver['stream']>): ReturnType<GatewayDriver['stream']> {
    const d = this.unicastDriver(a[0]);
    return 'ok' in d ? Promise.resolve(d) : d.stream(...a);
  }

  /** The gateway's own RF commands act on the first network's gateway (see README). */
  getGatewayRf(): ReturnType<GatewayDriver['getGatewayRf']> {
    const d = this.primary();
    return 'ok' in d ? Promise.resolve(d) : d.getGatewayRf();
  }

  setGatewayRf(rf: RfConfig, persist: boolean): ReturnType<GatewayDriver['setGatewayRf']> {
    const d = this.primary();
    return 'ok' in d ? Promise.resolve(d) : d.setGatewayRf(rf, persist);
  }

  private primary(): GatewayDriver | Failure {
    const solo = this.solo();
    if (solo) return solo;
    const first = this.table.boundIds()[0];
    return first === undefined ? fail('no gateway belongs to a network') : this.ready(first);
  }
}
