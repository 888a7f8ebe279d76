/** Shapes of the health routes (history, links, link test) and their loaders. */
import { signal } from '@preact/signals';
import { get } from '../api.ts';
import type { LinkTestDeviceResult, LinkTestResult, Range } from '../../../src/services/link-test/stats.ts';

export interface Series {
  ts: number[];
  host_rssi: number[];
  host_snr: number[];
  node_rssi: (number | null)[];
  node_snr: (number | null)[];
  voltage_mV: (number | null)[];
}

export interface DeviceHistory {
  addr: string;
  now_ts: number;
  bucket_s: number;
  capacity: number;
  samples: Series;
  timeline: { ts: number; online: boolean }[];
  replies: number;
  failures: number;
}

export interface Worst {
  host_rssi: number | null;
  host_snr: number | null;
  node_rssi: number | null;
  node_snr: number | null;
}

export interface LinkRow {
  addr: string;
  name: string;
  groupId: number;
  online: boolean;
  host_rssi: number;
  host_snr: number;
  node_rssi: number;
  node_snr: number;
  samples: number;
  replies: number;
  failures: number;
  worst: Worst;
  online_ratio: number | null;
}

export type { LinkTestResult, Range };
/** One device's link-test result, as the host's task returns it. */
export type LinkTestDevice = LinkTestDeviceResult;

export const fetchHistory = (addr: string): Promise<DeviceHistory> =>
  get<DeviceHistory & { ok: boolean }>(`devices/${addr}/history`);

/** Link summaries by address (failed exchanges, worst values), refreshed by the health page. */
export const links = signal<Map<string, LinkRow>>(new Map());

let inflight: Promise<void> | null = null;
export function loadLinks(): Promise<void> {
  inflight ??= get<{ links: LinkRow[] }>('links')
    .then((r) => {
      links.value = new Map(r.links.map((l) => [l.addr, l]));
    })
    .finally(() => {
      inflight = null;
    });
  return inflight;
}

/** The weakest link of a row: the lower of both directions' worst RSSI (null when never heard). */
export function weakestRssi(l: LinkRow): number | null {
  const vals = [l.worst.host_rssi, l.worst.node_rssi].filter((v): v is number => v !== null && v !== 0);
  return vals.length === 0 ? null : Math.min(...vals);
}
