import type { M2NRequest } from '../../../src/protocol/types.ts';
import { encodeHostCommand } from '../../../src/protocol/commands.ts';
/**
 * Test harness: a simulated fleet on the memory endpoint, a host-side link, and a
 * collector that decodes what the gateway sends (with virtual timestamps) so tests can
 * wait for frames by predicate instead of sleeping.
 */
import type { Clock } from '../../../src/clock.ts';
import { HostFrameDecoder } from '../../../src/protocol/framing.ts';
import { decodeGatewayInbound } from '../../../src/protocol/events.ts';
import type { GatewayInbound, RawFrame } from '../../../src/protocol/types.ts';
import type { Link } from '../../../src/transport/link.ts';
import { startSimOnMemory, type SimOnMemory, type SimOnMemoryOptions } from '../../../src/sim/sim-host.ts';
import { toHex } from '../../../src/protocol/bytes.ts';
import { ManualClock } from '../../unit/sim/manual-clock.ts';

/**
 * Virtual time for these tests advances in 1 ms steps, yielding to the event loop between
 * steps (so memory-link bytes and test code run in between). Nothing depends on wall time,
 * so a loaded machine cannot make a test miss a window: runs are exactly reproducible.
 */
export class SteppedClock extends ManualClock {
  private running = false;

  start(stepMs = 1): void {
    if (this.running) return;
    this.running = true;
    const loop = (): void => {
      if (!this.running) return;
      this.advance(stepMs);
      setImmediate(loop);
    };
    setImmediate(loop);
  }

  stop(): void {
    this.running = false;
  }
}

export interface Item {
  at: number;
  kind: 'frame' | 'identify';
  frame?: RawFrame;
  ev?: GatewayInbound | null;
  mac?: string;
  hex: string;
}

export class Collector {
  readonly items: Item[] = [];
  private waiters: { pred: (i: Item) => boolean; from: number; resolve: (i: Item) => void }[] = [];
  private readonly decoder = new HostFrameDecoder();
  rawBytes = 0;

  constructor(private readonly clock: Clock) {}

  push(chunk: Uint8Array): void {
    this.rawBytes += chunk.length;
    for (const d of this.decoder.push(chunk, this.clock.now())) {
      const at = this.clock.now();
      const item: Item =
        d.kind === 'identify'
          ? { at, kind: 'identify', mac: d.mac, hex: '' }
          : {
              at,
              kind: 'frame',
              frame: d.frame,
              ev: decodeGatewayInbound(d.frame),
              hex: toHex(Uint8Array.from([0, d.frame.data.length + 1, d.frame.type, ...d.frame.data])),
            };
      this.items.push(item);
      const idx = this.items.length - 1;
      for (const w of [...this.waiters]) {
        if (idx >= w.from && w.pred(item)) {
          this.waiters.splice(this.waiters.indexOf(w), 1);
          w.resolve(item);
        }
      }
    }
  }

  get length(): number {
    return this.items.length;
  }

  /** Resolves with the first item at index >= `from` matching `pred`; rejects after `timeoutMs` virtual ms. */
  waitFor(pred: (i: Item) => boolean, timeoutMs = 5000, from = 0): Promise<Item> {
    const hit = this.items.slice(from).find(pred);
    if (hit) return Promise.resolve(hit);
    return new Promise((resolve, reject) => {
      const w = { pred, from, resolve: (i: Item) => (clearT.cancel(), resolve(i)) };
      const clearT = this.clock.setTimeout(() => {
        const k = this.waiters.indexOf(w);
        if (k >= 0) this.waiters.splice(k, 1);
        reject(
          new Error(
            `timeout after ${timeoutMs} virtual ms waiting for frame; got: ${this.items
              .slice(from)
              .map((i) => i.hex || i.mac)
              .join(' | ')}`,
          ),
        );
      }, timeoutMs);
      this.waiters.push(w);
    });
  }

  since(from: number): Item[] {
    return this.items.slice(from);
  }

  hexSince(from: number): string[] {
    return this.since(from).map((i) => i.hex);
  }
}

export interface SimTestEnv {
  sim: SimOnMemory;
  clock: Clock;
  link: Link;
  rx: Collector;
  send(bytes: Uint8Array | number[]): Promise<void>;
  /** Waits `ms` virtual milliseconds. */
  sleep(ms: number): Promise<void>;
  /** Waits until the gateway is idle after boot (boot F1 00 and the first autosync done). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export async function openSim(
  opts: Partial<SimOnMemoryOptions> & { nodes: number; seed: number | string },
): Promise<SimTestEnv> {
  // A caller-supplied clock (e.g. ScaledClock) runs in real time; default is stepped time.
  const stepped = opts.clock ? null : new SteppedClock();
  const clock: Clock = opts.clock ?? (stepped as SteppedClock);
  stepped?.start();
  const sim = startSimOnMemory({ bootSpreadMs: 0, ...opts, clock });
  const link = sim.linkFactory();
  const rx = new Collector(clock);
  link.onData((c) => rx.push(c));
  await link.open();
  return {
    sim,
    clock,
    link,
    rx,
    send: (bytes) => link.write(Uint8Array.from(bytes)),
    sleep: (ms) => clock.sleep(ms),
    async ready() {
      // Boot: F1 00, then the first autosync F1 01 / F3 01 / F1 00.
      await rx.waitFor((i) => i.ev?.kind === 'tx_done', 5000);
      await rx.waitFor(
        (i) => i.hex === '0002F100',
        5000,
        rx.items.findIndex((i) => i.ev?.kind === 'tx_done'),
      );
    },
    async close() {
      await link.close();
      sim.stop();
      stepped?.stop();
    },
  };
}

export const hex = (s: string): number[] =>
  s
    .trim()
    .split(/\s+/)
    .map((b) => parseInt(b, 16));

/** A host→gateway M2N frame, as the host writes it. */
export const m2n = (receiver: string, request: M2NRequest): Uint8Array =>
  encodeHostCommand({ kind: 'm2n', receiver, request });
