/**
 * What the RF tasks share: their dependencies, the network and its gateway, the lease
 * around off-channel work (gateway/lease.ts) and the way home — a volatile retune back to
 * the network's channel verified by reading the gateway's active settings, tried a few
 * times, which every task runs in `finally` whatever happened (cancel, error, a Blackout).
 */
import type { Clock } from '../../clock.ts';
import type { Device, RfSeen } from '../../domain/model.ts';
import type { Network } from '../../domain/networks.ts';
import { describeRf, sameRf } from '../../domain/rf-channels.ts';
import { NotFoundError, UnavailableError } from '../../errors.ts';
import type { DriverLease, LeasableDriver } from '../../gateway/lease.ts';
import type { GatewayDriver } from '../../gateway/types.ts';
import type { Logger } from '../../logger.ts';
import type { Addr, RfConfig } from '../../protocol/types.ts';
import type { Store } from '../../state/store.ts';
import type { TaskManager } from '../../tasks/task-manager.ts';
import type { DeviceRegistry, RecoveryService } from '../devices/index.ts';

export interface RfMovesDeps {
  store: Store;
  tasks: TaskManager;
  clock: Clock;
  log: Logger;
  registry: DeviceRegistry;
  recovery: RecoveryService;
  /** The routed driver services use (the network's gateway for a unicast). */
  driver: GatewayDriver;
  /** The gateway serving a network now (with one gateway: that one), or null when not attached. */
  gatewayOf(networkId: number): LeasableDriver | null;
}

export function networkOf(store: Store, id: number): Network {
  const n = store.state.networks.find((x) => x.id === id);
  if (!n) throw new NotFoundError(`network ${id} does not exist`);
  return n;
}

/** The network's attached, ready gateway, or a 503 naming the network. */
export function readyGateway(deps: RfMovesDeps, net: Network): LeasableDriver {
  const g = deps.gatewayOf(net.id);
  if (!g) throw new UnavailableError(`the gateway of ${net.name} is not connected`);
  if (!g.readiness().ready) throw new UnavailableError(`the gateway of ${net.name} is not ready`);
  if (g.offchannel()) throw new UnavailableError(`the gateway of ${net.name} is busy: ${g.offchannel()}`);
  return g;
}

/** The network's channel: its record, else what its gateway reports. */
export function homeRf(net: Network, g: LeasableDriver): RfConfig {
  return net.rf ?? g.radioSettings().rf;
}

export function takeLease(g: LeasableDriver, net: Network, what: string, task: string): DriverLease {
  return g.lease(`offchannel: the gateway of ${net.name} is ${what} (task ${task})`);
}

/** Volatile retune, verified by reading the active settings back. */
export async function tuneVolatile(face: GatewayDriver, rf: RfConfig): Promise<string | null> {
  const set = await face.setGatewayRf(rf, false);
  if (!set.ok) return set.detail;
  const got = await face.getGatewayRf();
  if (!got.ok) return got.detail;
  return sameRf(got.value, rf) ? null : `the gateway reports ${describeRf(got.value)}`;
}

/** The way home, in `finally`: up to 3 tries; returns an error text when it failed. */
export async function goHome(face: GatewayDriver, home: RfConfig, log: Logger): Promise<string | null> {
  let last: string | null = null;
  for (let i = 0; i < 3; i++) {
    last = await tuneVolatile(face, home);
    if (last === null) return null;
  }
  log.error({ home, error: last }, 'the gateway did not return to its network channel');
  return `the gateway did not return to ${describeRf(home)}: ${last ?? ''}`;
}

export const rfSeen = (rf: RfConfig, clock: Clock, how: RfSeen['how']): RfSeen => ({
  rf: { ...rf },
  ts: Math.round(clock.now() / 1000),
  how,
});

/** Sets rf_seen on known devices in one change. */
export function recordSeen(deps: RfMovesDeps, entries: readonly { addr: Addr; seen: RfSeen }[]): void {
  const changed: Device[] = [];
  for (const e of entries) {
    const d = deps.registry.find(e.addr);
    if (!d) continue;
    d.rf_seen = e.seen;
    changed.push(d);
  }
  if (changed.length) deps.store.changed(['DEVICES'], 'soon', changed);
}

export const channelText = (rf: RfConfig): string => describeRf(rf);

/** Sleeps on the clock; a cancel ends it at once (the caller's checkpoint throws). */
export const pause = (clock: Clock, ms: number, signal: AbortSignal): Promise<void> =>
  clock.sleep(ms, signal).catch(() => undefined);
