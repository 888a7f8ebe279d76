/** Fleet health at a glance: online per group, the alert list with acknowledge, the health table and its CSV. */
import { Component } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { batteryState, warnPerCellOf } from '../common/battery-cells.ts';
import { thresholds } from '../common/battery.ts';
import { formatMac, relativeTime, rssiLevel, snrLevel } from '../format.ts';
import { devices, groups, groupsById, nowS, statsOf } from '../store.ts';
import type { Device } from '../types.ts';
import { consoleLoaded } from '../console.ts';
import { acknowledge, acks, unacknowledge } from './acks.ts';
import { configPills } from '../common/config-pills.ts';
import { rowChanged } from '../common/row-update.ts';
import { ALERT_LABEL, computeAlerts, pruneAcks } from './alerts.ts';
import { downloadCsv, fleetCsv } from './fleet-csv.ts';
import { links } from './data.ts';

const groupName = (id: number): string =>
  id === 0 ? 'Unconfigured' : (groupsById.value.get(id)?.name ?? `#${id}`);

function Sig({ rssi, snr }: { rssi: number; snr: number }) {
  if (!rssi) return <span class="muted">—</span>;
  return (
    <span class="nowrap">
      <span class={`lvl-${rssiLevel(rssi)}`}>{rssi}</span> /{' '}
      <span class={`lvl-${snrLevel(snr, true)}`}>{snr}</span>
    </span>
  );
}

/** Rows drawn at first (and added each time the table's end scrolls into view). */
const PAGE = 50;

interface HealthRowProps {
  d: Device;
  group: string;
  warnPerCell: number;
  failures: number;
  now: number;
  onOpen: (addr: string) => void;
}

/**
 * One row of the health table. It redraws only when its device, its numbers or the
 * 5-second clock bucket change: the page's clock tick used to redraw every row (a
 * 145 ms task every 5 s at 1 000 devices).
 */
class HealthRow extends Component<HealthRowProps> {
  override shouldComponentUpdate(n: HealthRowProps): boolean {
    return rowChanged(this.props, n, ['d', 'group', 'warnPerCell', 'failures']);
  }
  override render({ d, group, warnPerCell, failures, now, onOpen }: HealthRowProps) {
    const b = batteryState(d.voltage_mV, warnPerCell);
    return (
      <tr class={d.online ? '' : 'offline'}>
        <td>
          <button
            type="button"
            class="linklike"
            onClick={() => onOpen(d.addr)}
            title="Signal and battery history"
          >
            {d.name}
          </button>
          <div class="muted mono small-text">{formatMac(d.full_mac, d.addr)}</div>
        </td>
        <td class="h-group">{group}</td>
        <td class="nowrap">
          <span class={`pill tiny ${d.online ? 'online' : 'offline'}`}>
            {d.online ? 'Online' : 'Offline'}
          </span>{' '}
          <span class="muted seen-ago">{relativeTime(d.last_seen_ts, now)}</span>
        </td>
        <td
          class="num nowrap"
          title={
            b.cells
              ? `${b.cells}S pack, ${b.perCellV.toFixed(2)} V per cell${d.online ? '' : ' (last reading, device offline)'}`
              : 'not reported'
          }
        >
          {b.cells ? (
            <span class={d.online ? `lvl-${b.level}` : 'muted'}>
              {(d.voltage_mV / 1000).toFixed(2)} V <span class="muted">{b.cells}S</span>
            </span>
          ) : (
            <span class="muted">—</span>
          )}
        </td>
        <td class="num">
          <Sig rssi={d.node_rssi} snr={d.node_snr} />
        </td>
        <td class="num">
          <Sig rssi={d.host_rssi} snr={d.host_snr} />
        </td>
        <td class="num h-fail">{failures}</td>
        <td class="h-config">
          {configPills(d).map((p) => (
            <span key={p} class={`pill tiny${p === 'AP open' ? ' warn' : ''}`}>
              {p}
            </span>
          ))}
        </td>
        <td class="num h-fw">{d.version || '—'}</td>
      </tr>
    );
  }
}

