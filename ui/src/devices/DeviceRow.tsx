/**
 * One device row of the table: its cells (columns.ts says which), the in-place rename,
 * locate, and when it redraws.
 */
import { signal } from '@preact/signals';
import type { ComponentChildren } from 'preact';
import { Component } from 'preact';
import { useState } from 'preact/hooks';
import { post } from '../api.ts';
import { batteryLevel, cellCount } from '../common/battery-cells.ts';
import { flagNames, formatMac, formatVolts, hex2, relativeTime, rssiLevel, snrLevel } from '../format.ts';
import { toast, toastError } from '../toasts.ts';
import { configPills } from '../common/config-pills.ts';
import { rowChanged } from '../common/row-update.ts';
import type { Device } from '../types.ts';
import { COL_CLASS } from './columns.ts';
import { MiddleEllipsis } from '../common/MiddleEllipsis.tsx';
import { NetworkChip } from '../networks/NetworkChip.tsx';

const STATE_TEXT = { online: 'Online', rejoining: 'Rejoining', offline: 'Offline' } as const;

/** The row's link state; hosts before `state` existed only said online or not. */
const linkState = (d: Device): keyof typeof STATE_TEXT => d.state ?? (d.online ? 'online' : 'offline');

function stateTitle(d: Device, now: number): string {
  const seen = `last seen ${relativeTime(d.last_seen_ts, now)}`;
  const s = linkState(d);
  if (s === 'rejoining') return `Rebooted: the host is putting it back into its group (${seen})`;
  if (s === 'offline' && d.offline_reason) return `Offline: ${d.offline_reason} (${seen})`;
  return `${STATE_TEXT[s]}, ${seen}`;
}

/** Opens the options dialog for a device (set by the page). */
export const openOptions = signal<((d: Device) => void) | null>(null);

/**
 * RSSI / SNR of one direction. Two coloured spans straight in the cell (its title says
 * what they are): every element a row has is laid out again for each row scrolled in.
 */
function Signal({ rssi, snr }: { rssi: number; snr: number }) {
  if (!rssi) return <span class="muted">—</span>;
  return (
    <>
      <span class={`lvl-${rssiLevel(rssi)}`}>{rssi}</span>
      {' / '}
      <span class={`lvl-${snrLevel(snr, true)}`}>{snr}</span>
    </>
  );
}

/**
 * The short address (last two bytes) when the MAC column is hidden and the name does not
 * already end with them: two gates renamed alike stay apart on a phone.
 */
export function shortAddr(d: Device): string | null {
  const hex = (d.full_mac ?? d.addr).replace(/[^0-9a-f]/gi, '').toUpperCase();
  if (hex.length < 4) return null;
  const tail = hex.slice(-4);
  if (
    d.name
      .replace(/[^0-9a-f]/gi, '')
      .toUpperCase()
      .endsWith(tail)
  )
    return null;
  return `${tail.slice(0, 2)}:${tail.slice(2)}`;
}

