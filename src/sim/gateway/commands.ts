/**
 * The gateway's command dispatcher (§2.6, §3): what each decoded host frame does, and the
 * rules by which an M2N frame takes the TX slot or is turned away (UNKNOWN for a STREAM
 * while a STREAM is in flight, TXPENDING for anything else while the slot is busy), with
 * STREAM bodies cut into air fragments and followed by an RX window.
 */
import {
  BROADCAST,
  OPC,
  RF_REASON,
  TX_REJECT,
  type GatewayCommand,
  type GatewayInbound,
  type RfConfig,
} from '../../protocol/types.ts';
import { encodeIdentifyAnswer } from '../../protocol/framing.ts';
import { fragmentStream } from '../../protocol/stream.ts';
import type { GatewayStats, GatewayTiming } from './parts.ts';
import type { GatewaySync } from './sync.ts';
import { airPacket, type TxSlot } from './tx.ts';

export interface GatewayCommandHost {
  readonly mac: string;
  readonly addr: string;
  readonly stats: GatewayStats;
  readonly timing: GatewayTiming;
  readonly tx: TxSlot;
  readonly sync: GatewaySync;
  /** Raw bytes to the host (the identify answer is not a framed event). */
  write(bytes: Uint8Array): void;
  emit(ev: GatewayInbound): void;
  stateReport(): { state: number; metadataMs: number };
  rf(): RfConfig;
  /** RF changes touch the NVS copy and may reboot the gateway, so SimGateway keeps them. */
  setRf(persistFlag: number, rf: RfConfig): void;
  /** Reports what became of an M2N frame (observability only). */
  noteM2N(
    typeFull: number,
    receiver: string,
    body: Uint8Array,
    outcome: 'tx' | 'rejected' | 'deferred',
  ): void;
}

export class GatewayCommands {
  constructor(private readonly host: GatewayCommandHost) {}

  dispatch(cmd: GatewayCommand): void {
    const { host } = this;
    switch (cmd.kind) {
      case 'identify':
        host.write(encodeIdentifyAnswer(host.mac));
        return;
      case 'state_request':
        host.emit({ kind: 'state', report: true, ...host.stateReport() });
        return;
      case 'get_rf':
        host.emit({ kind: 'rf_changed', reason: RF_REASON.OK, rf: host.rf() });
        return;
      case 'set_rf':
        host.setRf(cmd.persistFlag, cmd.rf);
        return;
      case 'm2n':
        this.onM2N(cmd.typeFull, cmd.receiver, cmd.body);
        return;
    }
  }

  private onM2N(typeFull: number, receiver: string, body: Uint8Array): void {
    const { host } = this;
    const op = typeFull & 0x7f;
    if (op === OPC.PRESET || op === OPC.SYNC) host.sync.noteBrightness(body[3]);
    if (op === OPC.STREAM && host.tx.busyWithStream) {
      host.noteM2N(typeFull, receiver, body, 'rejected');
      this.reject(typeFull, TX_REJECT.UNKNOWN);
      return;
    }
    if (host.tx.busy) {
      host.noteM2N(typeFull, receiver, body, op === OPC.SYNC ? 'deferred' : 'rejected');
      this.reject(typeFull, TX_REJECT.TXPENDING);
      if (op === OPC.SYNC) host.sync.deferRetry(body[3] ?? 0, body[4] ?? 0);
      return;
    }
    host.noteM2N(typeFull, receiver, body, 'tx');
    if (op === OPC.SYNC) {
      host.sync.send(body[3] ?? 0, body[4] ?? 0);
      return;
    }
    if (op === OPC.STREAM) {
      const bc = receiver === BROADCAST;
      const packets = fragmentStream(body).map((f) => airPacket(host.addr, receiver, OPC.STREAM, f));
      const lenMs = bc ? host.timing.rxWindowBroadcastMs : host.timing.rxWindowUnicastMs;
      host.tx.start({ packets, window: { lenMs, expected: bc ? 0 : 1 }, isStream: true });
      return;
    }
    host.tx.start({
      packets: [airPacket(host.addr, receiver, typeFull, body)],
      window: null,
      isStream: false,
    });
  }

  private reject(typeFull: number, reason: number): void {
    this.host.stats.rejected++;
    this.host.emit({ kind: 'tx_rejected', typeFull, reason });
  }
}
