/**
 * The device table: sortable columns, search, multi-select (click, shift-click for a
 * range, header box for all visible rows). Rows only re-render when their device
 * object changes (reloads keep identity for unchanged devices), so 300 rows stay fast.
 */
import { signal } from '@preact/signals';
import { Component } from 'preact';
import { useState } from 'preact/hooks';
import { post } from '../api.ts';
import {
  batteryLevel,
  compareValues,
  flagNames,
  formatMac,
  formatVolts,
  hex2,
  matchesSearch,
  relativeTime,
  rssiLevel,
  snrLevel,
  type SortDir,
} from '../format.ts';
import { changedAt, devices, effectNames, groupsById, nowS } from '../store.ts';
import { toast, toastError } from '../toasts.ts';
import type { Device } from '../types.ts';
import { thresholds } from './battery.ts';
import { groupFilter } from './Sidebar.tsx';

const STATE_TEXT = { online: 'Online', rejoining: 'Rejoining', offline: 'Offline' } as const;

/** The row's link state; hosts before `state` existed only said online or not. */
const linkState = (d: Device): keyof typeof STATE_TEXT => d.state ?? (d.online ? 'online' : 'offline');

function stateTitle(d: Device, now: number): string {
  const seen = `last seen ${relativeTime(d.last_seen_ts, now)}`;
  const s = linkState(d);
  if (s === 'rejoining') return `Rebooted: the host is putting it back into its group (${seen})`;
  if (s === 'offline' && d.offline_reason) return `Offline: ${d.offline_reason} (${seen})`;
  return seen;
}

export const selection = signal<Set<string>>(new Set());
export const search = signal('');
export const sortKey = signal<string>('name');
export const sortDir = signal<SortDir>(1);
/** Opens the options dialog for a device (set by the page). */
export const openOptions = signal<((d: Device) => void) | null>(null);

interface Column {
  key: string;
  label: string;
  title?: string;
  value: (d: Device) => unknown;
  cls?: string;
}

const groupName = (id: number): string => groupsById.value.get(id)?.name ?? `#${id}`;

const COLUMNS: Column[] = [
  { key: 'name', label: 'Name', value: (d) => d.name },
  { key: 'addr', label: 'MAC', value: (d) => d.full_mac ?? d.addr, cls: 'mono' },
  { key: 'group', label: 'Group', value: (d) => groupName(d.groupId) },
  { key: 'type', label: 'Type', value: (d) => d.dev_type_name },
  // Online and last seen share a column (the pill says which, the time says since when).
  { key: 'seen', label: 'Seen', value: (d) => -(d.last_seen_ts ?? 0) },
  { key: 'flags', label: 'Flags', value: (d) => d.flags },
  { key: 'effect', label: 'Effect', value: (d) => effectNames.value.get(d.effectId) ?? d.effectId },
  { key: 'bri', label: 'Bright', value: (d) => d.brightness, cls: 'num' },
  { key: 'vbat', label: 'VBat', value: (d) => d.voltage_mV || null, cls: 'num' },
  // RSSI and SNR of one direction share a cell, so the whole row fits a laptop screen.
  {
    key: 'nrssi',
    label: 'Node ↓',
    title: 'How well the node heard the gateway: RSSI dBm / SNR dB (sorts by RSSI)',
    value: (d) => d.node_rssi || null,
    cls: 'num',
  },
  {
    key: 'hrssi',
    label: 'Host ↑',
    title: 'How well the gateway heard the node: RSSI dBm / SNR dB (sorts by RSSI)',
    value: (d) => d.host_rssi || null,
    cls: 'num',
  },
  { key: 'fw', label: 'FW', value: (d) => d.version, cls: 'num' },
];

export function visibleDevices(): Device[] {
  const gf = groupFilter.value;
  const q = search.value;
  const col = COLUMNS.find((c) => c.key === sortKey.value) ?? COLUMNS[0]!;
  const dir = sortDir.value;
  return devices.value
    .filter((d) => (gf === null || d.groupId === gf) && matchesSearch(d, groupName(d.groupId), q))
    .sort((a, b) => dir * compareValues(col.value(a), col.value(b)) || a.addr.localeCompare(b.addr));
}

interface RowProps {
  d: Device;
  selected: boolean;
  groupLabel: string;
  effect: string;
  now: number;
  flash: boolean;
  warn2s: number;
  warn6s: number;
  onToggle: (addr: string, shift: boolean) => void;
}

