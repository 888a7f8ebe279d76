/**
 * The registry's inbound rules with several networks (one gateway per network): which
 * replies and announcements heard by one network's gateway may touch a device stored on
 * another. A 6-hex address is only unique within a network; the full MAC in an IDENTIFY
 * is the only proof that two sightings are the same node.
 */
import type { Clock } from '../../../clock.ts';
import type { Device } from '../../../domain/model.ts';
import type { Logger } from '../../../logger.ts';
import type { Addr } from '../../../protocol/types.ts';
import type { NetworkAlerts } from './network-alerts.ts';

export interface NetworkRulesCtx {
  log: Logger;
  clock: Clock;
  alerts: NetworkAlerts;
}

/**
 * Several gateways: a reply heard on another network than the device's carries no MAC to
 * prove it is this node (two networks may share a 6-hex address): not applied.
 */
export function replyFromForeignNetwork(
  ctx: NetworkRulesCtx,
  d: Device,
  addr: Addr,
  via: number | undefined,
): boolean {
  if (via !== undefined && via !== d.network_id) {
    ctx.log.debug({ addr, via, network: d.network_id }, 'reply via another network ignored');
    return true;
  }
  return false;
}

/**
 * Several gateways: another node (another full MAC) with this 6-hex address on another
 * network. The stored row stays whose it is; nothing is overwritten (true: not applied).
 */
export function addressClash(
  ctx: NetworkRulesCtx,
  d: Device | undefined,
  addr: Addr,
  mac: string,
  via: number | undefined,
): boolean {
  if (d && via !== undefined && d.network_id !== via && d.full_mac !== null && d.full_mac !== mac) {
    ctx.log.warn(
      { addr, mac, stored_mac: d.full_mac, via, network: d.network_id },
      'address clash: another node with this address on another network (not applied)',
    );
    ctx.alerts.add({
      kind: 'addr_clash',
      addr,
      mac: d.full_mac,
      other_mac: mac,
      from_network: d.network_id,
      to_network: via,
      ts: ctx.clock.now() / 1000,
    });
    return true;
  }
  return false;
}

/**
 * The same node (same full MAC) now answers on another network's gateway: it lives on
 * that channel now, so the host follows the hardware (its group is kept: groups span
 * networks). Another full MAC on the same address is not this node: never moved here.
 * Returns whether the device moved (its network_id is updated).
 */
export function followMove(
  ctx: NetworkRulesCtx,
  dev: Device,
  addr: Addr,
  mac: string,
  via: number | undefined,
): boolean {
  const moved = via !== undefined && dev.network_id !== via && dev.full_mac === mac;
  if (moved) {
    ctx.log.warn({ addr, from: dev.network_id, to: via }, 'device now heard on another network: moved');
    ctx.alerts.add({
      kind: 'moved',
      addr,
      mac,
      other_mac: null,
      from_network: dev.network_id,
      to_network: via,
      ts: ctx.clock.now() / 1000,
    });
    dev.network_id = via;
  }
  return moved;
}
