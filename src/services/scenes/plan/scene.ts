/**
 * The planner's entry: one network (or none configured) plans the fleet in one Env; several
 * plan each network in the scene's scope on its own (networks.ts). Above both, so the
 * one-network planner never needs the multi-network one that builds on it.
 */
import type { SceneAction } from '../../../domain/scenes/types.ts';
import { planAcrossNetworks } from './networks.ts';
import { newEnv, planOne } from './planner.ts';
import type { PlanContext, PlannedAction } from './types.ts';

/** Plans every action of a scene, in order (several networks: each in scope, see networks.ts). */
export function planScene(actions: readonly SceneAction[], ctx: PlanContext): PlannedAction[] {
  if (ctx.networks && ctx.networks.length > 1) return planAcrossNetworks(actions, ctx);
  const env = newEnv(ctx);
  return actions.map((a, i) => planOne(env, a, i));
}
