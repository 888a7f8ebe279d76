/**
 * A scene's explicit network scope (`networks`, several gateways): which networks its
 * broadcasts and SYNC reach. Checked at save against the fleet as it is: every id must name
 * a network, and no target may lie wholly outside the list — a device on another network, or
 * a group whose members all live elsewhere, would silently get nothing. Absent or null:
 * automatic (see plan/networks.ts).
 */
import { ValidationError } from '../../errors.ts';
import type { ActionTarget, SceneAction } from '../../domain/scenes/types.ts';
import type { PlanContext } from './plan/planner.ts';
import { networkFacts } from './plan/networks.ts';

const MAX_NETWORKS = 64;

/**
 * `networks`: every network on record (ids are checked against it even with one gateway);
 * targets are checked only when the plan context spans several networks.
 */
export function checkScope(
  value: unknown,
  actions: readonly SceneAction[],
  ctx: PlanContext,
  networks: readonly { id: number }[] = ctx.networks ?? [],
): number[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || value.length === 0)
    throw new ValidationError('networks: must be a non-empty list of network ids, or null for automatic');
  if (value.length > MAX_NETWORKS) throw new ValidationError(`networks: at most ${MAX_NETWORKS} ids`);
  const known = networks.map((n) => n.id);
  const ids: number[] = [];
  for (const [i, v] of value.entries()) {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1)
      throw new ValidationError(`networks[${i}]: must be a network id (an integer ≥ 1)`);
    if (known.length > 0 && !known.includes(v)) throw new ValidationError(`networks[${i}]: no network ${v}`);
    if (!ids.includes(v)) ids.push(v);
  }
  ids.sort((a, b) => a - b);
  if ((ctx.networks?.length ?? 0) > 1) checkTargets(ids, actions, ctx);
  return ids;
}

function checkTargets(ids: readonly number[], actions: readonly SceneAction[], ctx: PlanContext): void {
  const f = networkFacts({ ...ctx, scope: null });
  const name = (id: number): string => ctx.networks?.find((n) => n.id === id)?.name ?? `network ${id}`;
  const check = (t: ActionTarget, where: string): void => {
    if (t.kind === 'device') {
      const n = f.networkOf.get(t.value);
      if (n !== undefined && !ids.includes(n))
        throw new ValidationError(
          `${where}.target: device ${t.value} is on ${name(n)}, outside networks [${ids.join(', ')}]`,
        );
    } else if (t.kind === 'groups') {
      for (const g of t.value) {
        const members = [...(f.groupNetworks.get(g) ?? [])];
        if (members.length > 0 && !members.some((n) => ids.includes(n)))
          throw new ValidationError(
            `${where}.target: group ${g} has members only on ${members.map(name).join(', ')}, outside networks [${ids.join(', ')}]`,
          );
      }
    }
  };
  actions.forEach((a, i) => {
    if (a.kind === 'delay' || a.kind === 'sync') return;
    check(a.target, `actions[${i}]`);
    if (a.kind === 'offset_group')
      a.actions.forEach((c, j) => check(c.target, `actions[${i}].actions[${j}]`));
  });
}
