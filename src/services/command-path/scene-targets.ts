/**
 * What a scene aims at, in the path's terms: every action's target (a SYNC or a delay aims at
 * nothing of its own: it fires or waits on what the other actions set). A broadcast is `all`.
 */
import type { ActionTarget, SceneAction } from '../../domain/scenes/types.ts';
import type { TargetJson } from './targets.ts';

export function fromActionTarget(t: ActionTarget): TargetJson[] {
  if (t.kind === 'broadcast') return [{ kind: 'all' }];
  if (t.kind === 'device') return [{ kind: 'device', addr: t.value }];
  return t.value.map((id) => ({ kind: 'group' as const, id }));
}

export function sceneTargets(actions: readonly SceneAction[]): TargetJson[] {
  const out: TargetJson[] = [];
  const seen = new Set<string>();
  for (const a of actions) {
    if (!('target' in a)) continue;
    for (const t of fromActionTarget(a.target)) {
      const k = JSON.stringify(t);
      if (seen.has(k)) continue;
      seen.add(k);
      out.push(t);
    }
  }
  // `all` covers the rest: one target says the same and decides faster.
  return out.some((t) => t.kind === 'all') ? [{ kind: 'all' }] : out;
}
