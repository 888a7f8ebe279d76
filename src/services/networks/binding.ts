/**
 * Binding each attached gateway to its network (design §2.2) and keeping the runtime bind
 * state the routes show: bound · conflict · unassigned (attached, no network claims it) ·
 * pending (not identified yet). A network whose gateway MAC is attached nowhere is missing.
 *
 * Decided on every identify (the Radio calls `onReadiness` before anyone else hears of the
 * change) and re-run on every assignment: a network naming the MAC takes it; its radio
 * settings are adopted at first contact, equal settings bind, different settings are a
 * conflict (no traffic) — except while the network migrates, when the gateway may be on
 * either side. On an empty data folder every gateway found becomes its own network; a
 * migrated single-gateway install binds to its one gateway; anything else waits for the
 * operator (assign), and an unassigned gateway never carries traffic.
 */
import type { Radio } from '../../gateway/radio/radio.ts';
import type { GatewayDriver, GatewayReadiness } from '../../gateway/types.ts';
import type { Logger } from '../../logger.ts';
import type { Addr, RfConfig } from '../../protocol/types.ts';
import { bindGateway, nextNetworkId, normalizeGatewayMac, type Network } from '../../domain/networks.ts';
import { checkSeparation, describeRf, rfDifferences, sameRf } from '../../domain/rf-channels.ts';
import type { Store } from '../../state/store.ts';
import { uniqueNetworkName } from './records.ts';

export type BindState = 'pending' | 'bound' | 'conflict' | 'unassigned';

export interface GatewaySlot {
  driver: GatewayDriver;
  /** Port or address the gateway was opened on. */
  label: string;
  /** The MAC it identified with last (kept while it reconnects). */
  mac: string | null;
  state: BindState;
  networkId: number | null;
  /** Unknown nodes heard announcing through it while it carries no traffic. */
  heard: Set<Addr>;
  /** Why it carries no traffic (null while bound or pending). */
  reason: string | null;
  /** Replaced by the same board on another port: stopped, listed nowhere. */
  retired: boolean;
}

/** Bounded: a gateway in a crowd of strangers does not grow memory without end. */
const HEARD_MAX = 4096;

