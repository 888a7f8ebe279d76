/**
 * The nodes of a network with master persistence on ("pinned"): they restore their old
 * gateway as master at every boot and ignore any other one, so before a gateway swap they
 * are unpinned — through the old gateway, while it still reaches them. One click each, or
 * all at once; the host's answer (unpinned, failed with its reason) is shown as it is.
 */
import { useEffect, useState } from 'preact/hooks';
import { errorText, loadPinned, unpinNodes, type PinnedRow } from './network-api.ts';

export function PinnedNodes({ networkId, networkName }: { networkId: number; networkName: string }) {
  const [rows, setRows] = useState<PinnedRow[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [failed, setFailed] = useState<{ addr: string; error: string }[]>([]);
  const [busy, setBusy] = useState(false);
  const reload = (): void => {
    loadPinned(networkId)
      .then((r) => {
        setRows(r);
        setError(null);
      })
      .catch((err) => setError(errorText(err)));
  };
  useEffect(reload, [networkId]);
  const unpin = async (addrs?: string[]): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      const r = await unpinNodes(networkId, addrs);
      setFailed(r.failed);
      setRows(r.pinned_left);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="net-pinned" data-testid={`pinned-${networkId}`}>
      {rows === null && !error && <p class="muted">Looking for pinned nodes…</p>}
      {rows?.length === 0 && (
        <p class="muted" data-testid="pinned-none">
          No node of {networkName} is pinned: any gateway assigned to it will be heard.
        </p>
      )}
      {rows && rows.length > 0 && (
        <>
          <p class="warn-text">
            {rows.length} node{rows.length === 1 ? '' : 's'} of {networkName}{' '}
            {rows.length === 1 ? 'is' : 'are'} pinned to the old gateway (master persistence on) and would
            ignore a new one. Unpin them while the old gateway still reaches them.
          </p>
          <ul class="net-pinned-list">
            {rows.map((p) => (
              <li key={p.addr} data-testid={`pinned-row-${p.addr}`}>
                <span>{p.name}</span> <span class="mono muted">{p.addr}</span>
                {p.online === false && <span class="muted"> (offline)</span>}{' '}
                <button type="button" class="small" disabled={busy} onClick={() => void unpin([p.addr])}>
                  Unpin
                </button>
              </li>
            ))}
          </ul>
          {rows.length > 1 && (
            <button type="button" disabled={busy} onClick={() => void unpin()}>
              Unpin all {rows.length}
            </button>
          )}
        </>
      )}
      {failed.map((f) => (
        <p key={f.addr} class="error-text" role="alert">
          {f.addr}: {f.error}
        </p>
      ))}
      {error && (
        <p class="error-text" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
