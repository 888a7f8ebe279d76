/**
 * Status bar: gateway pill (one per network with several), simulator badge, last activity, the running
 * task, the race flags (red one press; the bar turns red while it is up) and Blackout.
 */
import { useEffect, useState } from 'preact/hooks';
import { post } from '../api.ts';
import { formatElapsed, relativeTime } from '../format.ts';
import { gateway, link, loadMaster, master, nowS, recovery, task, taskReceivedAt } from '../store.ts';
import { BlackoutButton } from '../race/BlackoutButton.tsx';
import { FlagBar } from '../race/FlagButtons.tsx';
import { flagState } from '../race/flags-store.ts';
import { raceMode } from '../race/race-mode.ts';
import { PageLink } from '../common/PageLink.tsx';
import { eventText, optionLabels, taskLabel, taskMessage } from '../task-text.ts';
import { progressView } from '../common/task-progress.ts';
import { toast, toastError } from '../toasts.ts';
import { NetworkPills, UnassignedPills } from '../networks/NetworkPills.tsx';
import { multiNetwork } from '../networks/networks-store.ts';

const STATE_CLASS: Record<string, string> = {
  IDLE: 'good',
  TX: 'tx',
  RX: 'warn',
  RX_WINDOW: 'warn',
  ERROR: 'bad',
};

