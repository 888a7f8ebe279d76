/**
 * Host WiFi around one OTA task: take the lease (and switch the radio on when it was off)
 * before the first device, restore afterwards (HOST_WIFI_RESTORE), whatever happened.
 */
import type { OtaMeta } from './meta.ts';
import { errText } from '../../util/err-text.ts';
import type { WifiSession } from './steps.ts';
import type { OtaDeps } from './types.ts';
import { NoWifiBackend } from '../wifi/index.ts';

const hostOf = (url: string): string | null => {
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
};

/** The address a node answers on inside its own access point (the default base URL). */
const NODE_AP_HOST = '4.3.2.1';

export async function startWifi(
  deps: OtaDeps,
  ws: WifiSession,
  meta: OtaMeta,
  baseUrl: string,
): Promise<void> {
  const reason = await deps.wifi.unsupportedReason();
  if (reason) throw new Error(reason);
  // Fail before any radio traffic when the run cannot work, instead of after every
  // device's 90 s wait for a node nobody can reach.
  const ifaceProblem = await deps.wifi.interfaceProblem(ws.opts.iface);
  if (ifaceProblem) throw new Error(`${ifaceProblem}: the host cannot join a node's access point`);
  const missing = deps.wifi instanceof NoWifiBackend ? deps.wifi.missing : null;
  if (missing && hostOf(baseUrl) === NODE_AP_HOST) {
    throw new Error(
      `${missing}: the host cannot join the node's WiFi access point, so ${baseUrl} cannot be reached ` +
        `(install NetworkManager, or join this computer to the node's WiFi yourself and start the host ` +
        `with --wifi none, or set a node base URL that answers from this network)`,
    );
  }
  ws.lease = await deps.wifi.takeLease(ws.opts.iface, ws.opts.hostWifiRestore);
  if (!ws.lease.radioWasOn && ws.opts.hostWifiEnable) {
    meta.emit('HOST_WIFI_ON', 'Enabling host WiFi radio...');
    await deps.wifi.radioOn(ws.opts.iface);
    ws.radioSwitched = true;
  }
}

export interface HostWifiResult {
  wasEnabled: boolean | null;
  /** Radio state after the restore (null when WiFi was never touched or cannot be read). */
  enabled: boolean | null;
  backend: 'nmcli' | 'none';
  restored: boolean;
}

/** Never throws: failures become texts in `errors`. */
export async function finishWifi(
  deps: OtaDeps,
  ws: WifiSession,
  meta: OtaMeta,
  errors: string[],
): Promise<HostWifiResult> {
  const res: HostWifiResult = {
    wasEnabled: ws.lease?.radioWasOn ?? null,
    enabled: null,
    backend: deps.wifi.kind,
    restored: true,
  };
  if (!ws.lease) return res;
  meta.emit('HOST_WIFI_RESTORE', 'Restoring host WiFi');
  try {
    const r = await deps.wifi.restore(ws.lease);
    res.restored = r.restored;
    errors.push(...r.warnings);
  } catch (err) {
    res.restored = false;
    errors.push(`Host WiFi restore failed: ${errText(err)}`);
  }
  res.enabled = await deps.wifi.radioEnabled().catch(() => null);
  ws.lease = null;
  return res;
}
