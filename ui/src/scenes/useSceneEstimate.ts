/** The live cost estimate of a scene draft, debounced; the host's answer also validates the actions. */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, post } from '../api.ts';
import { delayTotalMs, type Estimate } from './scene-model.ts';
import type { SceneAction } from '../types.ts';

/** One network's share (several gateways only). */
export interface NetworkEstimate {
  network_id: number;
  packets: number;
  airtime_ms: number;
  wall_clock_ms: number;
}

export interface DraftEstimate {
  total: Estimate;
  per_action: Estimate[];
  per_network?: NetworkEstimate[];
  /** The delays of the actions this estimate was made for (the total's waiting time). */
  wait: number;
  /** The draft (serialised) this estimate was made for. */
  basis: string;
}

export function useSceneEstimate(
  actions: SceneAction[],
  networks: number[] | null = null,
): {
  estimate: DraftEstimate | null;
  estError: string;
  /** The draft changed since the estimate shown was made (a new one is on its way). */
  pending: boolean;
} {
  const [estimate, setEstimate] = useState<DraftEstimate | null>(null);
  const [estError, setEstError] = useState('');
  const basis = JSON.stringify([actions, networks]);
  useEffect(() => {
    const timer = setTimeout(async () => {
      if (!actions.length) {
        setEstimate(null);
        setEstError('');
        return;
      }
      try {
        const r = await post<{ total: Estimate; per_action: Estimate[]; per_network?: NetworkEstimate[] }>(
          'scenes/estimate',
          networks ? { actions, networks } : { actions },
        );
        setEstimate({ ...r, wait: delayTotalMs(actions), basis });
        setEstError('');
      } catch (err) {
        setEstError(err instanceof ApiError ? err.message : String(err));
      }
    }, 300);
    return () => clearTimeout(timer);
  }, [basis]);
  return { estimate, estError, pending: actions.length > 0 && estimate?.basis !== basis };
}
