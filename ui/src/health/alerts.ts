/**
 * The fleet's alert list, derived from the device rows (pure): offline, low battery,
 * weak link, firmware that differs from the rest of its device type, node AP left open.
 * An alert's key names the device and the kind, so an acknowledgement holds until the
 * condition clears and comes back.
 */
import { batteryState } from '../common/battery-cells.ts';
import { CONFIG_BITS } from '../common/config-pills.ts';
import { rssiLevel, snrLevel } from '../format.ts';
import type { Device } from '../types.ts';

export type AlertKind = 'offline' | 'battery' | 'weak_link' | 'firmware' | 'ap_open';

export interface Alert {
  key: string;
  kind: AlertKind;
  addr: string;
  name: string;
  severity: 'warn' | 'bad';
  text: string;
}

export const ALERT_LABEL: Record<AlertKind, string> = {
  offline: 'Offline',
  battery: 'Low battery',
  weak_link: 'Weak link',
  firmware: 'Firmware differs',
  ap_open: 'AP left open',
};

/** The most common firmware version per device type (ignoring unknown 0). */
export function fleetFirmware(devs: readonly Device[]): Map<number, number> {
  const counts = new Map<number, Map<number, number>>();
  for (const d of devs) {
    if (!d.version) continue;
    const m = counts.get(d.dev_type) ?? new Map<number, number>();
    m.set(d.version, (m.get(d.version) ?? 0) + 1);
    counts.set(d.dev_type, m);
  }
  const out = new Map<number, number>();
  for (const [type, m] of counts) {
    let best = 0;
    let bestN = -1;
    for (const [v, n] of m) if (n > bestN || (n === bestN && v > best)) [best, bestN] = [v, n];
    out.set(type, best);
  }
  return out;
}

/** `warnPerCell`: volts per cell below which a battery is low. */
export function computeAlerts(devs: readonly Device[], warnPerCell: number): Alert[] {
  const fw = fleetFirmware(devs);
  const out: Alert[] = [];
  const add = (d: Device, kind: AlertKind, severity: Alert['severity'], text: string): void => {
    out.push({ key: `${kind}:${d.addr}`, kind, addr: d.addr, name: d.name, severity, text });
  };
  for (const d of devs) {
    // Never heard since the host started: not an alert (every node is unknown after a restart).
    if (!d.online) {
      if (d.last_seen_ts) add(d, 'offline', 'bad', 'did not answer the last poll');
      continue;
    }
    const b = batteryState(d.voltage_mV, warnPerCell);
    if (b.level === 'warn' || b.level === 'bad')
      add(
        d,
        'battery',
        b.level,
        `${(d.voltage_mV / 1000).toFixed(2)} V (${b.cells}S, ${b.perCellV.toFixed(2)} V/cell)`,
      );
    const weak: string[] = [];
    if (rssiLevel(d.host_rssi) === 'bad') weak.push(`gateway hears ${d.host_rssi} dBm`);
    if (rssiLevel(d.node_rssi) === 'bad') weak.push(`node hears ${d.node_rssi} dBm`);
    if (d.host_rssi && snrLevel(d.host_snr, true) === 'bad') weak.push(`SNR ↑ ${d.host_snr} dB`);
    if (d.node_rssi && snrLevel(d.node_snr, true) === 'bad') weak.push(`SNR ↓ ${d.node_snr} dB`);
    if (weak.length > 0) add(d, 'weak_link', 'warn', weak.join(', '));
    const common = fw.get(d.dev_type);
    if (d.version && common !== undefined && d.version !== common)
      add(d, 'firmware', 'warn', `version ${d.version}, most of its type run ${common}`);
    if (d.configByte & CONFIG_BITS.apOpen) add(d, 'ap_open', 'warn', "the node's WiFi access point is open");
  }
  return out;
}

/** Acknowledgements that still match a live alert (the others are forgotten, so a recurrence shows). */
export function pruneAcks(acks: readonly string[], alerts: readonly Alert[]): string[] {
  const live = new Set(alerts.map((a) => a.key));
  return acks.filter((k) => live.has(k));
}
