/**
 * Scan channels (task `channel_scan`): the network's gateway visits the channels of a
 * region (likeliest first) and lists the nodes it hears on each, known (with their
 * network) and unknown, then returns to its own channel. Live: a row per channel as the
 * task reaches it; final: what each channel heard, and which nodes this gateway cannot
 * hear (bound to another network's gateway). A known node heard off its network's channel
 * (stranded) gets Bring home (task `rf_rescue`): back in its network and group. Opened
 * after a move that left nodes behind, it offers the scan the move's result asks for (the
 * old and the new channel, looking for those nodes) as its default.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { channelOf, describeRf, sameRf } from '../../../src/domain/rf-channels.ts';
import { TaskProgress } from '../devices/TaskProgress.tsx';
import { Modal } from '../dialogs/Modal.tsx';
import { devices, task } from '../store.ts';
import { cancelTask, errorText, REGIONS, startRescue, startScan, type Region } from './network-api.ts';
import { channelText } from './network-view.ts';
import { networksById } from './networks-store.ts';
import type { RfConfig } from './network-types.ts';
import type { Task } from '../types.ts';

interface Heard {
  addr: string;
  mac: string;
  group_reported: number;
  rssi: number;
  known: boolean;
  name: string | null;
  network_id: number | null;
  network_name: string | null;
}
interface ScanChannel {
  region: Region | null;
  channel_id: number | null;
  channel: string;
  rf: RfConfig;
  why: string;
  rounds: number;
  seconds: number;
  heard: Heard[];
  error: string | null;
}
interface ScanResult {
  home: { channel: string };
  returned_home: boolean;
  channels: ScanChannel[];
  cannot_hear: {
    note: string;
    networks: { id: number; name: string; devices: number; heard: number; pinned: number }[];
    devices: { addr: string; name: string; network_name: string; why: string }[];
  };
}
interface RescueResult {
  nodes: { addr: string; name: string | null; outcome: string; seconds: number | null }[];
}

const OUTCOME: Record<string, string> = {
  home: 'back in its network and group',
  moved_not_heard: 'left that channel but was not heard back home yet',
  not_moved: 'still answers on that channel',
  no_bind: 'did not answer there (gone, or bound to another gateway)',
};

/** Live rows: what the task's progress said about each channel it reached. */
interface LiveRow {
  channel: string;
  stage: string;
}

/** What a move's result asks to scan, when it left nodes behind: both its channels, for them. */
interface MoveScan {
  region: Region;
  channelIds: number[];
  text: string;
  seek: string[];
}

/** The last task, when it is this network's move that left nodes behind (its hint's scan). */
function scanAfterMove(t: Task | null, networkId: number): MoveScan | null {
  if (t?.name !== 'rf_migration' || t.state !== 'done' || t.meta.network_id !== networkId) return null;
  const r = t.result as {
    from?: { rf?: RfConfig };
    to?: { rf?: RfConfig };
    stranded?: string[];
    not_moved?: string[];
  } | null;
  const seek = [...(r?.stranded ?? []), ...(r?.not_moved ?? [])];
  const from = r?.from?.rf ? channelOf(r.from.rf) : null;
  const to = r?.to?.rf ? channelOf(r.to.rf) : null;
  if (seek.length === 0 || !from || !to || from.region !== to.region) return null;
  return {
    region: from.region,
    channelIds: [from.id, to.id],
    text: `${describeRf(from.rf)} (old channel) and ${describeRf(to.rf)} (new channel)`,
    seek,
  };
}

