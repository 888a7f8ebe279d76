/**
 * The driver's gateway (USB-only) commands: the state query and reading or setting the
 * gateway's RF config. They bypass the send queue (nothing goes on the air), but a held
 * lease still refuses them to anyone but its holder.
 */
import { encodeHostCommand } from '../protocol/commands.ts';
import { RF_REASON, type RfConfig } from '../protocol/types.ts';
import type { ConnectionManager } from './connection.ts';
import { rfRefusalDetail } from './rf.ts';
import type { LeaseGate, LeaseToken } from './lease.ts';
import type { MasterState } from './master-state.ts';
import type { DriverLog } from './operations.ts';
import type { DriverOptions } from './options.ts';
import type { GatewaySession } from './session.ts';
import type { Reply } from './types.ts';
import { errText } from '../util/err-text.ts';

export interface GatewayCommandDeps {
  options: Readonly<DriverOptions>;
  log: DriverLog;
  leases: LeaseGate;
  conn: ConnectionManager;
  session: GatewaySession;
  mirror: MasterState;
}

export class GatewayCommands {
  constructor(private readonly deps: GatewayCommandDeps) {}

  async queryState(): Promise<{ ok: boolean; state: string; state_byte: number; state_metadata_ms: number }> {
    const { conn, session, options, mirror } = this.deps;
    const ok = conn.isReady && (await session.queryState(options.stateQueryMs));
    const m = mirror.snapshot();
    return { ok, state: m.state, state_byte: m.state_byte, state_metadata_ms: m.state_metadata_ms };
  }

  private leaseRefusal(opts?: { lease?: LeaseToken }): Reply<never> | null {
    const { leases } = this.deps;
    return leases.passes(opts) ? null : { ok: false, reason: 'offchannel', detail: leases.detail ?? '' };
  }

  async getGatewayRf(opts?: { lease?: LeaseToken }): Promise<Reply<RfConfig>> {
    const refused = this.leaseRefusal(opts);
    if (refused) return refused;
    const { conn, session, options } = this.deps;
    if (!conn.isReady) return { ok: false, reason: 'link_down', detail: conn.notReadyDetail };
    const r = await session.rfCommand({ kind: 'get_rf' }, options.gatewayRfMs);
    return r.ok ? { ok: true, value: r.value.rf } : r;
  }

  async setGatewayRf(
    rf: RfConfig,
    persist: boolean,
    opts?: { lease?: LeaseToken },
  ): Promise<Reply<{ reason: number; rf: RfConfig }>> {
    const refused = this.leaseRefusal(opts);
    if (refused) return refused;
    try {
      encodeHostCommand({ kind: 'set_rf', persist, rf });
    } catch (err) {
      return { ok: false, reason: 'invalid', detail: `gateway RF config: ${errText(err)}` };
    }
    const { conn, session, options, log } = this.deps;
    if (!conn.isReady) return { ok: false, reason: 'link_down', detail: conn.notReadyDetail };
    const r = await session.rfCommand({ kind: 'set_rf', persist, rf }, options.gatewayRfMs);
    if (!r.ok) return r;
    if (r.value.reason !== RF_REASON.OK) {
      return { ok: false, reason: 'rejected', detail: rfRefusalDetail(r.value.reason, r.value.rf) };
    }
    if (persist) {
      // The gateway stored the config and reboots 100 ms after answering (§3.3). Native USB
      // boards drop the link, but on UART-bridge boards (CP2102) the port stays open and
      // the reboot would go unnoticed: reconnect (and re-identify) in any case.
      log.info({ rf: r.value.rf }, 'gateway RF config persisted; reconnecting after its reboot');
      await conn.reconnect('gateway rebooting after a persisted RF change');
    }
    return r;
  }
}
