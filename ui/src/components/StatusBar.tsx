/** Status bar: gateway pill, simulator badge, last activity, the running task. */
import { useEffect, useState } from 'preact/hooks';
import { post } from '../api.ts';
import { formatElapsed, relativeTime } from '../format.ts';
import { gateway, link, loadMaster, master, nowS, task, taskReceivedAt } from '../store.ts';
import { BlackoutButton } from '../race/BlackoutButton.tsx';
import { raceMode } from '../race/race-mode.ts';
import { PageLink } from '../common/PageLink.tsx';
import { eventText } from '../task-text.ts';
import { taskLabel, taskMessage, taskProgress } from '../task-text.ts';
import { toast, toastError } from '../toasts.ts';

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
  const p = taskProgress(t);
  const elapsed = (t.elapsed_s ?? 0) + (Date.now() - taskReceivedAt.value) / 1000;
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
      <span class="muted ellipsis">{taskMessage(t)}</span>
      {p && (
        <span class="progress" title={`${p.index} of ${p.total}`}>
          <span class="bar" style={{ width: `${Math.min(100, (100 * p.index) / p.total)}%` }} />
          <span class="progress-text">
            {p.index}/{p.total}
          </span>
        </span>
      )}
      <span class="muted mono">{formatElapsed(elapsed)}</span>
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

export function StatusBar() {
  const m = master.value;
  const g = gateway.value;
  return (
    <div class="status-bar">
      <GatewayPill />
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
          title={m.last_event_ts ? new Date(m.last_event_ts * 1000).toLocaleString() : ''}
        >
          last: {m.last_event ? eventText(m.last_event, m.last_error) : '—'}{' '}
          {m.last_event_ts ? `(${relativeTime(m.last_event_ts, nowS.value)})` : ''}
        </span>
      )}
      <TaskLine />
      <span class="status-right">
        {raceMode.value && (
          <span class="pill race-pill" title="Race mode: destructive actions are hidden (Race page)">
            RACE MODE
          </span>
        )}
        <span class="help-link">
          <PageLink to="help" label="? Help" title="What the states, marks and keys mean" />
        </span>
        <BlackoutButton />
      </span>
    </div>
  );
}
