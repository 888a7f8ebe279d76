/**
 * Validation of `POST /api/fw/start` and `POST /api/presets/download` bodies (ota.md
 * §3.1–3.2, decisions §15–17): addresses, operations, retries, the WiFi sub-body with its
 * root aliases, and the base URL. Pure (no I/O); errors name the field.
 */
import * as z from 'zod';
import { ValidationError } from '../../errors.ts';
import { BSSID_RE, IFACE_RE } from '../wifi/index.ts';

export const DEFAULT_SSIDS = ['WLED_RaceLink_AP', 'WLED-AP'] as const;
export const DEFAULT_AP_PASSWORD = 'wled1234';
export const DEFAULT_OTA_PASSWORD = 'wledota';
export const DEFAULT_BASE_URL = 'http://4.3.2.1';

export interface WifiOptions {
  ssids: string[];
  password: string;
  otaPassword: string;
  iface: string;
  bssid: string | null;
  timeoutS: number;
  hostWifiEnable: boolean;
  hostWifiRestore: boolean;
}

const bool = z.boolean({ error: 'must be a boolean (true or false)' });
const str = z.string({ error: 'must be a string' });
const opt = <T extends z.ZodType>(s: T) => s.nullish().transform((v) => v ?? undefined);

const wifiFields = {
  ssids: opt(z.array(str, { error: 'must be a list of strings' })),
  ssid: opt(str),
  password: opt(str),
  otaPassword: opt(str),
  iface: opt(str),
  bssid: opt(str),
  timeoutS: opt(z.number({ error: 'must be a number' })),
  hostWifiEnable: opt(bool),
  hostWifiRestore: opt(bool),
  connName: z.unknown().optional(),
};
const wifiSchema = z.object(wifiFields, { error: 'must be an object' });
const rootWifi = {
  wifi: opt(wifiSchema),
  wifiSsid: opt(z.union([str, z.array(str)], { error: 'must be a string or a list of strings' })),
  wifiPassword: opt(str),
  wifiOtaPassword: opt(str),
  wifiIface: opt(str),
  wifiBssid: opt(str),
  wifiTimeoutS: opt(z.number({ error: 'must be a number' })),
  hostWifiEnable: opt(bool),
  hostWifiRestore: opt(bool),
  baseUrl: opt(str),
};

export const fwStartSchema = z.object({
  macs: z.array(str, { error: 'missing macs' }).min(1, 'missing macs'),
  doFirmware: opt(bool),
  doPresets: opt(bool),
  doCfg: opt(bool),
  fwId: opt(str),
  presetsName: opt(str),
  cfgId: opt(str),
  retries: opt(z.number({ error: 'must be an integer' }).int('must be an integer')),
  stopOnError: opt(bool),
  skipValidation: opt(bool),
  ...rootWifi,
});
export type FwStartBody = z.infer<typeof fwStartSchema>;

export const presetsDownloadSchema = z.object({ mac: str, ...rootWifi });
export type PresetsDownloadBody = z.infer<typeof presetsDownloadSchema>;

const splitList = (v: string | readonly string[]): string[] =>
  (typeof v === 'string' ? v.split(',') : v.flatMap((x) => x.split(',')))
    .map((s) => s.trim())
    .filter(Boolean);

/** `wifi.<field>` wins over the root alias, which wins over the default. */
export function resolveWifi(b: z.infer<z.ZodObject<typeof rootWifi>>): WifiOptions {
  const w: Partial<z.infer<typeof wifiSchema>> = b.wifi ?? {};
  const ssidSource = w.ssids ?? w.ssid ?? b.wifiSsid;
  let ssids: string[] = [...DEFAULT_SSIDS];
  if (ssidSource !== undefined) {
    ssids = [...new Set(splitList(ssidSource))];
    if (ssids.length === 0)
      throw new ValidationError(
        `wifi.ssids: at least one SSID required (default: ${DEFAULT_SSIDS.join(', ')})`,
      );
  }
  for (const s of ssids) {
    // eslint-disable-next-line no-control-regex
    if (Buffer.byteLength(s) > 32 || /[\u0000-\u001f\u007f]/.test(s))
      throw new ValidationError(
        `wifi.ssids: invalid SSID ${JSON.stringify(s.slice(0, 40))} (1..32 bytes, no control characters)`,
      );
  }
  const password = w.password || b.wifiPassword || DEFAULT_AP_PASSWORD;
  if (!/^[\x20-\x7e]{8,63}$/.test(password))
    throw new ValidationError('wifi.password: must be 8..63 printable ASCII characters');
  const otaPassword = w.otaPassword || b.wifiOtaPassword || DEFAULT_OTA_PASSWORD;
  if (otaPassword.length > 64 || /[\r\n]/.test(otaPassword))
    throw new ValidationError('wifi.otaPassword: must be at most 64 characters on one line');
  const iface = w.iface || b.wifiIface || 'wlan0';
  if (!IFACE_RE.test(iface)) throw new ValidationError('wifi.iface: invalid interface name');
  const bssidRaw = (w.bssid ?? b.wifiBssid ?? '').trim();
  if (bssidRaw && !BSSID_RE.test(bssidRaw))
    throw new ValidationError('wifi.bssid: must look like AA:BB:CC:DD:EE:FF');
  const timeoutS = w.timeoutS ?? b.wifiTimeoutS ?? 20;
  if (!(timeoutS >= 5 && timeoutS <= 120))
    throw new ValidationError('wifi.timeoutS: must be between 5 and 120');
  return {
    ssids,
    password,
    otaPassword,
    iface,
    bssid: bssidRaw ? bssidRaw.toUpperCase() : null,
    timeoutS,
    hostWifiEnable: w.hostWifiEnable ?? b.hostWifiEnable ?? true,
    hostWifiRestore: w.hostWifiRestore ?? b.hostWifiRestore ?? true,
  };
}

const PRIVATE_V4 = [
  /^10\./,
  /^192\.168\./,
  /^172\.(1[6-9]|2\d|3[01])\./,
  /^127\./,
  /^169\.254\./,
  /^4\.3\.2\.1$/,
];

/**
 * `http://` to a loopback, private or link-local address, 4.3.2.1 or a `.local` name; no
 * path, query or credentials; trailing `/` dropped (decisions §15).
 */
export function resolveBaseUrl(raw: string | undefined): string {
  const text = (raw ?? '').trim().replace(/\/+$/, '');
  if (!text) return DEFAULT_BASE_URL;
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new ValidationError('baseUrl: invalid baseUrl');
  }
  const host = u.hostname.toLowerCase();
  const okHost =
    PRIVATE_V4.some((re) => re.test(host) && /^\d+\.\d+\.\d+\.\d+$/.test(host)) ||
    host === 'localhost' ||
    host === '[::1]' ||
    /^[a-z0-9-]+(\.[a-z0-9-]+)*\.local$/.test(host);
  if (
    u.protocol !== 'http:' ||
    u.username ||
    u.password ||
    u.search ||
    u.hash ||
    (u.pathname !== '/' && u.pathname !== '') ||
    !okHost
  )
    throw new ValidationError(
      'baseUrl: invalid baseUrl (http:// to a private, loopback or link-local address, 4.3.2.1 or a .local name, no path)',
    );
  return `http://${u.host}`;
}

export const clampRetries = (r: number | undefined): number => Math.min(10, Math.max(1, r ?? 3));
