/**
 * The recovery sweep per network: with one gateway this is the one RecoverySweep on the
 * driver itself (today's behaviour, exactly). With several, each network whose gateway is
 * connected gets its own sweep on its own driver, over its own rejoining nodes, so the
 * networks restore in parallel (each gateway's air is its own): a race morning of 2 × 150
 * takes about what one network of 150 takes, not what 300 take. Each network's sweep keeps
 * `legDepth` SET_GROUPs in flight (3, the pipeline's measured default) where the one
 * gateway's sweep keeps `depth` (2, unchanged): with 2 × 150 on two channels, 99 % of a
 * rebooted field is back in 48–52 s instead of 55–67 s (0.50–0.55× of 1 × 300, seeds 1–3,
 * bench:networks), no healthy node wrongly offline. Nodes of a network that
 * has no sweep (its gateway was never connected since the episode began) are swept through
 * the Radio, which fails them at once naming the network; their deadlines run as before.
 */
import type { Clock } from '../../../clock.ts';
import { networkLegs } from '../../../gateway/radio/radio.ts';
import type { GatewayDriver } from '../../../gateway/types.ts';
import type { Logger } from '../../../logger.ts';
import type { Addr } from '../../../protocol/types.ts';
import { RecoverySweep, type SweepHost } from './sweep.ts';
import type { RecoveryOptions, RejoinEntry } from './types.ts';

/** Key of the sweep for nodes of networks without their own sweep (through the Radio). */
const REST = 0;

export class NetworkSweeps {
  private readonly sweeps = new Map<number, RecoverySweep>();
  private stopped = false;

  constructor(
    private readonly deps: {
      clock: Clock;
      driver: GatewayDriver;
      log: Logger;
      opts: RecoveryOptions;
      host: SweepHost;
      networkOf: (addr: Addr) => number | null;
    },
  ) {}

  /** Starts or wakes the sweeps (see RecoverySweep.kick); one per connected network. */
  kick(settle: boolean, restart = false): void {
    if (this.stopped) return;
    const legs = networkLegs(this.deps.driver);
    if (!legs || legs.length === 0) {
      this.sweep(REST, this.deps.driver).kick(settle, restart);
      return;
    }
    for (const leg of legs) this.sweep(leg.networkId, leg.driver).kick(settle, restart);
    // Nodes whose network has no sweep: through the Radio (fails at once, naming it).
    if (this.orphans().length > 0) this.sweep(REST, this.deps.driver).kick(settle, restart);
  }

  get active(): boolean {
    return [...this.sweeps.values()].some((s) => s.active);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.sweeps.values()].map((s) => s.stop()));
  }

  private orphans(): RejoinEntry[] {
    return [...this.deps.host.entries()].filter((e) => !this.sweeps.has(this.deps.networkOf(e.addr) ?? REST));
  }

  private sweep(key: number, driver: GatewayDriver): RecoverySweep {
    const known = this.sweeps.get(key);
    if (known) return known;
    const { host } = this.deps;
    // A network's sweep sees only its nodes; the REST sweep those no other sweep serves.
    const mine = (e: RejoinEntry): boolean => {
      const id = this.deps.networkOf(e.addr) ?? REST;
      return key === REST ? id === REST || !this.sweeps.has(id) : id === key;
    };
    const view: SweepHost = { ...host, entries: () => [...host.entries()].filter(mine) };
    // A network's own sweep runs deeper than the single gateway's (legDepth): its pass
    // over a network's nodes is the race morning's critical path on that air.
    const opts = key === REST ? this.deps.opts : { ...this.deps.opts, depth: this.deps.opts.legDepth };
    const s = new RecoverySweep({ ...this.deps, opts, driver, host: view });
    this.sweeps.set(key, s);
    return s;
  }
}
