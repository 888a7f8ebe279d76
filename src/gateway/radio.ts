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
import type { Addr, M2NRequest, RfConfig } from '../protocol/types.ts';
import { TypedEmitter } from '../util/typed-emitter.ts';
import { radioMaster, radioReadiness, type RadioView } from './radio-snapshots.ts';
import { sumStats, targetNetworks, type RouteFacts } from './routing.ts';
import type {
  DriverStats,
  GatewayDriver,
  GatewayDriverEvents,
  GatewayReadiness,
  IdentifyResult,
  MasterSnapshot,
  Reply,
  SendOptions,
  StatusResult,
  StatusTarget,
  TxOutcome,
} from './types.ts';

/** The networks as the router sees them (wired from the state in host.ts). */
export interface RadioDirectory extends RouteFacts {
  networks(): readonly { id: number; name: string; gateway_mac: string | null }[];
}

export interface RadioGateway {
  driver: GatewayDriver;
  /** The port or address, to name a gateway that has no network yet. */
  label: string;
}

type Failure = { ok: false; reason: 'link_down'; detail: string };
const fail = (detail: string): Failure => ({ ok: false, reason: 'link_down', detail });
/** Addresses heard announcing, for unicasts to nodes not stored yet (bounded). */
const LAST_HEARD_MAX = 8192;

/** The per-network legs of a fleet task, or null with one gateway (the driver itself). */
export function networkLegs(driver: GatewayDriver): { networkId: number; driver: GatewayDriver }[] | null {
  return driver instanceof Radio && driver.multi ? driver.legs() : null;
}

/** Why an attached gateway carries no traffic (the networks service decides, see binding.ts). */
export interface GatewayHold {
  /** The network it would serve (a conflict), or null (it belongs to no network). */
  networkId: number | null;
  reason: string;
}

export class Radio implements GatewayDriver {
  private readonly emitter = new TypedEmitter<GatewayDriverEvents>();
  /** Gateway index → network id (unbound gateways carry no traffic). */
  private readonly bound = new Map<number, number>();
  private readonly lastHeard = new Map<Addr, number>();
  /** Attached gateways that carry no traffic, and why. */
  private readonly held = new Map<number, GatewayHold>();
  /** Runs on a gateway's readiness change before the Radio re-emits it (binding first). */
  private binder: ((index: number, r: GatewayReadiness) => void) | null = null;
  private binding = false;
  /** Drivers replaced by the same gateway on another port: stopped, out of every snapshot. */
  private readonly retired = new Set<number>();
  readonly gateways: RadioGateway[] = [];

  constructor(
    gateways: readonly RadioGateway[],
    private readonly dir: RadioDirectory,
  ) {
    for (const g of gateways) this.addGateway(g);
  }