export class GatewayBinder {
  readonly slots: GatewaySlot[] = [];
  private fresh = false;
  private readonly listeners = new Set<() => void>();
  private readonly warned = new Set<string>();
  /** MACs the operator released: never bound again by themselves, only by an assignment. */
  private readonly released = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly radio: Radio,
    private readonly log: Logger,
    private readonly knownAddr: (addr: Addr) => boolean,
  ) {}

  /** Decided once the state is loaded, before anything is bound. */
  start(): () => void {
    this.fresh =
      this.store.state.devices.length === 0 && this.store.state.networks.every((n) => n.gateway_mac === null);
    this.radio.setBinder((i, r) => this.onReadiness(i, r));
    const offs = this.radio.gateways.map((g, i) => this.watch(g.driver, g.label, i));
    return () => {
      this.radio.setBinder(null);
      offs.forEach((off) => off());
    };
  }

  /** A gateway added to the Radio while running (rescan). */
  added(index: number): () => void {
    const g = this.radio.gateways[index];
    if (!g) return () => undefined;
    // Nothing found at start (all free): a gateway found later is not "fresh" any more.
    this.fresh = false;
    return this.watch(g.driver, g.label, index);
  }

  /** Bind state changed (for the SSE `networks` event). */
  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }

  private watch(driver: GatewayDriver, label: string, index: number): () => void {
    this.slots[index] = {
      driver,
      label,
      mac: null,
      state: 'pending',
      networkId: null,
      heard: new Set(),
      reason: null,
      retired: false,
    };
    // Announcements through a gateway that carries no traffic: how many unknown nodes it hears
    // (the Assign dialog shows it). The Radio does not forward them.
    return driver.on('packet', (p) => {
      const slot = this.slots[index];
      if (!slot || slot.state === 'bound' || p.reply?.kind !== 'IDENTIFY_REPLY') return;
      const addr = p.packet.sender;
      if (slot.heard.size < HEARD_MAX && !this.knownAddr(addr)) {
        const before = slot.heard.size;
        slot.heard.add(addr);
        if (slot.heard.size !== before) this.changed();
      }
    });
  }

  private onReadiness(index: number, r: GatewayReadiness): void {
    const slot = this.slots[index];
    if (!slot) return;
    const mac = r.ready ? normalizeGatewayMac(r.gateway_mac) : null;
    if (mac) {
      if (slot.mac !== mac) slot.heard.clear();
      slot.mac = mac;
      this.evaluate(index);
      // The start is over once every gateway found at start has identified itself once.
      if (this.slots.every((s) => s.mac !== null)) this.fresh = false;
    }
    // Readiness is news too (pills, unreachable devices), bound or not.
    this.changed();
  }

  /** The gateway's radio settings as it reported them (null until it did). */
  rfOf(slot: GatewaySlot): RfConfig | null {
    const s = slot.driver.radioSettings();
    return s.source === 'gateway' ? s.rf : null;
  }

  /** Re-runs the binding of every identified gateway (after an assignment, a reload). */
  evaluateAll(): void {
    this.fresh = false;
    this.slots.forEach((s, i) => {
      if (s.mac) this.evaluate(i);
    });
  }

  /** The binding decision for one identified gateway; applies it to the Radio. */
  evaluate(index: number): void {
    const slot = this.slots[index];
    if (!slot?.mac) return;
    const mac = slot.mac;
    const rf = this.rfOf(slot);
    const before = `${slot.state}/${slot.networkId}`;
    const networks = this.store.state.networks;
    // Two ports answering with one MAC: the first keeps the network, the other carries nothing.
    const twin = this.slots.findIndex((s, i) => i !== index && s.mac === mac && s.state !== 'unassigned');
    if (twin >= 0 && this.slots[twin]?.driver.readiness().ready) {
      this.hold(index, slot, null, `gateway ${mac} answers on two ports: this one carries no traffic`);
      this.log.error({ gateway_mac: mac, port: slot.label }, 'two gateways answer with the same MAC');
      this.report(before, slot);
      return;
    }
    let decision = bindGateway(networks, mac, this.slots.filter((s) => s.mac !== null).length);
    if (decision.kind === 'adopt' && this.released.has(mac)) decision = { kind: 'unassigned' };
    if (decision.kind === 'unassigned' && this.fresh && !this.released.has(mac)) {
      const free = networks.find((n) => n.gateway_mac === null);
      decision = { kind: 'adopt', networkId: free ? free.id : 0 };
    }
    if (decision.kind === 'unassigned') {
      this.hold(index, slot, null, `gateway ${mac} on ${slot.label} belongs to no network (assign it)`);
      if (!this.warned.has(mac)) {
        this.warned.add(mac);
        this.log.warn(
          { gateway_mac: mac, port: slot.label },
          'gateway belongs to no network: it carries no traffic',
        );
      }
      this.report(before, slot);
      return;
    }
    const net = this.claim(decision.networkId, mac, rf);
    const expected = net.rf;
    const accepted =
      expected === null ||
      rf === null ||
      sameRf(expected, rf) ||
      (net.migration !== null && (sameRf(net.migration.from, rf) || sameRf(net.migration.to, rf)));
    if (!accepted && expected && rf) {
      const fields = rfDifferences(expected, rf);
      this.hold(
        index,
        slot,
        net.id,
        `gateway ${mac} is on ${describeRf(rf)}, ${net.name} is on ${describeRf(expected)} (${fields.join(', ')} differ): resolve the conflict`,
      );
      slot.state = 'conflict';
      this.report(before, slot);
      return;
    }
    // The same gateway back on another port (found by a rescan): the old driver, still
    // retrying its dead port, is retired so the network is served by the live one.
    this.slots.forEach((other, i) => {
      if (i === index || other.mac !== mac) return;
      this.radio.retire(i);
      other.mac = null;
      other.state = 'pending';
      other.networkId = null;
      other.reason = null;
      other.retired = true;
      this.log.info({ gateway_mac: mac, from: other.label, to: slot.label }, 'gateway back on another port');
    });
    slot.state = 'bound';
    slot.reason = null;
    slot.networkId = net.id;
    slot.heard.clear();
    this.radio.bind(index, net.id);
    this.report(before, slot);
  }

  private hold(index: number, slot: GatewaySlot, networkId: number | null, reason: string): void {
    slot.state = 'unassigned';
    slot.networkId = networkId;
    slot.reason = reason;
    this.radio.bind(index, null, { networkId, reason });
  }

  private report(before: string, slot: GatewaySlot): void {
    const after = `${slot.state}/${slot.networkId}`;
    if (after === before) return;
    this.log.info(
      { gateway_mac: slot.mac, port: slot.label, state: slot.state, network: slot.networkId },
      `gateway ${slot.state}`,
    );
    this.changed();
  }

  /**
   * The network record that takes `mac` (0 = a new network), with its MAC and, at first
   * contact, the gateway's settings written and fsynced by the store's queue.
   */
  private claim(networkId: number, mac: string, rf: RfConfig | null): Network {
    const existing = this.store.state.networks.find((n) => n.id === networkId);
    if (existing && existing.gateway_mac === mac && (existing.rf !== null || rf === null)) return existing;
    return this.store.mutate(['NETWORKS'], (state) => {
      let n = state.networks.find((x) => x.id === networkId);
      if (!n) {
        const id = nextNetworkId(state.networks, state.next_ids?.networks);
        n = { id, name: uniqueNetworkName(state.networks, id), gateway_mac: null, rf: null, migration: null };
        state.networks.push(n);
        state.next_ids = { native_presets: 0, scenes: 0, ...state.next_ids, networks: id + 1 };
      }
      n.gateway_mac = mac;
      if (n.rf === null && rf !== null) {
        const clash = checkSeparation(n.id, rf, state.networks);
        if (clash)
          this.log.warn(
            { network: n.id, other: clash.other.name, distance_hz: clash.distanceHz },
            `${n.name} and ${clash.other.name} are too close to share the air (found on the gateways as they are)`,
          );
        n.rf = { ...rf };
      }
      this.log.debug({ network: n.id, name: n.name, gateway_mac: mac }, 'gateway bound to its network');
      return n;
    });
  }

  /** The operator released this MAC (it stays unassigned until assigned again). */
  release(mac: string): void {
    this.released.add(mac);
  }

  /** The operator assigned this MAC. */
  assigned(mac: string): void {
    this.released.delete(mac);
  }

  /** The slot of an attached gateway by MAC. */
  slotOf(mac: string): { slot: GatewaySlot; index: number } | null {
    const i = this.slots.findIndex((s) => s.mac === mac);
    const slot = this.slots[i];
    return slot ? { slot, index: i } : null;
  }

  /** The attached slot serving (or held for) a network. */
  slotOfNetwork(networkId: number): { slot: GatewaySlot; index: number } | null {
    const i = this.slots.findIndex((s) => s.networkId === networkId && s.mac !== null);
    const slot = this.slots[i];
    return slot ? { slot, index: i } : null;
  }
}
