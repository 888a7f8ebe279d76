/**
 * Fault injection for the simulated fleet: radio packet loss, silent or rebooting nodes,
 * garbage bytes on the USB link, the USB link dropping and coming back, a deaf gateway
 * radio and failing NVS writes. Every fault is applied at the current simulated time.
 */
import { normalizeAddr } from '../protocol/addr.ts';
import type { RfConfig } from '../protocol/types.ts';
import type { Prng } from '../util/prng.ts';
import type { Air } from './air.ts';
import type { SimScheduler } from './scheduler.ts';
import type { SimGateway } from './gateway/gateway.ts';
import type { SimNode } from './node/node.ts';

export interface FaultTargets {
  air: Air;
  gateway: SimGateway;
  nodes: readonly SimNode[];
  sched: SimScheduler;
  rng: Prng;
}

export class Faults {
  private readonly rng: Prng;
  private fleetReboots = 0;

  constructor(private readonly t: FaultTargets) {
    this.rng = t.rng.fork('faults');
  }

  /** Probability (0..1) that any packet is lost at any receiver. */
  get lossRate(): number {
    return this.t.air.lossRate;
  }

  set lossRate(rate: number) {
    if (!(rate >= 0 && rate <= 1)) throw new RangeError(`lossRate must be in 0..1 (got ${rate})`);
    this.t.air.lossRate = rate;
  }

  /** The node stops transmitting and receiving (its state keeps running). */
  silence(addr: string): void {
    this.t.sched.runExternal(() => this.node(addr).silence(true));
  }

  unsilence(addr: string): void {
    this.t.sched.runExternal(() => this.node(addr).silence(false));
  }

  /**
   * The node is moved to another channel on its own settings page (a stranded node): it
   * stores the settings, drops master persistence and reboots there, unbound in group 0.
   */
  retuneNode(addr: string, rf: RfConfig): void {
    this.t.sched.runExternal(() => this.node(addr).retune(rf));
  }

  /** Power-cycles the node: RAM state lost, boot announcements follow. */
  reboot(addr: string, offlineMs?: number): void {
    this.t.sched.runExternal(() => this.node(addr).reboot(offlineMs));
  }

  /**
   * A field power-up while the host runs (race morning, a breaker, a generator swap): a
   * share of the fleet (seeded choice; all by default) loses power at once and each node
   * comes back at a seeded moment within `spreadMs`, then boots as the firmware does
   * (group 0, master forgotten unless persistence is on, boot announcements, §8.1/§8.6).
   * Nodes that are powered off stay off. Returns the addresses that rebooted.
   */
  rebootFleet(opts: { fraction?: number; spreadMs?: number } = {}): string[] {
    const fraction = opts.fraction ?? 1;
    if (!(fraction >= 0 && fraction <= 1)) throw new RangeError(`fraction must be in 0..1 (got ${fraction})`);
    const spread = Math.max(0, Math.floor(opts.spreadMs ?? 2000));
    const rng = this.rng.fork(`fleet-reboot-${this.fleetReboots++}`);
    const live = this.t.nodes.filter((n) => n.isPowered);
    const count = Math.round(live.length * fraction);
    // Partial Fisher–Yates: the first `count` of a seeded shuffle.
    const pick = [...live];
    for (let i = 0; i < count; i++) {
      const j = rng.int(i, pick.length - 1);
      [pick[i], pick[j]] = [pick[j] as SimNode, pick[i] as SimNode];
    }
    const chosen = pick.slice(0, count);
    const offsets = chosen.map(() => rng.int(0, spread));
    this.t.sched.runExternal(() => {
      for (const n of chosen) n.powerOff();
      chosen.forEach((n, i) => {
        n.rebootCount++;
        this.t.sched.after(offsets[i] ?? 0, () => n.powerOn());
      });
    });
    return chosen.map((n) => n.addr);
  }

