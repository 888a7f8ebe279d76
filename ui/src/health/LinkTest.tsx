/** Link test: pick devices (a group or a filtered list), N status exchanges each, progress, then the results table. */
import { useState } from 'preact/hooks';
import { post } from '../api.ts';
import { devices, groups, task, taskRunning } from '../store.ts';
import { taskProgress } from '../task-text.ts';
import { toastError } from '../toasts.ts';
import type { LinkTestDevice, LinkTestResult, Range } from './data.ts';

const range = (r: Range | null): string =>
  r === null ? '—' : r.min === r.max ? String(r.min) : `${r.min} … ${r.max}`;

export function LinkTest() {
  const [gid, setGid] = useState<number | null>(null);
  const [q, setQ] = useState('');
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const [count, setCount] = useState(10);
  const [taskId, setTaskId] = useState<number | null>(null);
  const needle = q.trim().toLowerCase();
  const list = devices.value
    .filter(
      (d) =>
        (gid === null || d.groupId === gid) &&
        (!needle || `${d.name} ${d.addr}`.toLowerCase().includes(needle)),
    )
    .sort((a, b) => a.name.localeCompare(b.name));
  const t = task.value;
  const mine = t && (taskId === null ? t.name === 'link_test' : t.id === taskId) ? t : null;
  const running = mine?.state === 'running';
  const p = mine ? taskProgress(mine) : null;
  const result = mine?.state === 'done' ? (mine.result as LinkTestResult | null) : null;

  const toggle = (addr: string): void => {
    const next = new Set(picked);
    if (next.has(addr)) next.delete(addr);
    else next.add(addr);
    setPicked(next);
  };
  const start = async (): Promise<void> => {
    try {
      const r = await post<{ task: { id: number } }>('link-test', { macs: [...picked], count });
      setTaskId(r.task.id);
    } catch (err) {
      toastError('Link test refused', err);
    }
  };
  return (
    <section class="ops-section" aria-label="Link test">
      <p class="muted">
        Sends {count} status requests to each picked device, one round over all of them at a time, and reports
        lost replies, round-trip time and the signal range both ways. Walk the course while it runs.
      </p>
      <div class="ops-head">
        <select
          aria-label="Group"
          value={gid ?? ''}
          onChange={(e) => setGid(e.currentTarget.value === '' ? null : Number(e.currentTarget.value))}
        >
          <option value="">All groups</option>
          <option value="0">Unconfigured</option>
          {groups.value
            .filter((g) => g.id !== 0)
            .map((g) => (
              <option key={g.id} value={g.id}>
                {g.name} (#{g.id})
              </option>
            ))}
        </select>
        <input
          type="search"
          class="search"
          placeholder="Filter name or MAC"
          aria-label="Filter devices"
          value={q}
          onInput={(e) => setQ(e.currentTarget.value)}
        />
        <button type="button" onClick={() => setPicked(new Set([...picked, ...list.map((d) => d.addr)]))}>
          Pick all shown ({list.length})
        </button>
        <button type="button" onClick={() => setPicked(new Set())} disabled={picked.size === 0}>
          Clear
        </button>
      </div>
      <div class="pick-grid" role="group" aria-label="Devices to test">
        {list.slice(0, 400).map((d) => (
          <label key={d.addr} class={`chip-check${d.online ? '' : ' muted'}`}>
            <input type="checkbox" checked={picked.has(d.addr)} onChange={() => toggle(d.addr)} /> {d.name}
          </label>
        ))}
      </div>
      <div class="ops-head">
        <label>
          Exchanges per device{' '}
          <input
            type="number"
            min={1}
            max={100}
            value={count}
            class="small-field"
            aria-label="Exchanges per device"
            onInput={(e) => setCount(Math.max(1, Math.min(100, Number(e.currentTarget.value) || 1)))}
          />
        </label>
        <button
          type="button"
          class="go"
          disabled={picked.size === 0 || taskRunning.value}
          onClick={() => void start()}
          title={taskRunning.value ? 'Another task is running' : undefined}
        >
          Start link test ({picked.size} device{picked.size === 1 ? '' : 's'})
        </button>
        {running && p && (
          <span class="nowrap" data-testid="linktest-progress">
            <progress max={p.total} value={p.index} /> {p.index}/{p.total} exchanges
            {typeof mine?.meta.lost === 'number' && mine.meta.lost > 0 && (
              <span class="warn-text"> · {mine.meta.lost} lost</span>
            )}
          </span>
        )}
        {mine?.state === 'error' && (
          <span class="error-text">
            Link test {mine.last_error === 'cancelled' ? 'cancelled' : `failed: ${mine.last_error}`}
          </span>
        )}
      </div>
      {result && <Results r={result} />}
    </section>
  );
}

export function Results({ r }: { r: LinkTestResult }) {
  const rows = [...r.devices].sort((a, b) => b.loss_pct - a.loss_pct || a.name.localeCompare(b.name));
  return (
    <div class="ops-table-wrap">
      <table class="devices ops-table" data-testid="linktest-results">
        <thead>
          <tr>
            <th>Name</th>
            <th class="num">Received</th>
            <th class="num">Loss</th>
            <th class="num">RTT min / avg / max</th>
            <th class="num">RSSI ↑</th>
            <th class="num">SNR ↑</th>
            <th class="num">RSSI ↓</th>
            <th class="num">SNR ↓</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((d: LinkTestDevice) => (
            <tr key={d.addr}>
              <td>{d.name}</td>
              <td class="num">
                {d.received}/{d.sent}
              </td>
              <td class={`num lvl-${d.loss_pct === 0 ? 'good' : d.loss_pct < 20 ? 'warn' : 'bad'}`}>
                {d.loss_pct} %
              </td>
              <td class="num nowrap">
                {d.rtt_ms ? `${d.rtt_ms.min} / ${d.rtt_ms.avg} / ${d.rtt_ms.max} ms` : '—'}
              </td>
              <td class="num">{range(d.host_rssi)}</td>
              <td class="num">{range(d.host_snr)}</td>
              <td class="num">{range(d.node_rssi)}</td>
              <td class="num">{range(d.node_snr)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
