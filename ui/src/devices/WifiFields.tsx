/** Node AP / host WiFi fields shared by the firmware update and the preset download. */
import { useEffect, useState } from 'preact/hooks';
import { get } from '../api.ts';

export interface WifiForm {
  baseUrl: string;
  ssids: string;
  iface: string;
  timeoutS: number;
  password: string;
  otaPassword: string;
  hostWifiEnable: boolean;
  hostWifiRestore: boolean;
}

/** GET wifi/interfaces extra fields: can the host join a node's AP, and what is missing. */
interface WifiStatus {
  canSwitch: boolean;
  problem: string | null;
}

export const DEFAULT_WIFI: WifiForm = {
  baseUrl: 'http://4.3.2.1',
  ssids: '',
  iface: '',
  timeoutS: 20,
  password: '',
  otaPassword: '',
  hostWifiEnable: true,
  hostWifiRestore: true,
};

/** Only what the operator typed is sent; the host fills its built-in defaults. */
export function wifiBody(w: WifiForm): { baseUrl?: string; wifi: Record<string, unknown> } {
  const wifi: Record<string, unknown> = {
    timeoutS: w.timeoutS,
    hostWifiEnable: w.hostWifiEnable,
    hostWifiRestore: w.hostWifiRestore,
  };
  const ssids = w.ssids
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (ssids.length) wifi.ssids = ssids;
  if (w.iface) wifi.iface = w.iface;
  if (w.password) wifi.password = w.password;
  if (w.otaPassword) wifi.otaPassword = w.otaPassword;
  return { ...(w.baseUrl.trim() ? { baseUrl: w.baseUrl.trim() } : {}), wifi };
}

export function WifiFields({
  value,
  onChange,
  during,
}: {
  value: WifiForm;
  onChange: (w: WifiForm) => void;
  during: string;
}) {
  const [ifaces, setIfaces] = useState<{ name: string; state: string }[]>([]);
  // What the host can do with its WiFi, said before the run (null until the host answered).
  const [status, setStatus] = useState<WifiStatus | null>(null);
  useEffect(() => {
    void get<{ ifaces: { name: string; state: string }[] } & Partial<WifiStatus>>('wifi/interfaces')
      .then((r) => {
        setIfaces(r.ifaces);
        setStatus({ canSwitch: r.canSwitch ?? r.ifaces.length > 0, problem: r.problem ?? null });
      })
      .catch(() => setIfaces([]));
  }, []);
  const set = <K extends keyof WifiForm>(k: K, v: WifiForm[K]) => onChange({ ...value, [k]: v });
  // Switching options only where the host can switch: never "Enable host WiFi" on an
  // interface that does not exist.
  const canSwitch = status?.canSwitch ?? false;
  return (
    <fieldset class="grid-fields">
      <legend>Node AP / host WiFi</legend>
      {status?.problem && (
        <p
          class={canSwitch ? 'muted grid-span' : 'warn-text grid-span'}
          role="status"
          data-testid="wifi-problem"
        >
          {status.problem}
        </p>
      )}
      <label>
        Node base URL
        <input name="baseUrl" value={value.baseUrl} onInput={(e) => set('baseUrl', e.currentTarget.value)} />
      </label>
      <label>
        WiFi timeout (s)
        <input
          type="number"
          min={5}
          max={120}
          value={value.timeoutS}
          onInput={(e) => set('timeoutS', Number(e.currentTarget.value))}
        />
      </label>
      <label>
        Node AP names (comma-separated)
        <input
          name="ssids"
          placeholder="built-in names"
          value={value.ssids}
          onInput={(e) => set('ssids', e.currentTarget.value)}
        />
      </label>
      {canSwitch && (
        <label>
          Host WiFi interface
          <select
            aria-label="Host WiFi interface"
            value={value.iface}
            onChange={(e) => set('iface', e.currentTarget.value)}
          >
            {ifaces.some((i) => i.name === 'wlan0') && <option value="">default (wlan0)</option>}
            {ifaces.map((i) => (
              <option key={i.name} value={i.name}>
                {i.name} ({i.state})
              </option>
            ))}
          </select>
        </label>
      )}
      <label>
        Node AP password
        <input
          type="password"
          autoComplete="off"
          placeholder="built-in default"
          value={value.password}
          onInput={(e) => set('password', e.currentTarget.value)}
        />
      </label>
      <label>
        LED OTA password (unlock after HTTP 401)
        <input
          type="password"
          autoComplete="off"
          placeholder="built-in default"
          value={value.otaPassword}
          onInput={(e) => set('otaPassword', e.currentTarget.value)}
        />
      </label>
      {canSwitch && (
        <label class="check">
          <input
            type="checkbox"
            checked={value.hostWifiEnable}
            onChange={(e) => set('hostWifiEnable', e.currentTarget.checked)}
          />
          Enable host WiFi during {during}
        </label>
      )}
      {canSwitch && (
        <label class="check">
          <input
            type="checkbox"
            checked={value.hostWifiRestore}
            onChange={(e) => set('hostWifiRestore', e.currentTarget.checked)}
          />
          Restore previous host WiFi state afterwards
        </label>
      )}
    </fieldset>
  );
}
