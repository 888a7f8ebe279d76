/** A node on the air with a fake gateway radio: send requests, collect replies. */
import { Air, type AirRadio } from '../../../src/sim/air.ts';
import { SimScheduler } from '../../../src/sim/scheduler.ts';
import { SimNode, type SimNodeOptions } from '../../../src/sim/node/node.ts';
import { DEFAULT_RF, type LoraPacket, type M2NRequest, type RfConfig } from '../../../src/protocol/types.ts';
import {
  decodeLoraPacket,
  encodeLoraPacket,
  encodeRequestBody,
  opcodeOf,
} from '../../../src/protocol/packets.ts';
import { decodeReplyBody } from '../../../src/protocol/replies.ts';
import { Prng } from '../../../src/util/prng.ts';
import { ManualClock } from './manual-clock.ts';

export class HubRadio implements AirRadio {
  rxEpoch = 0;
  listening = true;
  got: LoraPacket[] = [];
  constructor(
    readonly id: string,
    public rf: RfConfig = { ...DEFAULT_RF },
  ) {}
  isListening(): boolean {
    return this.listening;
  }
  receive(bytes: Uint8Array): void {
    const p = decodeLoraPacket(bytes);
    if (p) this.got.push(p);
  }
}

export interface NodeWorld {
  clock: ManualClock;
  sched: SimScheduler;
  air: Air;
  gw: HubRadio;
  node: SimNode;
  /** Sends a request from `from` (default the gateway) and runs the air until it is delivered. */
  send(receiver: string, req: M2NRequest, from?: AirRadio): void;
  /** Replies the gateway heard, decoded. */
  replies(): ReturnType<typeof decodeReplyBody>[];
  run(ms: number): void;
}

export function nodeWorld(opts: Partial<SimNodeOptions> = {}): NodeWorld {
  const clock = new ManualClock();
  const sched = new SimScheduler(clock);
  const air = new Air(sched, new Prng(11));
  const gw = new HubRadio('102030');
  air.registerHub(gw);
  const node = new SimNode(
    { mac: '246F28AABBCC', devType: 12, vbatMv: 4000, quality: { rssi: -65, snr: 9 }, ...opts },
    air,
    sched,
    new Prng(12),
  );
  const run = (ms: number): void => clock.advance(ms);
  return {
    clock,
    sched,
    air,
    gw,
    node,
    run,
    send(receiver, req, from = gw) {
      const bytes = encodeLoraPacket({
        sender: from.id,
        receiver,
        typeFull: opcodeOf(req),
        body: encodeRequestBody(req),
      });
      sched.runExternal(() => air.transmit(from, bytes));
      run(100);
    },
    replies: () => gw.got.map((p) => decodeReplyBody(p.typeFull, p.body)),
  };
}

/** Powers the node on and runs past both boot announcements. */
export function bootQuietly(w: NodeWorld): void {
  w.sched.runExternal(() => w.node.powerOn());
  w.run(8000);
  w.gw.got = [];
}