export function ChannelScanDialog({ networkId, onClose }: { networkId: number; onClose: () => void }) {
  const n = networksById.value.get(networkId);
  // Opened after a move that left nodes behind: the scan its result asks for is the default.
  const [afterMove] = useState(() => scanAfterMove(task.peek(), networkId));
  const [both, setBoth] = useState(afterMove !== null);
  const [region, setRegion] = useState<Region>(
    afterMove?.region ?? (n?.region as Region | null | undefined) ?? 'EU868',
  );
  const [includeHome, setIncludeHome] = useState(afterMove !== null);
  const [error, setError] = useState<string | null>(null);
  const [scanId, setScanId] = useState<number | null>(null);
  const [rescueId, setRescueId] = useState<number | null>(null);
  const [result, setResult] = useState<ScanResult | null>(null);
  const live = useRef(new Map<number, LiveRow>());
  const t = task.value;
  useEffect(() => {
    if (scanId === null || t?.id !== scanId) return;
    const index = typeof t.meta.index === 'number' ? t.meta.index : 0;
    if (index > 0 && typeof t.meta.channel === 'string')
      live.current.set(index, { channel: t.meta.channel, stage: String(t.meta.stage ?? '') });
    if (t.state === 'done') setResult(t.result as ScanResult);
  }, [t, scanId]);
  const scanning = scanId !== null && t?.id === scanId && t.state === 'running';
  const rescuing = rescueId !== null && t?.id === rescueId && t.state === 'running';
  const rescue =
    rescueId !== null && t?.id === rescueId && t.state === 'done' ? (t.result as RescueResult) : null;
  const start = async (e: Event): Promise<void> => {
    e.preventDefault();
    setError(null);
    setResult(null);
    live.current = new Map();
    try {
      const r = await startScan(
        networkId,
        both && afterMove
          ? {
              region: afterMove.region,
              channel_ids: afterMove.channelIds,
              include_home: true,
              seek: afterMove.seek,
            }
          : { region, include_home: includeHome },
      );
      setScanId(r.task.id);
    } catch (err) {
      setError(errorText(err));
    }
  };
  const bringHome = async (h: Heard, c: ScanChannel): Promise<void> => {
    setError(null);
    try {
      const from =
        c.region && c.channel_id !== null ? { region: c.region, channel_id: c.channel_id } : { rf: c.rf };
      const r = await startRescue([h.addr], h.network_id ?? networkId, from);
      setRescueId(r.task.id);
    } catch (err) {
      setError(errorText(err));
    }
  };
  const name = n?.name ?? `network ${networkId}`;
  const total = typeof t?.meta.total === 'number' && t.id === scanId ? t.meta.total : null;
  return (
    <Modal title={`Scan channels with ${name}'s gateway`} onClose={onClose} testId="channel-scan" wide>
      <form class="form" onSubmit={start}>
        <p class="muted">
          {name}'s gateway leaves {channelText(n?.rf)} for a while (its devices cannot be reached meanwhile;
          Blackout waits for it) and lists the nodes it hears on every other channel, then comes back. Nodes
          bound to another network's gateway ignore it; nodes no gateway has bound since they started (still
          in group 0, e.g. never given a group) answer any gateway, so another network's nodes can show on
          their own channel.
        </p>
        {scanId === null && afterMove && (
          <label class="check" data-testid="scan-after-move">
            <input type="checkbox" checked={both} onChange={(e) => setBoth(e.currentTarget.checked)} />{' '}
            <span>
              What the move asks: {afterMove.text}, looking for the {afterMove.seek.length} node
              {afterMove.seek.length === 1 ? '' : 's'} it left behind
            </span>
          </label>
        )}
        {scanId === null && !(both && afterMove) && (
          <div class="ops-head">
            <label class="check">
              Region{' '}
              <select
                aria-label="Scan region"
                value={region}
                onChange={(e) => setRegion(e.currentTarget.value as Region)}
              >
                {REGIONS.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
            </label>
            <label class="check">
              <input
                type="checkbox"
                checked={includeHome}
                onChange={(e) => setIncludeHome(e.currentTarget.checked)}
              />{' '}
              Its own channel too
            </label>
          </div>
        )}
        {scanning && (
          <ol class="net-scan-live" data-testid="scan-live">
            {[...live.current].map(([i, row]) => (
              <li key={i}>
                {row.channel}
                {i === t?.meta.index && (
                  <span class="muted"> — {row.stage === 'switch' ? 'tuning' : 'listening'}…</span>
                )}
              </li>
            ))}
            {total !== null && <li class="muted">of {total} channels</li>}
          </ol>
        )}
        <TaskProgress id={scanning ? scanId : null} />
        {result && (
          <ScanTable
            result={result}
            networkId={networkId}
            busy={rescuing}
            onBringHome={(h, c) => void bringHome(h, c)}
          />
        )}
        <TaskProgress id={rescueId} />
        {rescue && (
          <ul data-testid="rescue-result">
            {rescue.nodes.map((x) => (
              <li key={x.addr}>
                {x.name ?? x.addr}: {OUTCOME[x.outcome] ?? x.outcome}
                {x.seconds !== null && ` (${x.seconds} s)`}
              </li>
            ))}
          </ul>
        )}
        {error && (
          <p class="error-text" role="alert" data-testid="scan-error">
            {error}
          </p>
        )}
        <div class="buttons">
          {scanning || rescuing ? (
            <button
              type="button"
              class="danger"
              disabled={t?.cancel_requested === true}
              onClick={() => void cancelTask().catch((err) => setError(errorText(err)))}
            >
              {t?.cancel_requested ? 'Cancelling…' : 'Cancel'}
            </button>
          ) : (
            <button type="button" onClick={onClose}>
              Close
            </button>
          )}
          {!scanning && !rescuing && (
            <button type="submit" class="primary">
              {scanId === null ? 'Scan' : 'Scan again'}
            </button>
          )}
        </div>
      </form>
    </Modal>
  );
}

