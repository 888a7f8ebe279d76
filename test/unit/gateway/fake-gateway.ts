import type { Clock } from '../../../src/clock.ts';
import { decodeGatewayCommand } from '../../../src/protocol/commands.ts';
import { encodeGatewayInbound } from '../../../src/protocol/events.ts';
import { encodeIdentifyAnswer, GatewayFrameDecoder } from '../../../src/protocol/framing.ts';
import { encodeReplyBody, replyTypeFull } from '../../../src/protocol/replies.ts';
import {
  DEFAULT_RF,
  type GatewayCommand,
  type GatewayInbound,
  type N2MReply,
  type RfConfig,
} from '../../../src/protocol/types.ts';
import { MemoryEndpoint } from '../../../src/transport/memory-link.ts';
import type { Link } from '../../../src/transport/link.ts';

export const GW_MAC = '48:CA:43:10:20:30';
export const GW_ADDR = '102030';

export type M2N = Extract<GatewayCommand, { kind: 'm2n' }>;

/** Events for one accepted frame (§4.3.1). */
export const TX_CYCLE: GatewayInbound[] = [
  { kind: 'state', report: false, state: 1, metadataMs: 0 },
  { kind: 'tx_done' },
  { kind: 'state', report: false, state: 0, metadataMs: 0 },
];

/**
 * A scriptable gateway on the far side of a memory endpoint, for driver unit tests. By
 * default it identifies, answers state requests and completes every M2N frame with a TX
 * cycle; `onM2n` replaces that per test.
 */
export class FakeGateway {
  readonly endpoint: MemoryEndpoint;
  readonly frames: M2N[] = [];
  identifyAnswers = true;
  answerStateRequests = true;
  bootNoise: Uint8Array[] = [];
  /** The gateway's active RF config, and the EV_RF_CHANGED reason SET_RF_CONFIG answers with. */
  rf: RfConfig = DEFAULT_RF;
  rfReason = 0;
  answerRfRequests = true;
  identifyCount = 0;
  rfReads = 0;
  onM2n: (f: M2N, gw: FakeGateway) => void = (_f, gw) => gw.emit(...TX_CYCLE);
  private device: Link | null = null;
  private state = 0;

  constructor(private readonly clock: Clock) {
    this.endpoint = new MemoryEndpoint((device) => this.attach(device));
  }

  get connected(): boolean {
    return this.endpoint.connected;
  }

  emit(...events: GatewayInbound[]): void {
    for (const e of events) {
      // A state request is answered with the state last announced, as the firmware does.
      if (e.kind === 'state') this.state = e.state;
      this.raw(encodeGatewayInbound(e));
    }
  }

  raw(bytes: Uint8Array): void {
    if (this.device?.isOpen) void this.device.write(bytes).catch(() => undefined);
  }

  /** Emits after `ms` virtual milliseconds. */
  later(ms: number, ...events: GatewayInbound[]): void {
    this.clock.setTimeout(() => this.emit(...events), ms);
  }

  private attach(device: Link): void {
    this.device = device;
    const decoder = new GatewayFrameDecoder();
    for (const b of this.bootNoise) this.raw(b);
    device.onData((chunk) => {
      for (const frame of decoder.push(chunk, this.clock.now())) {
        const cmd = decodeGatewayCommand(frame);
        if (!cmd) continue;
        this.handle(cmd);
      }
    });
  }

  private handle(cmd: GatewayCommand): void {
    switch (cmd.kind) {
      case 'identify':
        this.identifyCount++;
        if (this.identifyAnswers) this.raw(encodeIdentifyAnswer(GW_MAC));
        break;
      case 'state_request':
        if (this.answerStateRequests)
          this.emit({ kind: 'state', report: true, state: this.state, metadataMs: 0 });
        break;
      case 'get_rf':
        this.rfReads++;
        if (this.answerRfRequests) this.emit({ kind: 'rf_changed', reason: 0, rf: this.rf });
        break;
      case 'set_rf':
        // Like the firmware: a refusal answers with the config that stays active. The port
        // stays open after a persisted change (a CP2102 board keeps it across the reboot).
        if (this.rfReason === 0) this.rf = cmd.rf;
        if (this.answerRfRequests) this.emit({ kind: 'rf_changed', reason: this.rfReason, rf: this.rf });
        break;
      case 'm2n':
        this.frames.push(cmd);
        this.onM2n(cmd, this);
        break;
    }
  }
}

/** A forwarded node reply as the gateway emits it. */
export function replyFrom(sender: string, reply: N2MReply, receiver = GW_ADDR): GatewayInbound {
  return {
    kind: 'packet',
    packet: { sender, receiver, typeFull: replyTypeFull(reply), body: encodeReplyBody(reply) },
    rssi: -80,
    snr: 7,
    reply,
  };
}

export const identifyReply = (addr: string, groupId = 0): N2MReply => ({
  kind: 'IDENTIFY_REPLY',
  fw: 2,
  devType: 12,
  groupId,
  mac: `246F28${addr}`,
});

export const ack = (ackOf: number, status = 0): N2MReply => ({ kind: 'ACK', ackOf, status, seq: 0 });