  /** Adds a gateway (at start, or found while running); returns its index. */
  addGateway(g: RadioGateway): number {
    const i = this.gateways.length;
    this.gateways.push(g);
    g.driver.on('packet', (p) => {
      const networkId = this.bound.get(i);
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
    if (networkId === null) this.bound.delete(index);
    else this.bound.set(index, networkId);
    if (networkId === null && hold) this.held.set(index, hold);
    else this.held.delete(index);
    if (!this.binding && JSON.stringify(this.readiness()) !== before)
      this.emitter.emit('readiness', this.readiness());
  }

  /** Takes a gateway out for good (its board came back on another port); stops its driver. */
  retire(index: number): void {
    this.bound.delete(index);
    this.held.delete(index);
    this.retired.add(index);
    void this.gateways[index]?.driver.stop();
  }

  /** The gateways still in service (their ports are owned: a rescan never opens them). */
  live(): RadioGateway[] {
    return this.gateways.filter((_, i) => !this.retired.has(i));
  }

  /**
   * The driver when one gateway serves the only network that has a gateway: everything
   * passes straight through (today's single-gateway behaviour, byte for byte).
   */
  private solo(): GatewayDriver | null {
    // Counted without retired drivers: one gateway that came back on another socket is
    // still one gateway (its old port's driver is out for good).
    const only = this.soleLive();
    if (only === null || this.held.has(only)) return null;
    const id = this.bound.get(only);
    if (id === undefined) {
      // Not identified yet (unplugged at start, connecting): the driver's own not-ready
      // answers, as a single gateway always gave them — unless several networks wait.
      const withGateway = this.dir.networks().filter((n) => n.gateway_mac !== null).length;
      return withGateway <= 1 ? (this.gateways[only]?.driver ?? null) : null;
    }
    for (const n of this.dir.networks()) if (n.gateway_mac !== null && n.id !== id) return null;
    return this.gateways[only]?.driver ?? null;
  }

  /** The index of the one gateway in service, or null when there are several. */
  private soleLive(): number | null {
    let only: number | null = null;
    for (let i = 0; i < this.gateways.length; i++) {
      if (this.retired.has(i)) continue;
      if (only !== null) return null;
      only = i;
    }
    return only;
  }

  /** Several gateways in service (per-network legs and routes); retired drivers do not count. */
  get multi(): boolean {
    return this.live().length > 1;
  }

  networkOfGateway(index: number): number | null {
    return this.bound.get(index) ?? null;
  }

  /** The driver serving a network, or null when its gateway is not attached. */
  driverOf(networkId: number): GatewayDriver | null {
    for (const [i, id] of this.bound) if (id === networkId) return this.gateways[i]?.driver ?? null;
    return null;
  }

  /** The gateway of a network: bound to it, or attached but held for it (its RF differs). */
  gatewayFor(networkId: number): GatewayDriver | null {
    const bound = this.driverOf(networkId);
    if (bound) return bound;
    for (const [i, h] of this.held)
      if (h.networkId === networkId && !this.retired.has(i)) return this.gateways[i]?.driver ?? null;
    return null;
  }

  private networkName(id: number): string {
    return this.dir.networks().find((n) => n.id === id)?.name ?? `network ${id}`;
  }

  private boundIds(): number[] {
    return [...new Set(this.bound.values())].sort((a, b) => a - b);
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
      const held = [...this.held.values()].find((h) => h.networkId === networkId);
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

  /** What the snapshots are made of (radio-snapshots.ts). */
  private view(): RadioView {
    return {
      gateways: this.gateways,
      retired: this.retired,
      bound: this.bound,
      held: this.held,
      networks: () => this.dir.networks(),
      networkName: (id) => this.networkName(id),
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
    const first = this.boundIds()[0];
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

  /** One frame per target network, all at once; ok only if every part is. */
  async send(receiver: Addr, request: M2NRequest, opts: SendOptions = {}): Promise<TxOutcome> {
    const solo = this.solo();
    if (solo) return solo.send(receiver, request, opts);
    const ids = targetNetworks(
      receiver,
      request,
      this.boundIds(),
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
    const drivers = this.readyDrivers();
    const parts = await Promise.all(drivers.map((d) => d.discover(opts)));
    return parts.flat();
  }

  async statusBroadcast(opts: Parameters<GatewayDriver['statusBroadcast']>[0]): Promise<StatusResult[]> {
    const solo = this.solo();
    if (solo) return solo.statusBroadcast(opts);
    const drivers = this.readyDrivers();
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
    return this.boundIds().flatMap((networkId) => {
      const driver = this.driverOf(networkId);
      // A leased gateway (an RF task has it off its channel) takes no part in fleet work.
      return driver && driver.readiness().ready && !driver.offchannel?.() ? [{ networkId, driver }] : [];
    });
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

  /** Bound, connected drivers; when none is, all bound ones (their own errors then apply). */
  private readyDrivers(): GatewayDriver[] {
    const all = this.boundIds()
      .map((id) => this.driverOf(id))
      .filter((d): d is GatewayDriver => d !== null);
    const ready = all.filter((d) => d.readiness().ready && !d.offchannel?.());
    return ready.length > 0 ? ready : all;
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
    const first = this.boundIds()[0];
    return first === undefined ? fail('no gateway belongs to a network') : this.ready(first);
  }
}
