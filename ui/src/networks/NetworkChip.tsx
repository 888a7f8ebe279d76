/** A network's name as a small chip, its colour fixed by the network id. */
import { networkHue } from './network-view.ts';
import './networks.css';

export function NetworkChip({
  id,
  name,
  count,
  title,
}: {
  id: number;
  name: string;
  count?: number;
  title?: string;
}) {
  return (
    <span
      class="net-chip"
      style={{ '--net-hue': String(networkHue(id)) }}
      title={title ?? name}
      data-network={id}
    >
      {name}
      {count !== undefined && <strong>{count}</strong>}
    </span>
  );
}