function Signal({ rssi, snr }: { rssi: number; snr: number }) {
  if (!rssi) return <span class="muted">—</span>;
  return (
    <span class="sig" title={`RSSI ${rssi} dBm · SNR ${snr} dB`}>
      <span class={`lvl-${rssiLevel(rssi)}`}>{rssi}</span>
      <span class="muted">/</span>
      <span class={`lvl-${snrLevel(snr, true)}`}>{snr}</span>
    </span>
  );
}

function NameCell({ d }: { d: Device }) {
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(d.name);
  const [locating, setLocating] = useState(false);
  const locate = async () => {
    if (locating) return;
    setLocating(true);
    try {
      await post('devices/indicate', { macs: [d.addr] });
      toast(`Locating ${d.name}…`);
    } catch (err) {
      toastError('Locate failed', err);
    } finally {
      setLocating(false);
    }
  };
  const save = async (e: Event) => {
    e.preventDefault();
    const next = name.trim();
    if (!next || next === d.name) return setEditing(false);
    try {
      await post('devices/update-meta', { macs: [d.addr], name: next });
      toast(`Renamed to '${next}'`);
      setEditing(false);
    } catch (err) {
      toastError('Rename failed', err);
    }
  };
  if (editing) {
    return (
      <form class="inline-form" onSubmit={save}>
        <input
          value={name}
          maxLength={64}
          aria-label={`New name for ${d.name}`}
          autoFocus
          onInput={(e) => setName(e.currentTarget.value)}
          onKeyDown={(e) => e.key === 'Escape' && (e.stopPropagation(), setEditing(false))}
        />
        <button type="submit" class="small primary">
          Save
        </button>
      </form>
    );
  }
  return (
    <span class="name-cell">
      <button
        type="button"
        class="link"
        title={`Click to locate '${d.name}' — flashes its LEDs for about 5 s`}
        onClick={locate}
        disabled={locating}
      >
        {d.name}
      </button>
      <button
        type="button"
        class="ghost icon tiny"
        title={`Rename '${d.name}'`}
        aria-label={`Rename ${d.name}`}
        onClick={() => {
          setName(d.name);
          setEditing(true);
        }}
      >
        ✎
      </button>
    </span>
  );
}

class Row extends Component<RowProps> {
  override shouldComponentUpdate(n: RowProps): boolean {
    const p = this.props;
    return (
      n.d !== p.d ||
      n.selected !== p.selected ||
      n.groupLabel !== p.groupLabel ||
      n.effect !== p.effect ||
      n.flash !== p.flash ||
      n.warn2s !== p.warn2s ||
      n.warn6s !== p.warn6s ||
      Math.floor(n.now / 5) !== Math.floor(p.now / 5)
    );
  }
  override render({ d, selected, groupLabel, effect, now, flash, warn2s, warn6s, onToggle }: RowProps) {
    const power = (d.flags & 1) !== 0;
    const names = flagNames(d.flags);
    const bat = batteryLevel(d.voltage_mV, { warn2s, warn6s });
    return (
      <tr
        class={`${selected ? 'sel' : ''}${flash ? ' flash' : ''}${linkState(d) === 'online' ? '' : ` ${linkState(d)}`}`}
        data-addr={d.addr}
      >
        <td class="chk">
          <input
            type="checkbox"
            checked={selected}
            aria-label={`Select ${d.name}`}
            onClick={(e) => onToggle(d.addr, (e as MouseEvent).shiftKey)}
          />
        </td>
        <td>
          <NameCell d={d} />
        </td>
        <td class="mono">{formatMac(d.full_mac, d.addr)}</td>
        <td class="nowrap">
          {groupLabel} <span class="muted">#{d.groupId}</span>
          {d.group_pending && (
            <span
              class="pill tiny warn"
              title="The node has not acknowledged this group yet; it is pushed when the node is next heard"
            >
              pending
            </span>
          )}
        </td>
        <td>
          <button
            type="button"
            class="chip type-chip"
            title={`${d.dev_type_name}: options… (${d.dev_type_caps.join(', ') || 'no capabilities'})`}
            onClick={() => openOptions.value?.(d)}
          >
            {d.dev_type_name}
          </button>
        </td>
        <td class="nowrap" title={stateTitle(d, now)}>
          <span class={`pill tiny ${linkState(d)}`}>{STATE_TEXT[linkState(d)]}</span>{' '}
          <span class="muted small-text">{relativeTime(d.last_seen_ts, now)}</span>
        </td>
        <td class="nowrap" title={`flags byte ${hex2(d.flags)}`}>
          <span class={`pill tiny ${power ? 'on' : 'off'}`}>{power ? 'ON' : 'OFF'}</span>
          {names.length > 0 && <span class="muted small-text"> {names.join(' ')}</span>}
        </td>
        <td>{effect}</td>
        <td class="num">{d.brightness}</td>
        <td class={`num nowrap lvl-${bat}`} title={bat === 'warn' || bat === 'bad' ? 'Low battery' : ''}>
          {formatVolts(d.voltage_mV)}
          {(bat === 'warn' || bat === 'bad') && ' ⚠'}
        </td>
        <td class="num nowrap">
          <Signal rssi={d.node_rssi} snr={d.node_snr} />
        </td>
        <td class="num nowrap">
          <Signal rssi={d.host_rssi} snr={d.host_snr} />
        </td>
        <td class="num">{d.version}</td>
      </tr>
    );
  }
}

