/** A device's detail view: signal both ways, SNR and battery over time, and its online/offline timeline. */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { onRefresh } from '../live.ts';
import { Modal } from '../dialogs/Modal.tsx';
import { batteryState, warnPerCellOf } from '../common/battery-cells.ts';
import { thresholds } from '../common/battery.ts';
import { formatMac, relativeTime } from '../format.ts';
import { devices, nowS } from '../store.ts';
import { toastError } from '../toasts.ts';
import { Chart } from './Chart.tsx';
import { DeviceLinkTest } from './DeviceLinkTest.tsx';
import { fetchHistory, type DeviceHistory } from './data.ts';
import { multiNetwork, networksById } from '../networks/networks-store.ts';
import { NetworkChip } from '../networks/NetworkChip.tsx';

/** Reloads at most this often while polls keep changing the device. */
const RELOAD_MS = 2000;

export function DeviceDetail({ addr, onClose }: { addr: string; onClose: () => void }) {
  const [h, setH] = useState<DeviceHistory | null>(null);
  const d = devices.value.find((x) => x.addr === addr);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    let alive = true;
    const load = (): void => {
      fetchHistory(addr)
        .then((r) => alive && setH(r))
        .catch((err) => toastError('Loading history failed', err));
    };
    load();
    const off = onRefresh('devices', () => {
      timer ??= setTimeout(() => {
        timer = null;
        load();
      }, RELOAD_MS);
    });
    return () => {
      alive = false;
      off();
      if (timer) clearTimeout(timer);
    };
  }, [addr]);
  const s = h?.samples;
  const signal = useMemo(
    () =>
      s
        ? [
            { label: 'Gateway hears node (RSSI ↑)', color: '#22d3ee', values: s.host_rssi },
            { label: 'Node hears gateway (RSSI ↓)', color: '#f472b6', values: s.node_rssi },
          ]
        : [],
    [s],
  );
  const snr = useMemo(
    () =>
      s
        ? [
            { label: 'SNR ↑', color: '#22d3ee', values: s.host_snr },
            { label: 'SNR ↓', color: '#f472b6', values: s.node_snr },
          ]
        : [],
    [s],
  );
  const volts = useMemo(
    () =>
      s
        ? [
            {
              label: 'Battery',
              color: '#fbbf24',
              values: s.voltage_mV.map((v) => (v === null ? null : v / 1000)),
            },
          ]
        : [],
    [s],
  );
  const hasBattery = s?.voltage_mV.some((v) => v !== null) ?? false;
  const b = d ? batteryState(d.voltage_mV, warnPerCellOf(thresholds.value)) : null;
  return (
    <Modal title={d ? `${d.name} — signal and battery` : addr} onClose={onClose} wide testId="device-detail">
      {d && (
        <p class="detail-facts">
          <span class="mono">{formatMac(d.full_mac, d.addr)}</span>
          <span class={`pill tiny ${d.online ? 'online' : 'offline'}`}>
            {d.online ? 'Online' : 'Offline'}
          </span>
          <span class="muted">last seen {relativeTime(d.last_seen_ts, nowS.value)}</span>
          {multiNetwork.value && d.network_id !== undefined && (
            <span data-testid="device-network">
              network{' '}
              <NetworkChip
                id={d.network_id}
                name={networksById.value.get(d.network_id)?.name ?? `#${d.network_id}`}
              />
            </span>
          )}
          {b && b.cells > 0 && (
            <span class={`lvl-${b.level}`}>
              {(d.voltage_mV / 1000).toFixed(2)} V · {b.cells}S · {b.perCellV.toFixed(2)} V/cell
            </span>
          )}
          {h && (
            <span class="muted">
              {h.replies} replies · {h.failures} failed exchanges
            </span>
          )}
        </p>
      )}
      {!h ? (
        <p class="muted">Loading history…</p>
      ) : (
        <>
          <Timeline h={h} />
          <DeviceLinkTest addr={addr} />
          <Chart ts={h.samples.ts} series={signal} unit="dBm" testId="chart-rssi" />
          <Chart ts={h.samples.ts} series={snr} unit="dB" height={100} testId="chart-snr" />
          {hasBattery && (
            <Chart ts={h.samples.ts} series={volts} unit="V" height={100} testId="chart-battery" />
          )}
          <p class="muted small-text">
            {h.samples.ts.length} sample{h.samples.ts.length === 1 ? '' : 's'}, one per {h.bucket_s} s at
            most, the last {Math.round((h.capacity * h.bucket_s) / 3600)} h kept in the host's memory (not
            across restarts).
          </p>
        </>
      )}
    </Modal>
  );
}

/** Online/offline as coloured segments from the first known state to now. */
function Timeline({ h }: { h: DeviceHistory }) {
  // The host's clock, not the browser's: a tablet's clock may be minutes off.
  const now = h.now_ts;
  const tl = h.timeline;
  if (tl.length === 0) return <p class="muted">No online/offline changes recorded yet.</p>;
  const t0 = tl[0]!.ts;
  const span = Math.max(1, now - t0);
  return (
    <div class="uptime" aria-label="Online and offline over time" data-testid="uptime">
      {tl.map((x, i) => {
        const end = tl[i + 1]?.ts ?? now;
        const w = ((end - x.ts) / span) * 100;
        return (
          <span
            key={i}
            class={x.online ? 'up' : 'down'}
            style={{ width: `${Math.max(0.5, w)}%` }}
            title={`${x.online ? 'online' : 'offline'} from ${new Date(x.ts * 1000).toLocaleTimeString()}`}
          />
        );
      })}
    </div>
  );
}