/** A known node heard on another channel than its network's: stranded there. */
function strandedOn(h: Heard, c: ScanChannel): boolean {
  const home = h.network_id === null ? null : networksById.value.get(h.network_id)?.rf;
  return !home || !sameRf(home, c.rf);
}

function ScanTable({
  result,
  networkId,
  busy,
  onBringHome,
}: {
  result: ScanResult;
  networkId: number;
  busy: boolean;
  onBringHome: (h: Heard, c: ScanChannel) => void;
}) {
  const ch = result.cannot_hear;
  const heard = new Set(result.channels.flatMap((c) => c.heard.map((h) => h.addr)));
  // This network's offline devices no channel heard: off, out of range, or on a channel not scanned.
  const missing = devices.value.filter((d) => d.network_id === networkId && !d.online && !heard.has(d.addr));
  return (
    <div data-testid="scan-result">
      {!result.returned_home && (
        <p class="error-text" role="alert">
          The gateway did not confirm it is back on {result.home.channel}.
        </p>
      )}
      <table class="net-scan">
        <thead>
          <tr>
            <th>Channel</th>
            <th>Heard</th>
          </tr>
        </thead>
        <tbody>
          {result.channels.map((c) => (
            <tr
              key={c.channel}
              data-testid={`scan-row-${c.region ?? 'custom'}-${c.channel_id ?? c.rf.freqHz}`}
            >
              <td>
                {c.channel}
                <div class="muted small">
                  {c.rounds} round(s), {c.seconds} s
                </div>
              </td>
              <td>
                {c.error && <span class="error-text">{c.error}</span>}
                {!c.error && c.heard.length === 0 && <span class="muted">nobody</span>}
                <ul class="net-heard">
                  {c.heard.map((h) => (
                    <li key={h.addr} data-testid={`heard-${h.addr}`}>
                      {h.known ? (
                        <>
                          <strong>{h.name}</strong> <span class="mono muted">{h.addr}</span> · of{' '}
                          {h.network_name ?? '?'}
                          {strandedOn(h, c) ? (
                            <>
                              {' '}
                              · <span class="warn-text">stranded here</span>{' '}
                              <button
                                type="button"
                                class="small primary"
                                disabled={busy}
                                onClick={() => onBringHome(h, c)}
                              >
                                Bring home
                              </button>
                            </>
                          ) : (
                            <span class="muted"> · on its network's channel</span>
                          )}
                        </>
                      ) : (
                        <>
                          <span class="pill tiny warn">UNKNOWN</span> <span class="mono">{h.mac}</span>{' '}
                          <span class="muted">(not one of ours: discover it on its channel to add it)</span>
                        </>
                      )}
                      <span class="muted small"> {h.rssi} dBm</span>
                    </li>
                  ))}
                </ul>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {missing.length > 0 && (
        <p class="warn-text" data-testid="scan-not-heard">
          Offline and heard on no scanned channel: {missing.map((d) => d.name).join(', ')} — powered off, out
          of range, or on a channel this scan did not visit.
        </p>
      )}
      <div data-testid="scan-cannot-hear">
        <p class="muted">{ch.note}.</p>
        {ch.networks.length > 0 && (
          <ul>
            {ch.networks.map((x) => (
              <li key={x.id}>
                {x.name}: {x.devices} device(s) not heard{x.pinned ? `, ${x.pinned} pinned` : ''}
                {x.heard ? ` (${x.heard} heard above: not bound yet)` : ''}
              </li>
            ))}
          </ul>
        )}
        {ch.devices.map((d) => (
          <p key={d.addr} class="muted">
            {d.name} ({d.network_name}): {d.why}
          </p>
        ))}
      </div>
    </div>
  );
}
