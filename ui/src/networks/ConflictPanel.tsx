/**
 * A network whose gateway is on other radio settings than its record: the differing
 * fields side by side and the three ways out — retune the gateway to the network (the
 * nodes stay put), move the network's nodes to the gateway's channel (a migration with the
 * gateway's settings as target), or adopt the gateway's settings (the record changes, the
 * nodes stay on the old channel: stranded until scanned and brought home — confirmed).
 */
import { useState } from 'preact/hooks';
import { confirmAction } from '../dialogs/confirm.tsx';
import { toast } from '../toasts.ts';
import { RF_FIELDS, channelText } from './network-view.ts';
import { adoptGatewayRf, errorText, retuneGateway } from './network-api.ts';
import type { NetworkInfo, RfConfig } from './network-types.ts';

export function ConflictPanel({ n, onMoveNodes }: { n: NetworkInfo; onMoveNodes: (to: RfConfig) => void }) {
  const c = n.conflict;
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  if (!c) return null;
  const gwRf = c.gateway_rf;
  const run = async (what: string, fn: () => Promise<void>): Promise<void> => {
    setBusy(what);
    setError(null);
    try {
      await fn();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(null);
    }
  };
  const retune = () =>
    run('retune', async () => {
      await retuneGateway(n.id);
      // Only the gateway is known to be back: its nodes answer there or not (they may be
      // tuned elsewhere), so the words promise no more than that.
      toast(
        `Gateway of ${n.name} retuned to ${channelText(n.rf)}. Its ${n.device_count} device(s) show online as ` +
          'they answer there; any that stay offline are on another channel: Scan channels… finds them.',
      );
    });
  const adopt = async (): Promise<void> => {
    const ok = await confirmAction({
      title: `Adopt the gateway's settings for ${n.name}?`,
      body:
        `${n.name}'s record becomes ${channelText(gwRf)}. Its ${n.device_count} device(s) stay on ` +
        `${channelText(n.rf)} and can no longer be reached: they are stranded until a channel scan finds them ` +
        `and Bring home moves them. Prefer "Move the nodes" while they are online.`,
      confirm: 'Adopt and strand the nodes',
      danger: true,
    });
    if (!ok) return;
    await run('adopt', async () => {
      const r = await adoptGatewayRf(n.id);
      toast(r.warning ?? `${n.name} now uses ${channelText(gwRf)}`, r.warning ? 'error' : 'ok');
    });
  };
  return (
    <div class="net-conflict" data-testid="conflict-panel">
      <p class="warn-text">
        Its gateway is on other radio settings than the network's nodes: it carries no traffic until this is
        resolved.
      </p>
      <table class="net-diff" data-testid="conflict-fields">
        <thead>
          <tr>
            <th>Setting</th>
            <th>Network (its nodes)</th>
            <th>Gateway</th>
          </tr>
        </thead>
        <tbody>
          {c.fields.map((f) => {
            const k = f as keyof RfConfig;
            const d = RF_FIELDS[k];
            return (
              <tr key={f} data-field={f}>
                <td>{d?.label ?? f}</td>
                <td class="mono">{n.rf && d ? d.show(n.rf[k]) : '—'}</td>
                <td class="mono">{gwRf && d ? d.show(gwRf[k]) : '—'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <ol class="net-resolutions">
        <li>
          <button type="button" class="primary" disabled={busy !== null} onClick={() => void retune()}>
            {busy === 'retune' ? 'Retuning…' : 'Retune the gateway'}
          </button>{' '}
          <span class="muted">
            to {channelText(n.rf)}: the nodes stay where they are (the gateway restarts).
          </span>
        </li>
        <li>
          <button type="button" disabled={busy !== null || !gwRf} onClick={() => gwRf && onMoveNodes(gwRf)}>
            Move the nodes…
          </button>{' '}
          <span class="muted">
            to the gateway's {channelText(gwRf)} (a channel move of every online node).
          </span>
        </li>
        <li>
          <button type="button" class="danger" disabled={busy !== null} onClick={() => void adopt()}>
            Adopt the gateway's settings…
          </button>{' '}
          <span class="muted">Warning: strands every node still on {channelText(n.rf)}.</span>
        </li>
      </ol>
      {error && (
        <p class="error-text" role="alert" data-testid="conflict-error">
          {error}
        </p>
      )}
    </div>
  );
}
