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
  useEffect(() => {
    void get<{ ifaces: { name: string; state: string }[] }>('wifi/interfaces')
      .then((r) => setIfaces(r.ifaces))
      .catch(() => setIfaces([]));
  }, []);
  const set = <K extends keyof WifiForm>(k: K, v: WifiForm[K]) => onChange({ ...value, [k]: v });
  return (
    <fieldset class="grid-fields">
      <legend>Node AP / host WiFi</legend>
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
      <label>
        Host WiFi interface
        <select
          aria-label="Host WiFi interface"
          value={value.iface}
          onChange={(e) => set('iface', e.currentTarget.value)}
        >
          <option value="">default (wlan0)</option>
          {ifaces.map((i) => (
            <option key={i.name} value={i.name}>
              {i.name} ({i.state})
            </option>
          ))}
        </select>
      </label>
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
      <label class="check">
        <input
          type="checkbox"
          checked={value.hostWifiEnable}
          onChange={(e) => set('hostWifiEnable', e.currentTarget.checked)}
        />
        Enable host WiFi during {during}
      </label>
      <label class="check">
        <input
          type="checkbox"
          checked={value.hostWifiRestore}
          onChange={(e) => set('hostWifiRestore', e.currentTarget.checked)}
        />
        Restore previous host WiFi state afterwards
      </label>
    </fieldset>
  );
}
