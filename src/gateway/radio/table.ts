/**
 * The Radio's gateway table: which gateway (by index, in the order attached) serves which
 * network, which are held (attached but carrying no traffic, and why), and which were
 * retired (replaced by the same board on another port). Bookkeeping only: the Radio routes
 * and emits; the networks service decides the bindings (services/networks/binding.ts).
 */
import type { GatewayDriver } from '../types.ts';

export interface RadioGateway {
  driver: GatewayDriver;
  /** The port or address, to name a gateway that has no network yet. */
  label: string;
}

/** Why an attached gateway carries no traffic (the networks service decides, see binding.ts). */
export interface GatewayHold {
  /** The network it would serve (a conflict), or null (it belongs to no network). */
  networkId: number | null;
  reason: string;
}

export class GatewayTable {
  readonly gateways: RadioGateway[] = [];
  /** Gateway index → network id (unbound gateways carry no traffic). */
  readonly bound = new Map<number, number>();
  /** Attached gateways that carry no traffic, and why. */
  readonly held = new Map<number, GatewayHold>();
  /** Drivers replaced by the same gateway on another port: stopped, out of every snapshot. */
  readonly retired = new Set<number>();

  /** Returns the new gateway's index. */
  add(g: RadioGateway): number {
    this.gateways.push(g);
    return this.gateways.length - 1;
  }

  set(index: number, networkId: number | null, hold?: GatewayHold): void {
    if (networkId === null) this.bound.delete(index);
    else this.bound.set(index, networkId);
    if (networkId === null && hold) this.held.set(index, hold);
    else this.held.delete(index);
  }

  /** Takes a gateway out for good; returns its driver (the caller stops it). */
  retire(index: number): GatewayDriver | null {
    this.bound.delete(index);
    this.held.delete(index);
    this.retired.add(index);
    return this.gateways[index]?.driver ?? null;
  }

  live(): RadioGateway[] {
    return this.gateways.filter((_, i) => !this.retired.has(i));
  }

  /** The index of the one gateway in service, or null when there are several (or none). */
  soleLive(): number | null {
    let only: number | null = null;
    for (let i = 0; i < this.gateways.length; i++) {
      if (this.retired.has(i)) continue;
      if (only !== null) return null;
      only = i;
    }
    return only;
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

  /** Why a network's attached gateway is held, or null. */
  holdOf(networkId: number): GatewayHold | null {
    return [...this.held.values()].find((h) => h.networkId === networkId) ?? null;
  }

  boundIds(): number[] {
    return [...new Set(this.bound.values())].sort((a, b) => a - b);
  }

  /** Bound, connected gateways not leased off their channel: one fleet-task leg each. */
  legs(): { networkId: number; driver: GatewayDriver }[] {
    return this.boundIds().flatMap((networkId) => {
      const driver = this.driverOf(networkId);
      // A leased gateway (an RF task has it off its channel) takes no part in fleet work.
      return driver && driver.readiness().ready && !driver.offchannel?.() ? [{ networkId, driver }] : [];
    });
  }

  /** Bound, connected drivers; when none is, all bound ones (their own errors then apply). */
  readyDrivers(): GatewayDriver[] {
    const all = this.boundIds()
      .map((id) => this.driverOf(id))
      .filter((d): d is GatewayDriver => d !== null);
    const ready = all.filter((d) => d.readiness().ready && !d.offchannel?.());
    return ready.length > 0 ? ready : all;
  }
}
