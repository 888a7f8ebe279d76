/**
 * The scene's network scope (several gateways only): "Automatic" (the networks its targets
 * live on; every network for a broadcast) or an explicit list that restricts broadcasts and
 * SYNC. With one network it renders nothing.
 */
import { sceneNetworks } from './scene-networks.ts';

export function SceneScope({
  value,
  onChange,
}: {
  value: number[] | null;
  onChange: (v: number[] | null) => void;
}) {
  const nets = sceneNetworks.value;
  if (nets.length < 2) return null;
  const toggle = (id: number) => {
    const cur = value ?? [];
    const next = cur.includes(id) ? cur.filter((x) => x !== id) : [...cur, id].sort((a, b) => a - b);
    onChange(next.length > 0 ? next : null);
  };
  return (
    <span class="chips" role="group" aria-label="Scene networks" data-testid="scene-scope">
      <span
        class="muted"
        title="Each gateway stamps its SYNC with its own clock: armed effects fire together on every network, but the effect timebases of two networks are not aligned."
      >
        Networks:
      </span>
      <button
        type="button"
        class={`chip-check${value === null ? ' on' : ''}`}
        aria-pressed={value === null}
        title="The networks its targets live on; every network for a broadcast or a sync-only scene"
        onClick={() => onChange(null)}
      >
        Automatic
      </button>
      {nets.map((n) => {
        const on = value?.includes(n.id) ?? false;
        return (
          <button
            type="button"
            key={n.id}
            class={`chip-check${on ? ' on' : ''}`}
            aria-pressed={on}
            title={`Broadcasts and SYNC reach ${n.name}${on ? '' : ' (click to restrict the scene to it)'}`}
            onClick={() => toggle(n.id)}
          >
            {n.name}
          </button>
        );
      })}
    </span>
  );
}