let lastClicked: string | null = null;
/** The rows as last rendered (rows keep their first toggle callback; it reads this). */
let currentRows: Device[] = [];

function toggle(addr: string, shift: boolean): void {
  const rows = currentRows;
  const next = new Set(selection.value);
  if (shift && lastClicked) {
    const a = rows.findIndex((d) => d.addr === lastClicked);
    const b = rows.findIndex((d) => d.addr === addr);
    if (a >= 0 && b >= 0) {
      const on = !next.has(addr);
      for (let i = Math.min(a, b); i <= Math.max(a, b); i++) {
        const r = rows[i]!;
        if (on) next.add(r.addr);
        else next.delete(r.addr);
      }
      selection.value = next;
      lastClicked = addr;
      return;
    }
  }
  if (next.has(addr)) next.delete(addr);
  else next.add(addr);
  lastClicked = addr;
  selection.value = next;
}

export function DeviceTable({ rows }: { rows: Device[] }) {
  const sel = selection.value;
  const now = nowS.value;
  const flashes = changedAt.value;
  const t = thresholds.value;
  const names = effectNames.value;
  const byId = groupsById.value;
  const allSelected = rows.length > 0 && rows.every((d) => sel.has(d.addr));
  currentRows = rows;
  const toggleAll = () => {
    const next = new Set(selection.value);
    for (const d of rows) {
      if (allSelected) next.delete(d.addr);
      else next.add(d.addr);
    }
    selection.value = next;
  };
  const sortBy = (key: string) => {
    if (sortKey.value === key) sortDir.value = sortDir.value === 1 ? -1 : 1;
    else {
      sortKey.value = key;
      sortDir.value = 1;
    }
  };
  const nowMs = Date.now();
  return (
    <div class="table-wrap">
      <table class="devices" data-testid="device-table">
        <thead>
          <tr>
            <th class="chk">
              <input
                type="checkbox"
                checked={allSelected}
                aria-label="Select all visible devices"
                onClick={toggleAll}
              />
            </th>
            {COLUMNS.map((c) => (
              <th
                key={c.key}
                class={c.cls}
                aria-sort={
                  sortKey.value === c.key ? (sortDir.value === 1 ? 'ascending' : 'descending') : 'none'
                }
              >
                <button
                  type="button"
                  class="sort"
                  title={c.title ?? `Sort by ${c.label}`}
                  onClick={() => sortBy(c.key)}
                >
                  {c.label}
                  {sortKey.value === c.key ? (sortDir.value === 1 ? ' ▲' : ' ▼') : ''}
                </button>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((d) => (
            <Row
              key={d.addr}
              d={d}
              selected={sel.has(d.addr)}
              groupLabel={byId.get(d.groupId)?.name ?? '?'}
              effect={names.get(d.effectId) ?? String(d.effectId)}
              now={now}
              flash={nowMs - (flashes.get(d.addr) ?? 0) < 1000}
              warn2s={t.warn2s}
              warn6s={t.warn6s}
              onToggle={toggle}
            />
          ))}
        </tbody>
      </table>
      {rows.length === 0 && <p class="empty muted">No devices here. Use Discover to find nodes.</p>}
    </div>
  );
}
