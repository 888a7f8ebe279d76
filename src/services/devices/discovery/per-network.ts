/**
 * Discovery with several gateways: the discovery loop (rounds.ts) runs once per
 * network, in parallel, each leg on its own gateway's driver and seeing only its network's
 * stored devices (so the stop rule does not wait for nodes that live on another channel).
 * Progress and outcome are the legs' sums; the progress also carries each leg's own
 * (`networks`, by network id: the task meta's `networks`). With one gateway this is
 * runDiscovery itself (no `networks`). Each leg runs as `parallel` (rounds.ts: the
 * tail's SET_GROUP retries go beside its rounds, with a stricter stop).
 */
import type { Clock } from '../../../clock.ts';
import { networkLegs } from '../../../gateway/radio/radio.ts';
import type { GatewayDriver } from '../../../gateway/types.ts';
import type { Addr } from '../../../protocol/types.ts';
import type { TaskContext } from '../../../tasks/task-manager.ts';
import type { DeviceRegistry } from '../registry/registry.ts';
import { onLeg } from '../radio/leg-context.ts';
import {
  runDiscovery,
  type DiscoveryOutcome,
  type DiscoveryPlan,
  type DiscoveryProgress,
  type NetworkDiscoveryProgress,
} from './rounds.ts';

/** The registry as one network's leg sees it: the same object, its list narrowed. */
function networkView(registry: DeviceRegistry, networkId: number): DeviceRegistry {
  const view = Object.create(registry) as DeviceRegistry;
  view.all = () => registry.all().filter((d) => d.network_id === networkId);
  return view;
}

function legProgress(p: DiscoveryProgress): NetworkDiscoveryProgress {
  return {
    phase: p.phase,
    round: p.round,
    found: p.found,
    bound: p.bound,
    expected_remaining: p.expectedRemaining === null ? null : Math.round(p.expectedRemaining * 10) / 10,
  };
}

export async function runDiscoveryLegs(
  deps: { driver: GatewayDriver; registry: DeviceRegistry; clock: Clock },
  ctx: TaskContext,
  plan: DiscoveryPlan,
  progress: (p: DiscoveryProgress) => void,
): Promise<DiscoveryOutcome> {
  const legs = networkLegs(deps.driver);
  if (!legs || legs.length === 0) return runDiscovery(deps, ctx, plan, progress);
  const last = new Map<number, DiscoveryProgress>();
  const report = (id: number, p: DiscoveryProgress): void => {
    last.set(id, p);
    const all = [...last.values()];
    const remaining = all.map((x) => x.expectedRemaining).filter((x): x is number => x !== null);
    progress({
      phase: p.phase,
      round: Math.max(...all.map((x) => x.round)),
      found: all.reduce((n, x) => n + x.found, 0),
      bound: all.reduce((n, x) => n + x.bound, 0),
      expectedRemaining: remaining.length > 0 ? remaining.reduce((a, b) => a + b, 0) : null,
      networks: Object.fromEntries([...last].map(([nid, x]) => [String(nid), legProgress(x)])),
    });
  };
  const outs = await Promise.all(
    legs.map((leg) =>
      onLeg(ctx, (legCtx) =>
        runDiscovery(
          { driver: leg.driver, registry: networkView(deps.registry, leg.networkId), clock: deps.clock },
          legCtx,
          plan,
          (p) => report(leg.networkId, p),
          { parallel: true },
        ),
      ),
    ),
  );
  const found = new Set<Addr>();
  const placed = new Set<Addr>();
  for (const o of outs) {
    for (const a of o.found) found.add(a);
    for (const a of o.placed) placed.add(a);
  }
  return { found, placed, rounds: Math.max(...outs.map((o) => o.rounds)) };
}
