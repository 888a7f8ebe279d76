/**
 * A gateway's lease: an RF task (channel scan, rescue, migration) takes its network's
 * gateway off the network's home channel, so for that time nobody else may use it. While
 * a lease is held, every ordinary request through that gateway fails at once with reason
 * `offchannel` and a text naming the network and the task (never a wait on the send
 * queue's deadline: the nodes it would reach are not on the channel the gateway listens
 * to); urgent traffic (Blackout, a race start) waits for the release instead, which the
 * holder gives in `finally` right after putting the channel back. Packets heard meanwhile
 * are tagged `offchannel`: the registry does not apply them (the task reads them).
 *
 * The holder talks to the gateway through `lease.driver`, the same driver face with the
 * lease's token on every request.
 */
import type { GatewayDriver, Reply, SendOptions } from './types.ts';
import type { RfConfig } from '../protocol/types.ts';

/** Opaque: only the holder's face carries it. */
export interface LeaseToken {
  readonly detail: string;
}

export interface DriverLease {
  /** The gateway for the holder: every request passes the gate. */
  readonly driver: GatewayDriver;
  readonly token: LeaseToken;
  /** Idempotent. */
  release(): void;
}

/** The per-driver gate (driver.ts owns one). */
export class LeaseGate {
  private held: { token: LeaseToken; released: Promise<void>; done: () => void } | null = null;

  /** The lease's text while one is held (why ordinary traffic fails), else null. */
  get detail(): string | null {
    return this.held?.token.detail ?? null;
  }

  /** Throws when a lease is held already: one RF task per gateway (the task slot ensures it). */
  acquire(detail: string): LeaseToken {
    if (this.held) throw new Error(`gateway already leased: ${this.held.token.detail}`);
    const token: LeaseToken = { detail };
    let done = (): void => {};
    const released = new Promise<void>((r) => (done = r));
    this.held = { token, released, done };
    return token;
  }

  release(token: LeaseToken): void {
    if (this.held?.token !== token) return;
    const h = this.held;
    this.held = null;
    h.done();
  }

  /** Whether a request with these options may pass now. */
  passes(opts: { lease?: LeaseToken } | undefined): boolean {
    return this.held === null || opts?.lease === this.held.token;
  }

  /** Resolves when the current lease (if any) is released. */
  whenReleased(): Promise<void> {
    return this.held?.released ?? Promise.resolve();
  }
}

/** What a driver offers for leasing (the real driver does; the Radio hands out its drivers). */
export interface LeasableDriver extends GatewayDriver {
  lease(detail: string): DriverLease;
  /** The lease's text while one is held, else null. */
  offchannel(): string | null;
  getGatewayRf(opts?: { lease?: LeaseToken }): Promise<Reply<RfConfig>>;
  setGatewayRf(
    rf: RfConfig,
    persist: boolean,
    opts?: { lease?: LeaseToken },
  ): Promise<Reply<{ reason: number; rf: RfConfig }>>;
}

/** The holder's face: the driver with the token added to every request. */
export function leasedFace(d: LeasableDriver, token: LeaseToken): GatewayDriver {
  const t = <O extends SendOptions | undefined>(o: O): SendOptions => ({ ...o, lease: token });
  return {
    start: () => d.start(),
    stop: () => d.stop(),
    retry: () => d.retry(),
    readiness: () => d.readiness(),
    master: () => d.master(),
    stats: () => d.stats(),
    radioSettings: () => d.radioSettings(),
    on: (event, listener) => d.on(event, listener),
    queryState: () => d.queryState(),
    send: (receiver, request, opts) => d.send(receiver, request, t(opts)),
    discover: (opts) => d.discover({ ...opts, lease: token }),
    statusBroadcast: (opts) => d.statusBroadcast({ ...opts, lease: token }),
    statusUnicast: (addr, groupId, opts) => d.statusUnicast(addr, groupId, { ...opts, lease: token }),
    setGroup: (addr, groupId, opts) => d.setGroup(addr, groupId, { ...opts, lease: token }),
    config: (addr, option, data, opts) => d.config(addr, option, data, { ...opts, lease: token }),
    getConfig: (addr, option, opts) => d.getConfig(addr, option, { ...opts, lease: token }),
    stream: (addr, payload, opts) => d.stream(addr, payload, t(opts)),
    getGatewayRf: () => d.getGatewayRf({ lease: token }),
    setGatewayRf: (rf, persist) => d.setGatewayRf(rf, persist, { lease: token }),
  };
}

export const isLeasable = (d: GatewayDriver): d is LeasableDriver =>
  typeof (d as Partial<LeasableDriver>).lease === 'function';
