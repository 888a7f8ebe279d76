/**
 * The fleet as a CSV download: one row per device with every health field (both link
 * directions, battery per cell, failed exchanges, config), whichever columns a table
 * shows. The device table exports the rows its filter shows; the health page all.
 */
import { batteryState } from '../common/battery-cells.ts';
import { configPills } from '../common/config-pills.ts';
import { formatMac } from '../format.ts';
import type { Device } from '../types.ts';
import { toCsv, type Cell } from './csv.ts';
import { links } from './data.ts';

const HEADER = [
  'name',
  'mac',
  'group',
  'type',
  'online',
  'last_seen',
  'rssi_up_dbm',
  'snr_up_db',
  'rssi_down_dbm',
  'snr_down_db',
  'battery_v',
  'cells',
  'battery',
  'failed_exchanges',
  'config',
  'firmware',
] as const;

export function fleetCsv(
  rows: readonly Device[],
  groupName: (id: number) => string,
  warnPerCell: number,
): string {
  const body: Cell[][] = rows.map((d) => {
    const b = batteryState(d.voltage_mV, warnPerCell);
    return [
      d.name,
      formatMac(d.full_mac, d.addr),
      groupName(d.groupId),
      d.dev_type_name,
      d.online,
      d.last_seen_ts ? new Date(d.last_seen_ts * 1000).toISOString() : '',
      d.host_rssi || null,
      d.host_rssi ? d.host_snr : null,
      d.node_rssi || null,
      d.node_rssi ? d.node_snr : null,
      d.voltage_mV ? (d.voltage_mV / 1000).toFixed(2) : null,
      b.cells || null,
      b.level === 'none' ? '' : b.level,
      links.value.get(d.addr)?.failures ?? 0,
      configPills(d).join('; '),
      d.version || null,
    ];
  });
  return toCsv(HEADER, body);
}

/** Hands the CSV to the browser as a file named for the moment it was taken. */
export function downloadCsv(csv: string, stem: string): void {
  const blob = new Blob([csv], { type: 'text/csv' });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = `${stem}-${new Date().toISOString().slice(0, 19).replace(/:/g, '')}.csv`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}
