/**
 * What the OTA workflow needs from the host's WiFi (ota.md §5): remember what to restore
 * (a "lease", also written to disk so a crashed host restores on its next start), join a
 * node's access point, let go of it, and restore. Two backends: NetworkManager (`nmcli`)
 * and `none` (the nodes are reached on the current network).
 */
import { readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileDurable } from '../../state/durable-write.ts';

export interface WifiLease {
  iface: string;
  radioWasOn: boolean;
  /** The connection active on the interface before we touched it. */
  previous: { name: string; uuid: string } | null;
  /** Radio off again afterwards (hostWifiRestore). */
  restoreRadio: boolean;
  /** Unix ms when the lease was taken. */
  ts: number;
}

export interface ConnectRequest {
  ssids: readonly string[];
  password: string;
  iface: string;
  /** Pin to exactly this BSSID (request `wifi.bssid`). */
  bssid: string | null;
  /** Predicted AP BSSID: 12 hex (full) or the last 6 hex (suffix) — preferred when seen. */
  predicted: string | null;
  /** BSSID joined for the previous device (its AP may linger in the scan cache). */
  avoid: string | null;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface Joined {
  ssid: string;
  bssid: string | null;
}

/** nmcli said the radio is off: the workflow may switch it on and retry once. */
export class WifiDisabledError extends Error {
  override readonly name = 'WifiDisabledError';
}

export interface WifiBackend {
  readonly kind: 'nmcli' | 'none';
  /** null when usable, else the reason (every device then fails with it). */
  unsupportedReason(): Promise<string | null>;
  /** null when `iface` is a WiFi interface this backend can switch, else why not. */
  interfaceProblem(iface: string): Promise<string | null>;
  radioEnabled(): Promise<boolean>;
  /** Records what to restore (radio, previous connection) and persists it. */
  takeLease(iface: string, restoreRadio: boolean): Promise<WifiLease>;
  radioOn(iface: string, signal?: AbortSignal): Promise<void>;
  connect(req: ConnectRequest): Promise<Joined>;
  /** Leaves the node AP (after each device) without restoring yet. */
  release(iface: string): Promise<void>;
  /** Puts back what the lease recorded and deletes the lease; warnings are texts for `errors`. */
  restore(lease: WifiLease): Promise<{ restored: boolean; warnings: string[] }>;
}

/** `--wifi none`: the host stays on its network; nodes must be reachable at `baseUrl`. */
export class NoWifiBackend implements WifiBackend {
  readonly kind = 'none' as const;
  /** Why there is no WiFi control although nobody asked for `--wifi none` (nmcli missing), or null. */
  constructor(readonly missing: string | null = null) {}
  unsupportedReason(): Promise<string | null> {
    return Promise.resolve(null);
  }
  interfaceProblem(): Promise<string | null> {
    return Promise.resolve(null);
  }
  radioEnabled(): Promise<boolean> {
    return Promise.resolve(true);
  }
  takeLease(iface: string): Promise<WifiLease> {
    return Promise.resolve({ iface, radioWasOn: true, previous: null, restoreRadio: false, ts: Date.now() });
  }
  radioOn(): Promise<void> {
    return Promise.resolve();
  }
  connect(req: ConnectRequest): Promise<Joined> {
    return Promise.resolve({ ssid: req.ssids[0] ?? '', bssid: null });
  }
  release(): Promise<void> {
    return Promise.resolve();
  }
  restore(): Promise<{ restored: boolean; warnings: string[] }> {
    return Promise.resolve({ restored: true, warnings: [] });
  }
}

/** `<data-dir>/wifi-lease.json`: present only while host WiFi is switched away. */
export class LeaseFile {
  readonly path: string;
  constructor(dataDir: string) {
    this.path = join(dataDir, 'wifi-lease.json');
  }

  async write(lease: WifiLease): Promise<void> {
    await writeFileDurable(this.path, JSON.stringify(lease), { mode: 0o600 });
  }

  async read(): Promise<WifiLease | null> {
    try {
      const raw = JSON.parse(await readFile(this.path, 'utf8')) as WifiLease;
      if (typeof raw.iface !== 'string' || !IFACE_RE.test(raw.iface)) return null;
      return raw;
    } catch {
      return null;
    }
  }

  async remove(): Promise<void> {
    await unlink(this.path).catch(() => undefined);
  }
}

export const IFACE_RE = /^[A-Za-z0-9_.:][A-Za-z0-9_.:-]{0,14}$/;
export const BSSID_RE = /^([0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}$/;

/** The node AP's BSSID: STA MAC + 1 (48-bit), or for a 3-byte address the last 3 bytes + 1. */
export function predictApBssid(mac: string): string {
  const hex = mac.replace(/[^0-9a-fA-F]/g, '');
  if (hex.length === 12) {
    const v = (BigInt('0x' + hex) + 1n) % (1n << 48n);
    return v.toString(16).padStart(12, '0').toUpperCase();
  }
  const v = (parseInt(hex.slice(-6), 16) + 1) % 0x1000000;
  return v.toString(16).padStart(6, '0').toUpperCase();
}

/** Does a scanned BSSID match a prediction (12 hex exact, 6 hex as suffix)? */
export function bssidMatches(bssid: string, predicted: string): boolean {
  const b = bssid.replace(/[^0-9a-fA-F]/g, '').toUpperCase();
  const p = predicted.replace(/[^0-9a-fA-F]/g, '').toUpperCase();
  return p.length === 12 ? b === p : b.endsWith(p);
}

export const colonBssid = (hex12: string): string =>
  (
    hex12
      .replace(/[^0-9a-fA-F]/g, '')
      .toUpperCase()
      .match(/../g) ?? []
  ).join(':');
