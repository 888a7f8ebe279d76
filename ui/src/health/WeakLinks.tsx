/** The weakest links across the fleet: devices ordered by the worst RSSI either way over the last hours. */
import { useEffect } from 'preact/hooks';
import { rssiLevel, snrLevel } from '../format.ts';
import { loadLinks, links, weakestRssi, type LinkRow } from './data.ts';
import { toastError } from '../toasts.ts';

const SHOW = 30;

const lvl = (v: number | null, f: (n: number) => string): string => (v === null ? 'muted' : `lvl-${f(v)}`);
const fmt = (v: number | null): string => (v === null ? '—' : String(v));

export function WeakLinks({ onOpen }: { onOpen: (addr: string) => void }) {
  useEffect(() => {
    loadLinks().catch((err) => toastError('Loading link summary failed', err));
  }, []);
  const rows = [...links.value.values()]
    .map((l): [LinkRow, number | null] => [l, weakestRssi(l)])
    .filter(([, w]) => w !== null)
    .sort((a, b) => (a[1] ?? 0) - (b[1] ?? 0) || b[0].failures - a[0].failures)
    .slice(0, SHOW);
  const never = [...links.value.values()].filter((l) => weakestRssi(l) === null).length;
  return (
    <section class="ops-section" aria-label="Weakest links">
      <p class="muted">
        The {SHOW} devices with the lowest signal either way over the last 3 hours (worst sample, not the
        latest).
        {never > 0 &&
          ` ${never} device${never === 1 ? ' has' : 's have'} not been heard since the host started.`}
      </p>
      {rows.length === 0 ? (
        <p class="muted">No samples yet: run a status poll.</p>
      ) : (
        <div class="ops-table-wrap">
          <table class="devices ops-table" data-testid="weak-links">
            <thead>
              <tr>
                <th>Name</th>
                <th class="num">Worst RSSI ↑</th>
                <th class="num">Worst RSSI ↓</th>
                <th class="num">Worst SNR ↑/↓</th>
                <th class="num">Failed</th>
                <th class="num" title="Share of the window the device was online">
                  Online
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map(([l]) => (
                <tr key={l.addr} class={l.online ? '' : 'offline'}>
                  <td>
                    <button type="button" class="linklike" onClick={() => onOpen(l.addr)}>
                      {l.name}
                    </button>
                  </td>
                  <td class={`num ${lvl(l.worst.host_rssi, rssiLevel)}`}>{fmt(l.worst.host_rssi)}</td>
                  <td class={`num ${lvl(l.worst.node_rssi, rssiLevel)}`}>{fmt(l.worst.node_rssi)}</td>
                  <td class="num">
                    <span class={lvl(l.worst.host_snr, (n) => snrLevel(n, true))}>
                      {fmt(l.worst.host_snr)}
                    </span>{' '}
                    /{' '}
                    <span class={lvl(l.worst.node_snr, (n) => snrLevel(n, true))}>
                      {fmt(l.worst.node_snr)}
                    </span>
                  </td>
                  <td class="num">{l.failures}</td>
                  <td class="num">
                    {l.online_ratio === null ? '—' : `${Math.round(l.online_ratio * 100)} %`}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