function NameCell({ d, withAddr }: { d: Device; withAddr: boolean }) {
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
    if (!next) return toast('A device needs a name: type one, or press Esc to keep the old one', 'error');
    if (next === d.name) return setEditing(false);
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
        aria-label={d.name}
        onClick={locate}
        disabled={locating}
      >
        <MiddleEllipsis text={d.name} />
      </button>
      {withAddr && shortAddr(d) && (
        <span class="short-addr muted mono" title={formatMac(d.full_mac, d.addr)}>
          {shortAddr(d)}
        </span>
      )}
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

export interface RowProps {
  d: Device;
  /** Position in the sorted list (0-based). */
  index: number;
  /** Offset of the row in the table body, px. */
  top: number;
  selected: boolean;
  groupLabel: string;
  /** The device's network name ('' when the host does not say). */
  networkLabel: string;
  effect: string;
  now: number;
  flash: boolean;
  warnPerCell: number;
  /** Failed exchanges (only passed while the Failed column shows). */
  failures?: number;
  /** The shown column keys joined (a cheap equality check). */
  colKeys: string;
  onToggle: (addr: string, shift: boolean) => void;
}

function Battery({ d, warnPerCell }: { d: Device; warnPerCell: number }) {
  const bat = batteryLevel(d.voltage_mV, { warnPerCell });
  const low = bat === 'warn' || bat === 'bad';
  if (!d.voltage_mV) return <span class="muted">—</span>;
  const cells = cellCount(d.voltage_mV);
  // An offline device's reading is old: shown, but not as an alert.
  if (!d.online) {
    return (
      <span class="muted" title={`${cells}S pack — last reading before the device went offline`}>
        {formatVolts(d.voltage_mV)}
      </span>
    );
  }
  return (
    <span
      class={`lvl-${bat}`}
      title={`${cells}S pack, ${(d.voltage_mV / 1000 / cells).toFixed(2)} V per cell${low ? ' — low battery' : ''}`}
    >
      {formatVolts(d.voltage_mV)}
      {low && ' ⚠'}
    </span>
  );
}

/**
 * A type name: its family prefix ("LED_") is dropped on a phone (every type has it), and
 * the rest keeps its end — "StartBlock_Rev3" and "Rev3" must not both read "LE…Rev3".
 */
function TypeName({ name }: { name: string }) {
  const m = /^([A-Za-z]{2,4}_)(.+)$/.exec(name);
  if (!m) return <MiddleEllipsis text={name} keep={5} />;
  return (
    <>
      <span class="type-family">{m[1]}</span>
      <MiddleEllipsis text={m[2]!} keep={5} />
    </>
  );
}

function cell(key: string, p: RowProps): ComponentChildren {
  const { d, groupLabel, effect, now } = p;
  switch (key) {
    case 'name':
      return <NameCell d={d} withAddr={!p.colKeys.split(',').includes('addr')} />;
    case 'addr':
      return formatMac(d.full_mac, d.addr);
    case 'group':
      return (
        <>
          {/* The name shrinks; its number always shows. */}
          <span class="group-label">{groupLabel}</span> <span class="muted">#{d.groupId}</span>
          {d.group_pending && (
            <span
              class="pill tiny warn"
              title="Pending: the node has not acknowledged this group yet; it is sent again when the node is next heard"
            >
              pending
            </span>
          )}
        </>
      );
    case 'network':
      return d.network_id === undefined ? (
        <span class="muted">—</span>
      ) : (
        <NetworkChip id={d.network_id} name={p.networkLabel} />
      );
    case 'type':
      return (
        <button
          type="button"
          class="chip type-chip"
          title={`${d.dev_type_name}: options… (${d.dev_type_caps.join(', ') || 'no capabilities'})`}
          onClick={() => openOptions.value?.(d)}
        >
          <TypeName name={d.dev_type_name} />
        </button>
      );
    case 'seen':
      return (
        <>
          {/* Online is the usual case: a green dot leaves room for the time. */}
          {linkState(d) === 'online' ? (
            <span class="pill tiny online dot-only">●</span>
          ) : (
            <span class={`pill tiny ${linkState(d)}`}>{STATE_TEXT[linkState(d)]}</span>
          )}{' '}
          {relativeTime(d.last_seen_ts, now)}
        </>
      );
    case 'flags': {
      const power = (d.flags & 1) !== 0;
      const names = flagNames(d.flags);
      return (
        <>
          <span class={`pill tiny ${power ? 'on' : 'off'}`}>{power ? 'ON' : 'OFF'}</span>
          {names.length > 0 && ` ${names.join(' ')}`}
        </>
      );
    }
    case 'effect':
      return effect;
    case 'bri':
      return d.brightness;
    case 'vbat':
      return <Battery d={d} warnPerCell={p.warnPerCell} />;
    case 'nrssi':
      return <Signal rssi={d.node_rssi} snr={d.node_snr} />;
    case 'hrssi':
      return <Signal rssi={d.host_rssi} snr={d.host_snr} />;
    case 'fail':
      return p.failures === undefined ? '…' : p.failures;
    case 'config': {
      const pills = configPills(d);
      if (pills.length === 0) return <span class="muted">—</span>;
      return pills.map((t) => (
        <span key={t} class={`pill tiny${t === 'AP open' ? ' warn' : ''}`}>
          {t}
        </span>
      ));
    }
    case 'fw':
      return d.version;
    default:
      return null;
  }
}

const CELL_TITLE: Record<string, (p: RowProps) => string> = {
  seen: (p) => stateTitle(p.d, p.now),
  flags: (p) => `flags byte 0x${hex2(p.d.flags)}`,
  addr: (p) => formatMac(p.d.full_mac, p.d.addr),
  effect: (p) => p.effect,
  group: (p) => `${p.groupLabel} (group #${p.d.groupId})`,
  network: (p) => (p.networkLabel ? `Network ${p.networkLabel} (#${p.d.network_id})` : ''),
  nrssi: (p) => (p.d.node_rssi ? `RSSI ${p.d.node_rssi} dBm · SNR ${p.d.node_snr} dB` : 'not heard yet'),
  hrssi: (p) => (p.d.host_rssi ? `RSSI ${p.d.host_rssi} dBm · SNR ${p.d.host_snr} dB` : 'not heard yet'),
  config: (p) => configPills(p.d).join(', ') || 'nothing set',
};

export class Row extends Component<RowProps> {
  override shouldComponentUpdate(n: RowProps): boolean {
    return rowChanged(this.props, n, [
      'd',
      'top',
      'selected',
      'groupLabel',
      'networkLabel',
      'effect',
      'flash',
      'warnPerCell',
      'failures',
      'colKeys',
    ]);
  }
  override render(p: RowProps) {
    const { d, selected, flash, onToggle } = p;
    return (
      <div
        role="row"
        aria-rowindex={p.index + 2}
        aria-selected={selected}
        class={`dt-row${selected ? ' sel' : ''}${flash ? ' flash' : ''}${linkState(d) === 'online' ? '' : ` ${linkState(d)}`}`}
        style={{ transform: `translateY(${p.top}px)` }}
        data-addr={d.addr}
      >
        <div class="chk" role="cell">
          <input
            type="checkbox"
            checked={selected}
            aria-label={`Select ${d.name}`}
            onClick={(e) => onToggle(d.addr, (e as MouseEvent).shiftKey)}
          />
        </div>
        {p.colKeys.split(',').map((k) => (
          <div key={k} role="cell" class={COL_CLASS.get(k)} title={CELL_TITLE[k]?.(p)}>
            {cell(k, p)}
          </div>
        ))}
      </div>
    );
  }
}
