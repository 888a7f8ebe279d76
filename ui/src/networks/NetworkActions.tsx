/**
 * A network card's actions: rename (inline), move to another channel, scan channels,
 * release its gateway (it becomes a spare; the last step before a delete),
 * delete (offered only when empty, the reason shown otherwise; the host checks again and
 * refuses while devices or a gateway remain), and — before
 * swapping its gateway — its pinned nodes with Unpin. Sub-dialogs open through `open`.
 */
import { useState } from 'preact/hooks';
import { confirmAction } from '../dialogs/confirm.tsx';
import { toast } from '../toasts.ts';
import { deleteNetwork, errorText, releaseGateway, renameNetwork } from './network-api.ts';
import { deleteBlocker, gatewayMacText } from './network-view.ts';
import { networks } from './networks-store.ts';
import type { NetworkInfo } from './network-types.ts';
import { PinnedNodes } from './PinnedNodes.tsx';

export type SubDialog =
  | { kind: 'create' }
  | { kind: 'move'; id: number; target?: NetworkInfo['rf'] }
  | { kind: 'scan'; id: number };

export function NetworkActions({ n, open }: { n: NetworkInfo; open: (s: SubDialog) => void }) {
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(n.name);
  const [error, setError] = useState<string | null>(null);
  const [pinnedShown, setPinnedShown] = useState(false);
  const rename = async (e: Event): Promise<void> => {
    e.preventDefault();
    setError(null);
    try {
      await renameNetwork(n.id, name.trim());
      setRenaming(false);
    } catch (err) {
      setError(errorText(err));
    }
  };
  const remove = async (): Promise<void> => {
    setError(null);
    const ok = await confirmAction({
      title: `Delete network '${n.name}'?`,
      body: 'Only an empty network can be deleted: no devices and no gateway assigned.',
      confirm: 'Delete',
      danger: true,
    });
    if (!ok) return;
    try {
      await deleteNetwork(n.id);
      toast(`Network '${n.name}' deleted`);
    } catch (err) {
      setError(errorText(err));
    }
  };
  const release = async (raw: string): Promise<void> => {
    setError(null);
    const mac = gatewayMacText(raw);
    const devices = `${n.device_count} device${n.device_count === 1 ? '' : 's'}`;
    const ok = await confirmAction({
      title: `Release gateway ${mac} from '${n.name}'?`,
      body:
        `The gateway becomes a spare: it is listed under "Gateways in no network" and carries no traffic until you assign it again. ` +
        `'${n.name}' keeps its ${devices}, their groups and its channel, but ` +
        (n.device_count > 0
          ? 'they cannot be reached until a gateway is assigned to it.'
          : 'nothing is on the air for it until a gateway is assigned to it.'),
      confirm: 'Release gateway',
      danger: n.device_count > 0,
    });
    if (!ok) return;
    try {
      await releaseGateway(raw);
      toast(`Gateway ${mac} released: '${n.name}' has no gateway now`);
    } catch (err) {
      setError(errorText(err));
    }
  };
  const onAir = n.state === 'ready';
  // The host releases a gateway whenever one is assigned (attached, missing or conflicting).
  const gatewayMac = n.gateway_mac;
  // Offered only when the host would take it (it checks again and refuses with 409).
  const blocked = deleteBlocker(n, networks.value.length);
  const whyId = `net-delete-why-${n.id}`;
  return (
    <div class="net-actions">
      {renaming ? (
        <form class="net-rename" onSubmit={rename}>
          <input
            aria-label="New name"
            maxLength={48}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <button type="submit" class="primary small" disabled={!name.trim()}>
            Save
          </button>
          <button type="button" class="small" onClick={() => setRenaming(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <div class="net-buttons">
          <button
            type="button"
            class="small"
            onClick={() => {
              setName(n.name);
              setRenaming(true);
            }}
          >
            Rename
          </button>
          <button
            type="button"
            class="small"
            disabled={!onAir}
            onClick={() => open({ kind: 'move', id: n.id })}
          >
            Move to another channel…
          </button>
          <button
            type="button"
            class="small"
            disabled={!onAir}
            onClick={() => open({ kind: 'scan', id: n.id })}
          >
            Scan channels…
          </button>
          <button type="button" class="small" disabled={!onAir} onClick={() => setPinnedShown(!pinnedShown)}>
            {pinnedShown ? 'Hide pinned nodes' : 'Pinned nodes'}
          </button>
          {gatewayMac !== null && (
            <button type="button" class="small" onClick={() => void release(gatewayMac)}>
              Release gateway…
            </button>
          )}
          <button
            type="button"
            class="small danger"
            disabled={blocked !== null}
            title={blocked ?? undefined}
            aria-describedby={blocked ? whyId : undefined}
            onClick={() => void remove()}
          >
            Delete
          </button>
          {blocked && (
            <span class="muted net-delete-why" id={whyId} data-testid="network-delete-why">
              {blocked}
            </span>
          )}
        </div>
      )}
      {pinnedShown && onAir && <PinnedNodes networkId={n.id} networkName={n.name} />}
      {error && (
        <p class="error-text" role="alert" data-testid="network-error">
          {error}
        </p>
      )}
    </div>
  );
}
