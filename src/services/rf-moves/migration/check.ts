/** Checking an `rf_migration` request before the task starts (400s name the field or the other network). */
import { checkSeparation, describeRf, invalidRfField, sameRf } from '../../../domain/rf-channels.ts';
import { ValidationError } from '../../../errors.ts';
import type { RfConfig } from '../../../protocol/types.ts';
import { homeRf, networkOf, readyGateway, type RfMovesDeps } from '../common.ts';

export interface MigrateRequest {
  networkId: number;
  to: RfConfig;
  offline: 'skip' | 'abort';
}

/** Checks a request; returns the old channel (400s name the field or the other network). */
export function checkMigration(deps: RfMovesDeps, req: MigrateRequest): { from: RfConfig } {
  const net = networkOf(deps.store, req.networkId);
  const bad = invalidRfField(req.to);
  if (bad) throw new ValidationError(`rf.${bad}: outside the firmware's limits`);
  if (net.migration && !sameRf(net.migration.to, req.to))
    throw new ValidationError(
      `rf: ${net.name} is being moved to ${describeRf(net.migration.to)} already (a resumed migration finishes that first)`,
    );
  const gw = readyGateway(deps, net);
  const from = net.migration?.from ?? homeRf(net, gw);
  if (!net.migration && sameRf(from, req.to))
    throw new ValidationError(`rf: ${net.name} is on ${describeRf(from)} already`);
  const clash = checkSeparation(net.id, req.to, deps.store.state.networks);
  if (clash)
    throw new ValidationError(
      `rf: ${describeRf(req.to)} is too close to network ${clash.other.name} (${(clash.distanceHz / 1000).toFixed(0)} kHz apart, ${(clash.requiredHz / 1000).toFixed(0)} kHz needed): ${net.name} and ${clash.other.name} would share the air`,
    );
  if (req.offline === 'abort') {
    const off = deps.store.state.devices.filter(
      (d) => d.network_id === net.id && deps.registry.linkState(d) === 'offline',
    );
    if (off.length > 0)
      throw new ValidationError(
        `offline: ${off.length} device(s) of ${net.name} are offline (${off
          .slice(0, 8)
          .map((d) => d.addr)
          .join(
            ', ',
          )}${off.length > 8 ? ', …' : ''}); they would stay on the old channel — bring them online or pass offline: "skip"`,
      );
  }
  return { from };
}