export function GatewayPill() {
  const g = gateway.value;
  const m = master.value;
  const [busy, setBusy] = useState(false);
  const state = m?.state ?? 'UNKNOWN';
  // Without the host the last known gateway state is stale: never show it green.
  const hostLost = link.value === 'lost';
  const cls = hostLost ? 'none outline' : g && !g.ready ? 'bad outline' : (STATE_CLASS[state] ?? 'none');
  const transport = g?.transport ?? '?';
  const title = [
    `Gateway state ${state} (byte ${m?.state_byte ?? '?'})`,
    `Link: ${g?.ready ? 'ready' : 'not ready'} via ${transport}${g?.port ? ` (${g.port})` : ''}`,
    g?.gateway_mac ? `Gateway MAC ${g.gateway_mac}` : '',
    g?.last_error ? `Last error: ${g.last_error}` : '',
    `Failures: ${g?.failure_count ?? 0}`,
    'Click to ask the gateway for its state',
  ]
    .filter(Boolean)
    .join('\n');
  const query = async () => {
    setBusy(true);
    try {
      await post('gateway/query-state');
      await loadMaster();
    } catch (err) {
      toastError('Gateway query failed', err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <button
      type="button"
      class={`pill gw ${cls}`}
      title={title}
      onClick={query}
      disabled={busy}
      data-testid="gateway-pill"
    >
      <span class="dot" aria-hidden="true" />
      <span>{hostLost ? 'HOST UNREACHABLE' : g && !g.ready ? 'GATEWAY DOWN' : state}</span>
      <span class="muted">· {transport}</span>
    </button>
  );
}

/** Where each phase of the running task began (task elapsed seconds), and the most found. */
const phaseStart = new Map<string, number>();
const foundMax = new Map<number, number>();

function TaskLine() {
  const t = task.value;
  const [, tick] = useState(0);
  const running = t?.state === 'running';
  useEffect(() => {
    if (!running) return;
    const id = setInterval(() => tick((n) => n + 1), 1000);
    return () => clearInterval(id);
  }, [running]);
  if (!t || !running) return null;
  const elapsed = (t.elapsed_s ?? 0) + (Date.now() - taskReceivedAt.value) / 1000;
  const found = Math.max(foundMax.get(t.id) ?? 0, typeof t.meta.found === 'number' ? t.meta.found : 0);
  foundMax.set(t.id, found);
  const probe = progressView(t, 0, found);
  if (!phaseStart.has(probe.key)) phaseStart.set(probe.key, elapsed);
  const v = progressView(t, elapsed - (phaseStart.get(probe.key) ?? elapsed), found);
  const message = taskMessage(t);
  const cancel = async () => {
    try {
      await post('task/cancel');
      toast(`Cancelling ${taskLabel(t.name)}…`);
    } catch (err) {
      toastError('Cancel failed', err);
    }
  };
  return (
    <div class="task-line" role="status" data-testid="task-line">
      <span class="spinner" aria-hidden="true" />
      <strong>{taskLabel(t.name)}</strong>
      <span class="muted ellipsis" title={message}>
        {v.phase ||
          (t.name === 'special_config'
            ? `writing ${optionLabels.get(String(t.meta.key)) ?? String(t.meta.key)}`
            : message)}
      </span>
      {v.fraction !== null ? (
        <span class="progress" title={message}>
          <span class="bar" style={{ width: `${Math.round(100 * v.fraction)}%` }} />
          <span class="progress-text" data-testid="task-counts">
            {v.counts}
          </span>
        </span>
      ) : (
        v.counts && (
          <span class="mono" data-testid="task-counts">
            {v.counts}
          </span>
        )
      )}
      <span class="muted mono" title="elapsed">
        {formatElapsed(elapsed)}
      </span>
      {v.leftS !== null && (
        <span class="muted mono" data-testid="task-left" title="estimated from the rate so far in this phase">
          ~{formatElapsed(v.leftS)} left
        </span>
      )}
      <button
        type="button"
        class="small"
        onClick={cancel}
        disabled={t.cancel_requested === true}
        title="Stop this task at its next safe point"
      >
        {t.cancel_requested ? 'Cancelling…' : 'Cancel'}
      </button>
    </div>
  );
}

/** "Restoring 212/300": known nodes that rebooted being put back into their groups. */
function RecoveryLine() {
  const p = recovery.value;
  if (!p?.active || p.total === 0) return null;
  const done = p.restored + p.failed;
  return (
    <div
      class="task-line recovery-line"
      role="status"
      data-testid="recovery-line"
      title={`Known nodes that rebooted (${p.trigger ?? 'field power-up'}) are put back into their stored groups; ${p.rejoining} still rejoining, each for up to ${p.budget_s} s`}
    >
      <span class="spinner" aria-hidden="true" />
      <strong>
        Restoring {p.restored}/{p.total}
      </strong>
      <span class="progress">
        <span class="bar" style={{ width: `${Math.min(100, (100 * done) / p.total)}%` }} />
      </span>
      {p.failed > 0 && <span class="muted">{p.failed} offline</span>}
    </div>
  );
}

export function StatusBar() {
  const m = master.value;
  const g = gateway.value;
  return (
    <div class={`status-bar${flagState.value?.flag === 'red' ? ' flag-red' : ''}`}>
      {multiNetwork.value ? <NetworkPills /> : <GatewayPill />}
      <UnassignedPills />
      {g?.transport === 'sim' && (
        <span
          class="pill sim"
          title="The host runs on its built-in simulator, not real hardware"
          data-testid="sim-badge"
        >
          SIMULATED GATEWAY
        </span>
      )}
      {m && (
        <span
          class="muted small-text"
          // Written on hover: the first date formatted in a page sets up the browser's
          // locale data (several ms), which the first open should not wait for.
          onMouseEnter={(e) => {
            e.currentTarget.title = m.last_event_ts ? new Date(m.last_event_ts * 1000).toLocaleString() : '';
          }}
        >
          last: {m.last_event ? eventText(m.last_event, m.last_error) : '—'}{' '}
          {m.last_event_ts ? `(${relativeTime(m.last_event_ts, nowS.value)})` : ''}
        </span>
      )}
      <RecoveryLine />
      <TaskLine />
      <span class="status-right">
        {raceMode.value && (
          <span class="pill race-pill" title="Race mode: destructive actions are hidden (Race page)">
            RACE MODE
          </span>
        )}
        <FlagBar />
        <span class="help-link">
          <PageLink to="help" label="? Help" title="What the states, marks and keys mean" />
        </span>
        <BlackoutButton />
      </span>
    </div>
  );
}
