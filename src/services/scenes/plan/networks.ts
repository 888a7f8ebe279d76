/**
 * Scenes across several networks (design networks §2.8): each network in a scene's scope is
 * planned with its own devices, known groups, offset state and last PRESET brightness (that
 * gateway's autosync brightness), and its frames are tagged with the network. The runner
 * sends each network's share through its own gateway, networks in parallel, a barrier
 * between actions; the estimator prices each share with its network's radio settings.
 *
 * Scope: a device target reaches its network; a group target every network holding members
 * of the group (a group with no members anywhere: every network in scope, as the router
 * does); a broadcast target every network in scope. The scope is the scene's explicit
 * `networks` when set, else every network. SYNC goes only to the scene's networks — the
 * explicit list, else the networks its other actions reach (all when it has none, a
 * sync-only scene) — because a stray SYNC changes the brightness of PRESET-only nodes and
 * the gateway's autosync brightness. OFFSET formulas use the global group id, so cascades
 * continue across networks.
 */
import type { ActionTarget, SceneAction } from '../../../domain/scenes/types.ts';
import type { Addr } from '../../../protocol/types.ts';
import {
  newEnv,
  planOne,
  type Env,
  type PlanContext,
  type PlanDevice,
  type PlannedAction,
  type PlannedPart,
} from './planner.ts';

/** Who lives where: the facts scope decisions are taken from. */
export interface NetworkFacts {
  ids: number[];
  /** The explicit scope (existing networks only), or null. */
  explicit: number[] | null;
  networkOf: Map<Addr, number>;
  groupNetworks: Map<number, Set<number>>;
}

export function networkFacts(ctx: PlanContext): NetworkFacts {
  const ids = (ctx.networks ?? []).map((n) => n.id).sort((a, b) => a - b);
  const first = ids[0] ?? 1;
  const networkOf = new Map<Addr, number>();
  const groupNetworks = new Map<number, Set<number>>();
  for (const d of ctx.devices) {
    const n = d.network ?? first;
    networkOf.set(d.addr, n);
    const set = groupNetworks.get(d.groupId) ?? new Set<number>();
    set.add(n);
    groupNetworks.set(d.groupId, set);
  }
  // An explicit list naming no active network reaches none: never widened to every network
  // (a stray SYNC is not harmless).
  const explicit = ctx.scope ? ctx.scope.filter((id) => ids.includes(id)) : null;
  return { ids, explicit, networkOf, groupNetworks };
}

const sorted = (s: Iterable<number>): number[] => [...new Set(s)].sort((a, b) => a - b);

/** The networks a target reaches (before the explicit scope's restriction). */
export function targetNetworks(f: NetworkFacts, t: ActionTarget): number[] {
  const inScope = f.explicit ?? f.ids;
  switch (t.kind) {
    case 'broadcast':
      return inScope;
    case 'device': {
      const n = f.networkOf.get(t.value);
      return n === undefined ? [] : [n];
    }
    case 'groups': {
      const out = new Set<number>();
      for (const g of t.value) {
        const members = f.groupNetworks.get(g);
        for (const n of members && members.size > 0 ? members : inScope) out.add(n);
      }
      return sorted(out).filter((n) => inScope.includes(n));
    }
  }
}

/** The networks an action sends on (SYNC and delay: none of their own). */
function actionNetworks(f: NetworkFacts, a: SceneAction): number[] {
  switch (a.kind) {
    case 'delay':
    case 'sync':
      return [];
    case 'offset_group':
      return sorted([
        ...targetNetworks(f, a.target),
        ...a.actions.flatMap((c) => targetNetworks(f, c.target)),
      ]);
    default:
      return targetNetworks(f, a.target);
  }
}

/** The scene's networks: the explicit list, else what its actions reach (none: all). */
export function sceneNetworks(actions: readonly SceneAction[], ctx: PlanContext): number[] {
  const f = networkFacts(ctx);
  return sceneScope(f, actions);
}

function sceneScope(f: NetworkFacts, actions: readonly SceneAction[]): number[] {
  if (f.explicit) return f.explicit;
  const reached = sorted(actions.flatMap((a) => actionNetworks(f, a)));
  return reached.length > 0 ? reached : f.ids;
}

/** One environment per network: its devices, the others' addresses, its share of each group. */
function networkEnvs(f: NetworkFacts, ctx: PlanContext): Map<number, Env> {
  const envs = new Map<number, Env>();
  for (const id of f.ids) {
    const own: PlanDevice[] = ctx.devices.filter((d) => f.networkOf.get(d.addr) === id);
    const foreign = new Set<Addr>(
      ctx.devices.filter((d) => f.networkOf.get(d.addr) !== id).map((d) => d.addr),
    );
    const local = (g: number): boolean => {
      const members = f.groupNetworks.get(g);
      return !members || members.size === 0 || members.has(id);
    };
    envs.set(id, newEnv({ ...ctx, devices: own, networks: undefined, scope: undefined }, foreign, local));
  }
  return envs;
}

export function planAcrossNetworks(actions: readonly SceneAction[], ctx: PlanContext): PlannedAction[] {
  const f = networkFacts(ctx);
  const scope = sceneScope(f, actions);
  const envs = networkEnvs(f, ctx);
  return actions.map((a, index) => {
    const nets = a.kind === 'sync' ? scope : actionNetworks(f, a);
    // A delay, or a target no network knows: planned once, without a network, sending nothing.
    if (nets.length === 0) {
      const p = planOne(newEnv({ ...ctx, networks: undefined }), a, index);
      const none = a.kind !== 'delay' && p.degraded === null ? 'no_network_in_scope' : p.degraded;
      return { ...p, frames: [], degraded: none, parts: [] };
    }
    const planned = nets.map((n) => ({ n, p: planOne(envs.get(n) as Env, a, index) }));
    const parts: PlannedPart[] = planned.map(({ n, p }) => ({
      network: n,
      frames: p.frames.map((fr) => ({ ...fr, network: n })),
      degraded: p.degraded,
    }));
    const whole = planned.find(({ p }) => !p.degraded)?.p ?? (planned[0] as { p: PlannedAction }).p;
    const detail: Record<string, unknown> = { ...whole.detail, networks: nets };
    const partial = parts.filter((p) => p.degraded !== null);
    if (partial.length > 0 && partial.length < parts.length)
      detail.degraded_networks = partial.map((p) => ({ network_id: p.network, error: p.degraded }));
    return {
      index,
      kind: a.kind,
      frames: parts.flatMap((p) => p.frames),
      delayMs: whole.delayMs,
      degraded: partial.length === parts.length ? whole.degraded : null,
      detail,
      parts,
    };
  });
}
