/**
 * The networks the scene editor offers as a scope (several gateways). Read from
 * `GET /api/networks` when the Scenes page opens; with one network nothing scope-related
 * is shown, so the editor looks exactly as it did.
 */
import { signal } from '@preact/signals';
import { get } from '../api.ts';

export interface SceneNetwork {
  id: number;
  name: string;
}

export const sceneNetworks = signal<SceneNetwork[]>([]);

export async function loadSceneNetworks(): Promise<void> {
  const r = await get<{ networks: SceneNetwork[] }>('networks');
  sceneNetworks.value = r.networks.map((n) => ({ id: n.id, name: n.name }));
}

/** "Track A, Track B" for a list of ids (unknown ids by number). */
export function networkNames(ids: readonly number[], all: readonly SceneNetwork[]): string {
  return ids.map((id) => all.find((n) => n.id === id)?.name ?? `network ${id}`).join(', ');
}