  /** Master persistence on the node's own settings page (all nodes when no address given). */
  masterPersistence(on: boolean, addr?: string): void {
    const nodes = addr === undefined ? this.t.nodes : [this.node(addr)];
    this.t.sched.runExternal(() => {
      for (const n of nodes) n.setMasterPersistence(on);
    });
  }

  powerOff(addr: string): void {
    this.t.sched.runExternal(() => this.node(addr).powerOff());
  }

  powerOn(addr: string): void {
    this.t.sched.runExternal(() => this.node(addr).powerOn());
  }

  /**
   * The gateway writes garbage on the USB link. By default the bytes contain no 0x00, so a
   * hunting host decoder must skip them without losing a frame; with `raw` they are
   * written exactly as given (0x00 included, which can swallow following frames).
   * Returns the bytes written.
   */
  injectGarbage(bytes?: Uint8Array, opts: { raw?: boolean } = {}): Uint8Array {
    let out = bytes ?? this.randomGarbage(24);
    if (!opts.raw) out = out.filter((b) => b !== 0x00);
    this.t.gateway.writeRaw(out);
    return out;
  }

  /** Bytes that reach the gateway as if the host had sent them (line noise towards it). */
  injectHostNoise(bytes: Uint8Array): void {
    this.t.gateway.feedHostBytes(bytes);
  }

  /** The gateway's USB side disconnects; new host connections are refused until restore. */
  dropLink(err: Error = new Error('gateway USB link dropped (fault)')): void {
    this.t.sched.runExternal(() => this.t.gateway.usb.setFaultAbsent(true, err));
  }

  restoreLink(): void {
    this.t.sched.runExternal(() => this.t.gateway.usb.setFaultAbsent(false));
  }

  get linkDropped(): boolean {
    return !this.t.gateway.usb.present;
  }

  /** The gateway radio stops receiving (it still transmits). */
  set gatewayDeaf(on: boolean) {
    this.t.sched.runExternal(() => (this.t.gateway.deaf = on));
  }

  get gatewayDeaf(): boolean {
    return this.t.gateway.deaf;
  }

  /**
   * The gateway firmware hangs: its USB port stays open, but it neither reads what the
   * host sends nor writes anything back. Clearing it lets it answer again.
   */
  set gatewayFrozen(on: boolean) {
    this.t.sched.runExternal(() => (this.t.gateway.usb.frozen = on));
  }

  get gatewayFrozen(): boolean {
    return this.t.gateway.usb.frozen;
  }

  /** Every gateway NVS write fails (a persisted RF change answers NVS_FAIL). */
  set gatewayNvsFail(on: boolean) {
    this.t.gateway.nvsFail = on;
  }

  get gatewayNvsFail(): boolean {
    return this.t.gateway.nvsFail;
  }

  /** The node's flash writes fail (an RF_CONFIG is answered with ACK_ERROR). */
  nodeNvsFail(addr: string, on: boolean): void {
    this.node(addr).nvsFail = on;
  }

  /** The node keeps acting on requests but none of its ACKs is transmitted. */
  nodeAcksLost(addr: string, on: boolean): void {
    this.t.sched.runExternal(() => (this.node(addr).acksLost = on));
  }

  /**
   * Changes a CONFIG value on the node itself (as its own web UI would), bypassing the
   * radio, so the host's stored value and the node's live value diverge.
   */
  editNodeOption(addr: string, option: number, data: readonly [number, number, number, number]): void {
    const node = this.node(addr);
    this.t.sched.runExternal(() => {
      if (!node.editOption(option, data))
        throw new RangeError(`option 0x${option.toString(16)} is not a value option of node ${addr}`);
    });
  }

  /** Resets the gateway as if its port had been opened on a CP2102 board. */
  resetGateway(): void {
    this.t.sched.runExternal(() => this.t.gateway.boot());
  }

  private randomGarbage(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.rng.int(1, 255);
    return out;
  }

  private node(addr: string): SimNode {
    const a = normalizeAddr(addr);
    const n = a ? this.t.nodes.find((x) => x.addr === a) : undefined;
    if (!n) throw new RangeError(`no simulated node with address ${addr}`);
    return n;
  }
}
