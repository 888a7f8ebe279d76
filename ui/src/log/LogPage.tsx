/**
 * The activity log: what the host did and heard, newest at the bottom, live. Filters
 * (level, category, device, text) are applied by the host for the backlog and here for
 * live entries; Pause holds new entries back (counted) until resumed; Download saves
 * what is shown as text. The page opens its own stream with `?log=1` while it is open.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { apiUrl, get } from '../api.ts';
import { devices } from '../store.ts';
import { toastError } from '../toasts.ts';
import {
  CATEGORIES,
  fieldText,
  LEVELS,
  matchesFilter,
  queryString,
  toText,
  type LogEntry,
  type LogFilter,
} from './model.ts';
import '../health/health.css';

const MAX_ROWS = 2000;

export function LogPage() {
  const [f, setF] = useState<LogFilter>({ level: 'debug', category: '', device: '', q: '' });
  const [rows, setRows] = useState<LogEntry[]>([]);
  const [paused, setPaused] = useState(false);
  const [held, setHeld] = useState<LogEntry[]>([]);
  const [follow, setFollow] = useState(true);
  const filterRef = useRef(f);
  filterRef.current = f;
  const pausedRef = useRef(paused);
  pausedRef.current = paused;
  const lastSeq = useRef(0);
  const scroller = useRef<HTMLDivElement>(null);

  const append = (fresh: LogEntry[]): void => {
    const ok = fresh.filter((e) => e.seq > lastSeq.current && matchesFilter(e, filterRef.current));
    if (fresh.length > 0) lastSeq.current = Math.max(lastSeq.current, ...fresh.map((e) => e.seq));
    if (ok.length === 0) return;
    if (pausedRef.current) setHeld((h) => [...h, ...ok].slice(-MAX_ROWS));
    else setRows((r) => [...r, ...ok].slice(-MAX_ROWS));
  };

  // Backlog for the current filter (the text search waits for a pause in typing).
  useEffect(() => {
    let alive = true;
    const timer = setTimeout(
      () => {
        get<{ entries: LogEntry[]; last_seq: number }>(`log?${queryString(f)}`)
          .then((r) => {
            if (!alive) return;
            lastSeq.current = r.last_seq;
            setRows(r.entries);
            setHeld([]);
          })
          .catch((err) => toastError('Loading the log failed', err));
      },
      f.q ? 250 : 0,
    );
    return () => {
      alive = false;
      clearTimeout(timer);
    };
  }, [f.level, f.category, f.device, f.q]);

  // Live feed: its own opt-in stream; after a reconnect the gap is fetched by cursor.
  useEffect(() => {
    const es = new EventSource(apiUrl('sse?log=1'));
    let opened = false;
    es.onopen = () => {
      if (opened)
        void get<{ entries: LogEntry[] }>(`log?${queryString(filterRef.current, lastSeq.current)}`)
          .then((r) => append(r.entries))
          .catch(() => {});
      opened = true;
    };
    es.addEventListener('log', (e) => {
      try {
        append((JSON.parse((e as MessageEvent).data as string) as { entries: LogEntry[] }).entries);
      } catch {
        /* a malformed frame is skipped */
      }
    });
    return () => es.close();
  }, []);

  useEffect(() => {
    const el = scroller.current;
    if (el && follow) el.scrollTop = el.scrollHeight;
  }, [rows, follow]);

  const names = new Map(devices.value.map((d) => [d.addr, d.name]));
  const resume = (): void => {
    setRows((r) => [...r, ...held].slice(-MAX_ROWS));
    setHeld([]);
    setPaused(false);
  };
  const download = (): void => {
    const blob = new Blob([toText(rows, names)], { type: 'text/plain' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `lightnet-log-${new Date().toISOString().slice(0, 19).replace(/:/g, '')}.log`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  };
  const sorted = [...devices.value].sort((a, b) => a.name.localeCompare(b.name));
  return (
    <main class="main ops-page" id="main">
      <div class="title-row">
        <h1>Activity log</h1>
        <span class="muted">
          {rows.length} shown{paused && held.length > 0 ? ` · ${held.length} new while paused` : ''}
        </span>
      </div>
      <div class="toolbar log-filters" role="toolbar" aria-label="Log filters">
        <select
          aria-label="Level"
          value={f.level}
          onChange={(e) => setF({ ...f, level: e.currentTarget.value as LogFilter['level'] })}
        >
          {LEVELS.map((l) => (
            <option key={l} value={l}>
              {l === 'debug' ? 'All levels' : `${l} and above`}
            </option>
          ))}
        </select>
        <select
          aria-label="Category"
          value={f.category}
          onChange={(e) => setF({ ...f, category: e.currentTarget.value as LogFilter['category'] })}
        >
          <option value="">All categories</option>
          {CATEGORIES.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
        <select
          aria-label="Device"
          value={f.device}
          onChange={(e) => setF({ ...f, device: e.currentTarget.value })}
        >
          <option value="">All devices</option>
          {sorted.map((d) => (
            <option key={d.addr} value={d.addr}>
              {d.name} ({d.addr})
            </option>
          ))}
        </select>
        <input
          type="search"
          class="search"
          placeholder="Search text"
          aria-label="Search the log"
          value={f.q}
          onInput={(e) => setF({ ...f, q: e.currentTarget.value })}
        />
        <button type="button" aria-pressed={paused} onClick={() => (paused ? resume() : setPaused(true))}>
          {paused ? `Resume${held.length ? ` (${held.length})` : ''}` : 'Pause'}
        </button>
        <label class="chip-check">
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.currentTarget.checked)} />{' '}
          follow
        </label>
        <button type="button" onClick={download} disabled={rows.length === 0}>
          Download
        </button>
      </div>
      <div class="ops-scroll log-scroll" ref={scroller}>
        {rows.length === 0 ? (
          <p class="muted">No entries match.</p>
        ) : (
          <table class="devices ops-table log-table" data-testid="log-table">
            <thead>
              <tr>
                <th>Time</th>
                <th>Level</th>
                <th>Category</th>
                <th>Device</th>
                <th>Message</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((e) => (
                <tr key={e.seq} class={`lv-${e.level}`} data-device={e.device ?? ''}>
                  <td class="mono nowrap">{new Date(e.ts * 1000).toLocaleTimeString()}</td>
                  <td>
                    <span class={`pill tiny lv-${e.level}`}>{e.level}</span>
                  </td>
                  <td>{e.category}</td>
                  <td class="nowrap">
                    {e.device ? (
                      <button
                        type="button"
                        class="linklike"
                        title="Show only this device"
                        onClick={() => setF({ ...f, device: e.device ?? '' })}
                      >
                        {names.get(e.device) ?? e.device}
                      </button>
                    ) : (
                      <span class="muted">—</span>
                    )}
                  </td>
                  <td>
                    {e.msg} <span class="muted small-text">{fieldText(e)}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </main>
  );
}
