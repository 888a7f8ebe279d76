/**
 * Assign a gateway that belongs to no network: a new network with it (it keeps the channel
 * it is on), or the replacement of a network whose gateway is missing (or that has none).
 * Before a replacement the network's pinned nodes are listed with Unpin (PinnedNodes);
 * after it, the host's list of nodes still pinned to the old gateway is shown.
 */
import { useState } from 'preact/hooks';
import { toast } from '../toasts.ts';
import { assignGateway, errorText } from './network-api.ts';
import { networks } from './networks-store.ts';
import type { UnassignedGatewayInfo } from './network-types.ts';
import { PinnedNodes } from './PinnedNodes.tsx';

export function AssignGateway({ g, onDone }: { g: UnassignedGatewayInfo; onDone: () => void }) {
  const replaceable = networks.value.filter((n) => n.state === 'missing' || n.state === 'no_gateway');
  const [mode, setMode] = useState<'new' | 'replace'>('new');
  const [name, setName] = useState('');
  const [target, setTarget] = useState<number | null>(replaceable[0]?.id ?? null);
  const [error, setError] = useState<string | null>(null);
  const [pinnedAfter, setPinnedAfter] = useState<string[] | null>(null);
  const [busy, setBusy] = useState(false);
  const mac = g.gateway_mac;
  if (!mac) return <p class="muted">This gateway has not identified itself yet: wait until it is ready.</p>;
  const picked = replaceable.find((n) => n.id === target) ?? null;
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const r = await assignGateway(
        mac,
        mode === 'new' ? { new_network: { name: name.trim() } } : { network_id: target ?? 0 },
      );
      toast(`Gateway assigned to '${r.network.name}'`);
      if (r.pinned.length > 0) setPinnedAfter(r.pinned);
      else onDone();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  if (pinnedAfter)
    return (
      <div class="net-assign" data-testid="assign-pinned">
        <p class="warn-text">
          Assigned. These nodes are pinned to the old gateway and will not answer the new one until they are
          unpinned (or reset on their own settings page): {pinnedAfter.join(', ')}.
        </p>
        <button type="button" onClick={onDone}>
          OK
        </button>
      </div>
    );
  return (
    <form class="form net-assign" onSubmit={submit} data-testid="assign-form">
      <label class="check">
        <input type="radio" name={`assign-${mac}`} checked={mode === 'new'} onChange={() => setMode('new')} />{' '}
        A new network (it keeps the channel the gateway is on)
      </label>
      {mode === 'new' && (
        <label>
          Name
          <input
            name="name"
            maxLength={48}
            placeholder="e.g. Track B"
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </label>
      )}
      <label class="check">
        <input
          type="radio"
          name={`assign-${mac}`}
          checked={mode === 'replace'}
          disabled={replaceable.length === 0}
          onChange={() => setMode('replace')}
        />{' '}
        The replacement for a network's missing gateway
        {replaceable.length === 0 && <span class="muted"> (no network is missing its gateway)</span>}
      </label>
      {mode === 'replace' && (
        <>
          <label>
            Network
            <select
              aria-label="Network to replace the gateway of"
              value={target ?? ''}
              onChange={(e) => setTarget(Number(e.currentTarget.value))}
            >
              {replaceable.map((n) => (
                <option key={n.id} value={n.id}>
                  {n.name} ({n.state === 'missing' ? 'gateway missing' : 'no gateway'}, {n.device_count}{' '}
                  devices)
                </option>
              ))}
            </select>
          </label>
          {picked && <PinnedNodes networkId={picked.id} networkName={picked.name} />}
        </>
      )}
      {error && (
        <p class="error-text" role="alert" data-testid="assign-error">
          {error}
        </p>
      )}
      <div class="buttons">
        <button type="button" onClick={onDone}>
          Cancel
        </button>
        <button
          type="submit"
          class="primary"
          disabled={busy || (mode === 'new' ? !name.trim() : target === null)}
        >
          Assign
        </button>
      </div>
    </form>
  );
}