export function Overview({ onOpen }: { onOpen: (addr: string) => void }) {
  const [showAcked, setShowAcked] = useState(false);
  const [q, setQ] = useState('');
  // The table draws PAGE rows and grows by PAGE when its end comes into view: opening the
  // page with 1 000 devices drew all of them at once (one 680 ms task).
  const [limit, setLimit] = useState(PAGE);
  // Alerts likewise: a field that lost power is hundreds of them; the first screenful first.
  const [alertLimit, setAlertLimit] = useState(PAGE);
  const more = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    const el = more.current;
    if (!el) return;
    const io = new IntersectionObserver((es) => {
      if (es.some((e) => e.isIntersecting)) setLimit((l) => l + PAGE);
    });
    io.observe(el);
    return () => io.disconnect();
  });
  const t = warnPerCellOf(thresholds.value);
  const alerts = useMemo(() => computeAlerts(devices.value, t), [devices.value, t]);
  // Forget acknowledgements whose condition cleared, so a recurrence alerts again (only the
  // cleared keys are sent: another browser's acknowledgement made meanwhile stays).
  useEffect(() => {
    if (devices.value.length === 0 || !consoleLoaded.value) return;
    const kept = new Set(pruneAcks(acks.value, alerts));
    unacknowledge(acks.value.filter((k) => !kept.has(k)));
  }, [alerts, consoleLoaded.value]);
  const acked = new Set(acks.value);
  const open = alerts.filter((a) => !acked.has(a.key));
  const shown = showAcked ? alerts : open;
  const needle = q.trim().toLowerCase();
  const rows = devices.value
    .filter((d) => !needle || `${d.name} ${d.addr} ${groupName(d.groupId)}`.toLowerCase().includes(needle))
    .slice()
    .sort((a, b) => a.name.localeCompare(b.name) || a.addr.localeCompare(b.addr));
  const groupIds = [0, ...groups.value.map((g) => g.id).filter((id) => id !== 0)];

  const exportCsv = (): void => downloadCsv(fleetCsv(rows, groupName, t), 'lightnet-fleet');

  return (
    <>
      <section class="ops-section" aria-label="Online per group">
        <div class="group-counts">
          {groupIds.map((id) => {
            const s = statsOf(id);
            if (s.total === 0) return null;
            const cls = s.online === s.total ? 'good' : s.online === 0 ? 'bad' : 'warn';
            return (
              <span key={id} class={`pill ${cls}`} data-testid={`group-count-${id}`}>
                <span class="dot" /> {groupName(id)}{' '}
                <strong>
                  {s.online}/{s.total}
                </strong>
              </span>
            );
          })}
        </div>
      </section>
      <section class="ops-section" aria-label="Alerts">
        <div class="ops-head">
          <h2>
            Alerts{' '}
            <span class="muted">
              ({open.length} open
              {alerts.length > open.length ? `, ${alerts.length - open.length} acknowledged` : ''})
            </span>
          </h2>
          <label class="chip-check">
            <input
              type="checkbox"
              checked={showAcked}
              onChange={(e) => setShowAcked(e.currentTarget.checked)}
            />{' '}
            show acknowledged
          </label>
          {open.length > 1 && (
            <button type="button" onClick={() => acknowledge(open.map((a) => a.key))}>
              Acknowledge all
            </button>
          )}
        </div>
        {shown.length === 0 ? (
          <p class="muted">No {alerts.length > 0 ? 'open ' : ''}alerts.</p>
        ) : (
          <ul class="alert-list" data-testid="alerts">
            {shown.slice(0, alertLimit).map((a) => (
              <li key={a.key} class={`alert ${a.severity}${acked.has(a.key) ? ' acked' : ''}`}>
                <span class={`pill tiny ${a.severity}`}>{ALERT_LABEL[a.kind]}</span>
                <button type="button" class="linklike" onClick={() => onOpen(a.addr)}>
                  {a.name}
                </button>
                <span class="muted">{a.text}</span>
                {!acked.has(a.key) && (
                  <button type="button" class="ghost small" onClick={() => acknowledge([a.key])}>
                    Acknowledge
                  </button>
                )}
              </li>
            ))}
            {shown.length > alertLimit && (
              <li class="muted">
                {alertLimit} of {shown.length} shown ·{' '}
                <button type="button" class="linklike" onClick={() => setAlertLimit(shown.length)}>
                  show all
                </button>
              </li>
            )}
          </ul>
        )}
      </section>
      <section class="ops-section" aria-label="Fleet health table">
        <div class="ops-head">
          <h2>Devices</h2>
          <input
            type="search"
            class="search"
            placeholder="Filter name, MAC, group"
            aria-label="Filter devices"
            value={q}
            onInput={(e) => setQ(e.currentTarget.value)}
          />
          {rows.length > limit && (
            // Up here, not after the last row: the end coming into view draws more rows, so a
            // button down there moved away as the operator (or a test) reached for it.
            <span class="muted" data-testid="health-shown">
              {limit} of {rows.length} shown ·{' '}
              <button type="button" class="linklike" onClick={() => setLimit(rows.length)}>
                show all
              </button>
            </span>
          )}
          <button type="button" onClick={exportCsv} title="Download this table as CSV">
            Export CSV
          </button>
        </div>
        <div class="ops-table-wrap">
          <table class="devices ops-table" data-testid="health-table">
            <thead>
              <tr>
                <th>Name</th>
                <th class="h-group">Group</th>
                <th>Seen</th>
                {/* Named and ordered as on the Devices page. */}
                <th class="num" title="Battery voltage; the pack size (1S…6S) is judged from it">
                  VBat
                </th>
                <th class="num" title="How well the node heard the gateway: RSSI dBm / SNR dB">
                  Node ↓
                </th>
                <th class="num" title="How well the gateway heard the node: RSSI dBm / SNR dB">
                  Host ↑
                </th>
                <th
                  class="num h-fail"
                  title="Polls the device did not answer and lost link-test probes since the host started"
                >
                  Failed
                </th>
                <th class="h-config">Config</th>
                <th class="num h-fw">FW</th>
              </tr>
            </thead>
            <tbody>
              {rows.slice(0, limit).map((d) => (
                <HealthRow
                  key={d.addr}
                  d={d}
                  group={groupName(d.groupId)}
                  warnPerCell={t}
                  failures={links.value.get(d.addr)?.failures ?? 0}
                  now={nowS.value}
                  onOpen={onOpen}
                />
              ))}
              {rows.length > limit && (
                <tr>
                  <td colSpan={9} class="muted">
                    <span ref={more}>
                      {limit} of {rows.length} shown · more as you scroll
                    </span>
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
      </section>
    </>
  );
}
