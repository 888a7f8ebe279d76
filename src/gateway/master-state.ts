/**
 * Mirror of the gateway ("master") as host-behaviour.md §6.3 describes it: the last
 * reported state, the last notable event and the last error. Every actual change bumps
 * `last_event_ts` (unix seconds) and is announced once through `onChange`.
 */
import type { Clock } from '../clock.ts';
import { rejectReasonName, stateName } from '../protocol/events.ts';
import { GW_STATE, OPC, type N2MReply } from '../protocol/types.ts';
import type { MasterSnapshot } from './types.ts';

const OPCODE_NAMES = new Map<number, string>(Object.entries(OPC).map(([name, code]) => [code, name]));

/** The `last_event` name of a forwarded node reply (ACK, STATUS_REPLY, IDENTIFY_REPLY, …). */
export function replyEventName(reply: N2MReply): string {
  if (reply.kind !== 'UNKNOWN') return reply.kind;
  return OPCODE_NAMES.get(reply.opcode & 0x7f) ?? `OPCODE_0x${reply.opcode.toString(16).padStart(2, '0')}`;
}

export function initialMasterSnapshot(): MasterSnapshot {
  return {
    state: 'UNKNOWN',
    state_byte: GW_STATE.UNKNOWN,
    state_metadata_ms: 0,
    last_event: null,
    last_event_ts: 0,
    last_error: null,
  };
}

export class MasterState {
  private snap: MasterSnapshot = initialMasterSnapshot();

  constructor(
    private readonly clock: Clock,
    private readonly onChange: (s: MasterSnapshot) => void,
  ) {}

  snapshot(): MasterSnapshot {
    return { ...this.snap };
  }

  /** EV_STATE_CHANGED / EV_STATE_REPORT: mirrors the state and clears the error. */
  applyState(report: boolean, stateByte: number, metadataMs: number): void {
    this.update({
      state: stateName(stateByte),
      state_byte: stateByte,
      state_metadata_ms: stateByte === GW_STATE.RX_WINDOW ? metadataMs : 0,
      last_event: report ? 'STATE_REPORT' : 'STATE_CHANGED',
      last_error: null,
    });
  }

  txDone(): void {
    this.update({ last_event: 'TX_DONE' });
  }

  txRejected(reason: number): void {
    this.update({ last_event: `TX_REJECTED (${rejectReasonName(reason)})` });
  }

  reply(reply: N2MReply): void {
    this.update({ last_event: replyEventName(reply) });
  }

  /** A link failure. */
  usbError(text: string): void {
    this.update({ last_event: 'USB_ERROR', last_error: text });
  }

  /** An EV_ERROR frame on the link (never sent by the firmware, §4.2). */
  gatewayError(text: string): void {
    this.update({ last_event: 'GATEWAY_ERROR', last_error: text });
  }

  /** The link is gone: the state is no longer known. */
  unknown(): void {
    this.update({ state: 'UNKNOWN', state_byte: GW_STATE.UNKNOWN, state_metadata_ms: 0 });
  }

  /** Host-side events named by services (CONTROL_SENT, TASK_<NAME>_START, …). */
  event(name: string, error?: string | null): void {
    this.update(error === undefined ? { last_event: name } : { last_event: name, last_error: error });
  }

  private update(patch: Partial<MasterSnapshot>): void {
    let changed = false;
    const next = { ...this.snap };
    for (const key of Object.keys(patch) as (keyof MasterSnapshot)[]) {
      const v = patch[key];
      if (v !== undefined && next[key] !== v) {
        (next as Record<keyof MasterSnapshot, unknown>)[key] = v;
        changed = true;
      }
    }
    if (!changed) return;
    next.last_event_ts = this.clock.now() / 1000;
    this.snap = next;
    this.onChange(this.snapshot());
  }
}
