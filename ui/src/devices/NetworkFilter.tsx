/** The network filter's control beside the device search: shown from two networks on. */
import { multiNetwork, networks } from '../networks/networks-store.ts';
import { networkFilter } from './network-filter.ts';

export function NetworkFilter() {
  if (!multiNetwork.value) return null;
  const list = networks.value;
  // A network that went away (deleted) leaves the filter on every network.
  const value = list.some((n) => n.id === networkFilter.value) ? String(networkFilter.value) : '';
  return (
    <select
      class="network-filter"
      aria-label="Network filter"
      title="Show the devices of one network"
      value={value}
      onChange={(e) => {
        const v = e.currentTarget.value;
        networkFilter.value = v === '' ? null : Number(v);
      }}
      data-testid="network-filter"
    >
      <option value="">All networks</option>
      {list.map((n) => (
        <option key={n.id} value={String(n.id)}>
          {n.name} ({n.device_count})
        </option>
      ))}
    </select>
  );
}
