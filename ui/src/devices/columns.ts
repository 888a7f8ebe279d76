/**
 * The device table's columns: what each shows, sorts by and needs in width, and which
 * ones a window shows by default. Columns have fixed widths (every row shares one rule
 * per column), and a tablet or phone drops the least needed ones instead of scrolling
 * sideways; the operator's Columns menu overrides that per column.
 */
import { configPills } from '../common/config-pills.ts';
import { links } from '../health/data.ts';
import { effectNames, groupsById } from '../store.ts';
import { multiNetwork, networksById } from '../networks/networks-store.ts';
import type { Device } from '../types.ts';

export interface Column {
  key: string;
  label: string;
  title?: string;
  value: (d: Device) => unknown;
  cls?: string;
  /** Width in rem; the Name column takes what is left. */
  w?: number;
  /** Width in rem on a phone (≤ PHONE_PX), when narrower than `w`. */
  wPhone?: number;
  /** Shown only when the window is at least this wide (px), unless the operator chose. */
  minVw?: number;
  /** Off unless the operator turns it on (Columns menu). */
  optional?: boolean;
  /** The column exists only while this holds (Network: from two networks on). */
  when?: () => boolean;
}

const groupName = (id: number): string => groupsById.value.get(id)?.name ?? `#${id}`;
/** The device's network name ('' for hosts that do not say). */
export const networkName = (d: Device): string =>
  d.network_id === undefined ? '' : (networksById.value.get(d.network_id)?.name ?? `#${d.network_id}`);

export const COLUMNS: Column[] = [
  { key: 'name', label: 'Name', value: (d) => d.name },
  { key: 'addr', label: 'MAC', value: (d) => d.full_mac ?? d.addr, cls: 'mono', w: 9.2, minVw: 1180 },
  { key: 'group', label: 'Group', value: (d) => groupName(d.groupId), w: 8.6, minVw: 700 },
  {
    key: 'network',
    label: 'Network',
    title: 'The network (gateway) the device belongs to',
    value: networkName,
    w: 6.4,
    // A laptop keeps its room for the name (the pills, filter and sidebar chips name the
    // networks there); the Columns menu turns it on.
    minVw: 1400,
    when: () => multiNetwork.value,
  },
  {
    key: 'type',
    label: 'Type',
    title: 'Device type — click a chip for its options',
    value: (d) => d.dev_type_name,
    w: 7.4,
    wPhone: 5.6,
  },
  // Online and last seen share a column (the pill says which, the time says since when).
  { key: 'seen', label: 'Seen', value: (d) => -(d.last_seen_ts ?? 0), w: 7, wPhone: 5.6 },
  {
    key: 'flags',
    label: 'Flags',
    title:
      'Power (ON/OFF) and the control flags the node reported: ARM arm-on-sync, BRI brightness, TT0 instant transition, REAPPLY force re-apply, OFFSET offset mode',
    value: (d) => d.flags,
    w: 6.2,
    minVw: 700,
  },
  {
    key: 'effect',
    label: 'Effect',
    value: (d) => effectNames.value.get(d.effectId) ?? d.effectId,
    w: 6.4,
    // A laptop (1280 px) gives its room to the name, group, type and seen columns.
    minVw: 1400,
  },
  { key: 'bri', label: 'Bright', value: (d) => d.brightness, cls: 'num', w: 3.6, minVw: 1000 },
  {
    key: 'vbat',
    label: 'VBat',
    title: 'Battery voltage; the pack size (1S…6S) is judged from it and the warning is per cell',
    value: (d) => d.voltage_mV || null,
    cls: 'num',
    w: 4.6,
    wPhone: 3.8,
  },
  // RSSI and SNR of one direction share a cell, so the whole row fits a laptop screen.
  {
    key: 'nrssi',
    label: 'Node ↓',
    title: 'How well the node heard the gateway: RSSI dBm / SNR dB (sorts by RSSI)',
    value: (d) => d.node_rssi || null,
    cls: 'num',
    w: 4.9,
    minVw: 1000,
  },
  {
    key: 'hrssi',
    label: 'Host ↑',
    title: 'How well the gateway heard the node: RSSI dBm / SNR dB (sorts by RSSI)',
    value: (d) => d.host_rssi || null,
    cls: 'num',
    w: 4.9,
    minVw: 700,
  },
  {
    key: 'fail',
    label: 'Failed',
    title:
      'Failed exchanges: polls the device did not answer and lost link-test probes since the host started',
    value: (d) => links.value.get(d.addr)?.failures ?? 0,
    cls: 'num',
    w: 3.8,
    optional: true,
  },
  {
    key: 'config',
    label: 'Config',
    title: "The node's configuration as it reported it: MAC filter, AP open",
    value: (d) => configPills(d).join(' '),
    w: 7.5,
    optional: true,
  },
  {
    key: 'fw',
    label: 'FW',
    title: 'Firmware version',
    value: (d) => d.version,
    cls: 'num',
    w: 2.6,
    minVw: 1180,
  },
];

export const COL_CLASS = new Map(COLUMNS.map((c) => [c.key, `c-${c.key}${c.cls ? ` ${c.cls}` : ''}`]));

// The fixed column widths as one shared rule per column (an inline width on every cell
// would be one more style to resolve per cell).
/** Phones: narrower fixed columns, so a 390 px row fits without scrolling sideways. */
export const PHONE_PX = 600;
/** The Name column's least width (rem): below it the table scrolls sideways. */
export const nameMinRem = (vw: number): number => (vw <= PHONE_PX ? 5.5 : 7);
export const colWidth = (c: Column, vw: number): number | undefined =>
  vw <= PHONE_PX && c.wPhone !== undefined ? c.wPhone : c.w;

const widths = document.createElement('style');
widths.textContent = [
  ...COLUMNS.filter((c) => c.w).map((c) => `.device-grid .dt-row > .c-${c.key} { width: ${c.w}rem; }`),
  `@media (max-width: ${PHONE_PX}px) {`,
  ...COLUMNS.filter((c) => c.wPhone).map(
    (c) => `.device-grid .dt-row > .c-${c.key} { width: ${c.wPhone}rem; }`,
  ),
  `.device-grid .dt-row > .c-name { min-width: ${nameMinRem(0)}rem; }`,
  '}',
].join('\n');
document.head.append(widths);

/** Whether a column shows by default: fits the window and is not one of the optional ones. */
export const shownByDefault = (c: Column, width: number): boolean =>
  !c.optional && (c.minVw === undefined || width >= c.minVw);

/** Columns that exist now (the Network column only from two networks on). */
export const availableColumns = (): Column[] => COLUMNS.filter((c) => !c.when || c.when());

/** The columns to draw: the operator's choice per column, else the default; Name always. */
export const columnsFor = (width: number, choice: Readonly<Record<string, boolean>> = {}): Column[] =>
  availableColumns().filter((c) => c.key === 'name' || (choice[c.key] ?? shownByDefault(c, width)));
