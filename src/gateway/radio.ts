/**
 * The Radio: what services use instead of the one driver when several gateways run (one
 * unchanged driver per gateway, each bound to a network). It has the driver's face, so no
 * service changes: a unicast goes through the gateway of the device's network, a group
 * send through every network with members of the group, broadcasts and discovery rounds
 * go to every network at once, and a status poll runs per network in parallel, each with
 * its own devices. A network whose gateway is not connected fails at once with an error
 * naming it: it never waits out the send queue's deadline, and never delays the others.
 *
 * With one gateway the host hands services the driver itself (no Radio): today's bytes and
 * timings, exactly.
 */
import type { Addr, M2NRequest, RfConfig } from '../protocol/types.ts';
import { TypedEmitter } from '../util/typed-emitter.ts';
import {
  aggregateMaster,
  aggregateReadiness,
  sumStats,
  targetNetworks,
  type NetworkPart,
  type RouteFacts,
} from './routing.ts';
import type {
  DriverStats,
  GatewayDriver,
  GatewayDriverEvents,
  GatewayReadiness,
  IdentifyResult,
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
  return driver instanceof Radio ? driver.legs() : null;
}

export class Radio implements GatewayDriver {
  private readonly emitter = new TypedEmitter<GatewayDriverEvents>();
  /** Gateway index → network id (unbound gateways carry no traffic). */
  private readonly bound = new Map<number, number>();
  private readonly lastHeard = new Map<Addr, number>();

  constructor(
    readonly gateways: readonly RadioGateway[],
    private readonly dir: RadioDirectory,
  ) {
    gateways.forEach((g, i) => {
      g.driver.on('packet', (p) => {
        const networkId = this.bound.get(i);
        // An unassigned gateway's packets are not ours to apply.
        if (networkId === undefined) return;
        if (p.reply?.kind === 'IDENTIFY_REPLY') this.noteHeard(p.packet.sender, networkId);
        this.emitter.emit('packet', { ...p, network_id: networkId });
      });
      g.driver.on('readiness', () => this.emitter.emit('readiness', this.readiness()));
      g.driver.on('master', () => this.emitter.emit('master', this.master()));
    });
  }

  /** Binds gateway `index` to a network (the networks service decides, see domain/networks.ts). */
  bind(index: number, networkId: number | null): void {
    if (networkId === null) this.bound.delete(index);
    else this.bound.set(index, networkId);
    this.emitter.emit('readiness', this.readiness());
  }

  networkOfGateway(index: number): number | null {
    return this.bound.get(index) ?? null;
  }

  /** The driver serving a network, or null when its gateway is not attached. */
  driverOf(networkId: number): GatewayDriver | null {
    for (const [i, id] of this.bound) if (id === networkId) return this.gateways[i]?.driver ?? null;
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
    if (!d) return fail(`gateway of ${this.networkName(networkId)} is not connected`);
    if (!d.readiness().ready) return fail(`gateway of ${this.networkName(networkId)} is not ready`);
    return d;
  }

  private unicastDriver(addr: Addr): GatewayDriver | Failure {
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
    await Promise.all(this.gateways.map((g) => g.driver.retry()));
    return this.readiness();
  }

  /** One part per configured gateway, plus one per network whose gateway is not attached. */
  private parts<T>(value: (d: GatewayDriver) => T, missing: (mac: string) => T): NetworkPart<T>[] {
    const parts: NetworkPart<T>[] = this.gateways.map((g, i) => {
      const id = this.bound.get(i);
      return {
        networkId: id ?? 0,
        name: id !== undefined ? this.networkName(id) : `gateway on ${g.label}`,
        value: value(g.driver),
      };
    });
    const attached = new Set(this.bound.values());
    for (const n of this.dir.networks()) {
      if (n.gateway_mac !== null && !attached.has(n.id))
        parts.push({ networkId: n.id, name: n.name, value: missing(n.gateway_mac) });
    }
    return parts;
  }

  readiness(): ReturnType<typeof aggregateReadiness> {
    const agg = aggregateReadiness(
      this.parts(
        (d) => d.readiness(),
        (mac) => ({
          ready: false,
          last_error: `gateway ${mac} not connected`,
          failure_count: 0,
          transport: this.gateways[0]?.driver.readiness().transport ?? 'sim',
          port: null,
          gateway_mac: mac,
          next_retry_in_s: null,
        }),
      ),
    );
    // A connected gateway that belongs to no network carries no traffic: not ready.
    const unassigned = this.gateways.findIndex((g, i) => !this.bound.has(i) && g.driver.readiness().ready);
    if (unassigned >= 0 && agg.ready) {
      return {
        ...agg,
        ready: false,
        last_error: `gateway on ${this.gateways[unassigned]?.label ?? '?'} belongs to no network`,
      };
    }
    return agg;
  }

  master(): ReturnType<typeof aggregateMaster> {
    return aggregateMaster(
      this.parts(
        (d) => ({ ...d.master(), ready: d.readiness().ready }),
        () => ({
          state: 'UNKNOWN',
          state_byte: 0xff,
          state_metadata_ms: 0,
          last_event: null,
          last_event_ts: 0,
          last_error: null,
          ready: false,
        }),
      ),
    );
  }

  stats(): DriverStats {
    return sumStats(this.gateways.map((g) => g.driver.stats()));
  }

  /** The first network's settings: pacing and estimates assume one modulation for all. */
  radioSettings(): { rf: RfConfig; source: 'gateway' | 'default' } {
    const first = this.boundIds()[0];
    const d = (first !== undefined ? this.driverOf(first) : null) ?? this.gateways[0]?.driver;
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
    const answers = await Promise.all(this.gateways.map((g) => g.driver.queryState()));
    const m = this.master();
    return {
      ok: answers.every((a) => a.ok),
      state: m.state,
      state_byte: m.state_byte,
      state_metadata_ms: m.state_metadata_ms,
    };
  }

  // ── traffic ──

  /** One frame per target network, all at once; ok only if every part is. */
  async send(receiver: Addr, request: M2NRequest, opts: SendOptions = {}): Promise<TxOutcome> {
    const ids = targetNetworks(
      receiver,
      request,
      this.boundIds(),
      this.dir,
      (a) => this.lastHeard.get(a) ?? null,
    );
    if (ids.length === 0) {
      return fail(receiver === 'FFFFFF' ? 'no gateway is connected' : `no network knows device ${receiver}`);
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
    const drivers = this.readyDrivers();
    const parts = await Promise.all(drivers.map((d) => d.discover(opts)));
    return parts.flat();
  }

  async statusBroadcast(opts: Parameters<GatewayDriver['statusBroadcast']>[0]): Promise<StatusResult[]> {
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
    const first = this.boundIds()[0];
    return first === undefined ? fail('no gateway belongs to a network') : this.ready(first);
  }
}
