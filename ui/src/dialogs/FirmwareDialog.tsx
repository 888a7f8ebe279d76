/**
 * Firmware update: uploads, targets, options; then per-device rows with state, stage,
 * upload progress and messages; cancel; a summary with "retry failed devices". The
 * running view is rebuilt from the task snapshot, so it survives a page reload.
 */
import { useEffect, useState } from 'preact/hooks';
import { get, post } from '../api.ts';
import { formatElapsed } from '../format.ts';
import { devices, groupsById, task, taskReceivedAt, taskRunning } from '../store.ts';
import { toast, toastError } from '../toasts.ts';
import type { Task } from '../types.ts';
import { confirmAction } from './confirm.tsx';
import { Modal } from './Modal.tsx';
import { DEFAULT_WIFI, WifiFields, wifiBody, type WifiForm } from './WifiFields.tsx';

interface Upload {
  id: string;
  kind: 'firmware' | 'cfg';
  name: string;
  size: number;
  sha256: string;
}

const HINTS: [RegExp, string][] = [
  [/HTTP 401/i, 'The LED OTA password is not the default — fill it in.'],
  [/authentication failed/i, 'Wrong AP password, or the node is rate-limiting: wait ~30 s and retry.'],
  [/PIN/i, 'The node has a settings PIN; clear it on the node.'],
  [
    /release name|mismatch/i,
    'Binary from another firmware fork: tick "Skip firmware-name validation" only if you are sure.',
  ],
  [
    /CONFIG ACK|AP-enable|no ACK/i,
    'The node did not hear the radio command: check it is online (Get Status).',
  ],
];
const hintFor = (msg: string): string | undefined => HINTS.find(([re]) => re.test(msg))?.[1];

type TargetMode = 'selection' | 'group' | 'all' | 'type';

export function FirmwareDialog({
  selected,
  groupFilter,
  onClose,
}: {
  selected: string[];
  groupFilter: number | null;
  onClose: () => void;
}) {
  const t0 = task.value;
  const [taskId, setTaskId] = useState<number | null>(
    t0?.name === 'fwupdate' && t0.state === 'running' ? t0.id : null,
  );
  const [mode, setMode] = useState<TargetMode>(
    selected.length ? 'selection' : groupFilter !== null ? 'group' : 'all',
  );
  const [type, setType] = useState('');
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [presetFiles, setPresetFiles] = useState<string[]>([]);
  const [doFw, setDoFw] = useState(true);
  const [doPresets, setDoPresets] = useState(false);
  const [doCfg, setDoCfg] = useState(false);
  const [fwId, setFwId] = useState('');
  const [cfgId, setCfgId] = useState('');
  const [presetsName, setPresetsName] = useState('');
  const [retries, setRetries] = useState(3);
  const [stopOnError, setStop] = useState(false);
  const [skipValidation, setSkip] = useState(false);
  const [wifi, setWifi] = useState<WifiForm>(DEFAULT_WIFI);
  const [retryOnly, setRetryOnly] = useState<string[] | null>(null);

  const loadUploads = async () => {
    const r = await get<{ files: Upload[] }>('fw/uploads');
    setUploads(r.files);
    setFwId((v) => v || r.files.find((f) => f.kind === 'firmware')?.id || '');
    setCfgId((v) => v || r.files.find((f) => f.kind === 'cfg')?.id || '');
  };
  useEffect(() => {
    void loadUploads().catch((err) => toastError('Loading uploads failed', err));
    void get<{ files: { name: string }[]; current: string | null }>('presets/list')
      .then((r) => {
        setPresetFiles(r.files.map((f) => f.name));
        setPresetsName(r.current ?? r.files[0]?.name ?? '');
      })
      .catch(() => {});
  }, []);

  const all = devices.value;
  const types = [...new Set(all.map((d) => d.dev_type_name))].sort();
  const byMode: Record<TargetMode, string[]> = {
    selection: selected,
    group: groupFilter === null ? [] : all.filter((d) => d.groupId === groupFilter).map((d) => d.addr),
    all: all.map((d) => d.addr),
    type: all.filter((d) => d.dev_type_name === (type || types[0])).map((d) => d.addr),
  };
  const macs = retryOnly ?? byMode[mode];

  const upload = async (kind: 'firmware' | 'cfg', file: File | undefined) => {
    if (!file) return;
    const form = new FormData();
    form.append('kind', kind);
    form.append('file', file, file.name);
    try {
      const r = await post<{ file: Upload; warnings?: string[] }>('fw/upload', form);
      await loadUploads();
      if (kind === 'firmware') setFwId(r.file.id);
      else setCfgId(r.file.id);
      toast(
        `Uploaded ${r.file.name} (${Math.round(r.file.size / 1024)} KiB, sha256 ${r.file.sha256.slice(0, 12)}…)`,
      );
      for (const w of r.warnings ?? []) toast(`Warning: ${w}`, 'error');
    } catch (err) {
      toastError('Upload failed', err);
    }
  };
  const start = async () => {
    const mins = Math.max(1, Math.round((macs.length * 30) / 60));
    const ok = await confirmAction({
      title: 'Start firmware update',
      body: `Update ${macs.length} device${macs.length === 1 ? '' : 's'}? Plan about ${mins} minute${mins === 1 ? '' : 's'}; each node reboots and is briefly offline.`,
      confirm: 'Start update',
    });
    if (!ok) return;
    try {
      const body = {
        macs,
        doFirmware: doFw,
        doPresets,
        doCfg,
        ...(doFw ? { fwId } : {}),
        ...(doPresets ? { presetsName } : {}),
        ...(doCfg ? { cfgId } : {}),
        retries,
        stopOnError,
        skipValidation,
        ...wifiBody(wifi),
      };
      const r = await post<{ task: Task }>('fw/start', body);
      setTaskId(r.task.id);
      setRetryOnly(null);
    } catch (err) {
      toastError('Firmware update failed to start', err);
    }
  };

  const t = task.value;
  const mine = taskId !== null && t?.id === taskId ? t : null;
  const running = mine?.state === 'running';
  if (mine) {
    return (
      <RunView
        t={mine}
        running={running}
        onClose={onClose}
        onRetry={(failed) => (setRetryOnly(failed), setTaskId(null))}
      />
    );
  }
  const firmwareUploads = uploads.filter((u) => u.kind === 'firmware');
  const cfgUploads = uploads.filter((u) => u.kind === 'cfg');
  const missing =
    (doFw && !fwId) || (doCfg && !cfgId) || (doPresets && !presetsName) || !(doFw || doCfg || doPresets);
  return (
    <Modal title="Firmware update" onClose={onClose} wide testId="firmware-dialog">
      <h3>Targets</h3>
      {retryOnly ? (
        <p>
          Retrying {retryOnly.length} failed device{retryOnly.length === 1 ? '' : 's'}.{' '}
          <button type="button" class="small" onClick={() => setRetryOnly(null)}>
            Choose targets again
          </button>
        </p>
      ) : (
        <div class="radios wrap" role="radiogroup" aria-label="Targets">
          <label class="check">
            <input
              type="radio"
              name="fwtarget"
              checked={mode === 'selection'}
              onChange={() => setMode('selection')}
            />{' '}
            Selection ({byMode.selection.length})
          </label>
          <label class="check">
            <input
              type="radio"
              name="fwtarget"
              checked={mode === 'group'}
              disabled={groupFilter === null}
              onChange={() => setMode('group')}
            />
            Current group
            {groupFilter !== null ? ` '${groupsById.value.get(groupFilter)?.name ?? groupFilter}'` : ''} (
            {byMode.group.length})
          </label>
          <label class="check">
            <input type="radio" name="fwtarget" checked={mode === 'all'} onChange={() => setMode('all')} />{' '}
            All ({byMode.all.length})
          </label>
          <label class="check">
            <input type="radio" name="fwtarget" checked={mode === 'type'} onChange={() => setMode('type')} />{' '}
            By type
            <select
              aria-label="Device type"
              value={type || types[0]}
              onChange={(e) => (setType(e.currentTarget.value), setMode('type'))}
            >
              {types.map((x) => (
                <option key={x}>{x}</option>
              ))}
            </select>
            ({byMode.type.length})
          </label>
          <span class="muted" data-testid="planned">
            {macs.length} devices planned
          </span>
        </div>
      )}
      <h3>Operations</h3>
      <div class="op-row">
        <label class="check">
          <input type="checkbox" checked={doFw} onChange={(e) => setDoFw(e.currentTarget.checked)} /> Firmware
          (.bin)
        </label>
        <select
          aria-label="Firmware upload"
          value={fwId}
          onChange={(e) => setFwId(e.currentTarget.value)}
          disabled={!doFw}
        >
          <option value="">— upload a firmware image —</option>
          {firmwareUploads.map((u) => (
            <option key={u.id} value={u.id}>
              {u.name} · {Math.round(u.size / 1024)} KiB · {u.sha256.slice(0, 8)}
            </option>
          ))}
        </select>
        <input
          type="file"
          accept=".bin"
          aria-label="Firmware file"
          onChange={(e) => upload('firmware', e.currentTarget.files?.[0])}
          disabled={taskRunning.value}
        />
      </div>
      <div class="op-row">
        <label class="check">
          <input
            type="checkbox"
            checked={doPresets}
            onChange={(e) => setDoPresets(e.currentTarget.checked)}
          />{' '}
          LED preset file
        </label>
        <select
          aria-label="Preset file to upload"
          value={presetsName}
          onChange={(e) => setPresetsName(e.currentTarget.value)}
          disabled={!doPresets}
        >
          {presetFiles.length === 0 && <option value="">— add files in the LED presets dialog —</option>}
          {presetFiles.map((n) => (
            <option key={n}>{n}</option>
          ))}
        </select>
      </div>
      <div class="op-row">
        <label class="check">
          <input type="checkbox" checked={doCfg} onChange={(e) => setDoCfg(e.currentTarget.checked)} /> Config
          file (cfg.json)
        </label>
        <select
          aria-label="Config upload"
          value={cfgId}
          onChange={(e) => setCfgId(e.currentTarget.value)}
          disabled={!doCfg}
        >
          <option value="">— upload a cfg.json —</option>
          {cfgUploads.map((u) => (
            <option key={u.id} value={u.id}>
              {u.name} · {u.sha256.slice(0, 8)}
            </option>
          ))}
        </select>
        <input
          type="file"
          accept=".json"
          aria-label="Config file"
          onChange={(e) => upload('cfg', e.currentTarget.files?.[0])}
          disabled={taskRunning.value}
        />
      </div>
      <WifiFields value={wifi} onChange={setWifi} during="the update" />
      <h3>Behaviour</h3>
      <div class="row">
        <label class="small-field">
          Retries per device
          <input
            type="number"
            min={1}
            max={10}
            value={retries}
            onInput={(e) => setRetries(Math.max(1, Math.min(10, Number(e.currentTarget.value))))}
          />
        </label>
        <label class="check">
          <input type="checkbox" checked={stopOnError} onChange={(e) => setStop(e.currentTarget.checked)} />{' '}
          Stop on first error
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={skipValidation}
            onChange={(e) => setSkip(e.currentTarget.checked)}
          />{' '}
          Skip firmware-name validation (cross-fork)
        </label>
      </div>
      {skipValidation && (
        <p class="error-text">Only when moving between firmware forks: the wrong binary can brick a node.</p>
      )}
      <div class="buttons">
        <span class="muted spacer">
          {macs.length
            ? `~${Math.max(1, Math.round((macs.length * 30) / 60))} min for ${macs.length} devices`
            : 'No target devices.'}
        </span>
        <button type="button" onClick={onClose}>
          Close
        </button>
        <button
          type="button"
          class="go"
          disabled={!macs.length || missing || taskRunning.value}
          onClick={start}
          title={taskRunning.value ? 'Busy: a task is running' : ''}
        >
          Start update
        </button>
      </div>
    </Modal>
  );
}

const STATE_LOOK: Record<string, [string, string]> = {
  queued: ['none', '•'],
  skipped: ['none', '–'],
  running: ['tx', '⟳'],
  ok: ['good', '✓'],
  error: ['bad', '✗'],
  reannounce_timeout: ['warn', '⚠'],
};

function RunView({
  t,
  running,
  onClose,
  onRetry,
}: {
  t: Task;
  running: boolean;
  onClose: () => void;
  onRetry: (failed: string[]) => void;
}) {
  const [, tick] = useState(0);
  useEffect(() => {
    if (!running) return;
    const id = setInterval(() => tick((n) => n + 1), 1000);
    return () => clearInterval(id);
  }, [running]);
  const m = t.meta as {
    macs?: string[];
    deviceState?: Record<string, string>;
    deviceMessages?: Record<string, string>;
    deviceProgress?: Record<string, { percent: number }>;
    addr?: string;
    stage?: string;
    message?: string;
  };
  const macs = m.macs ?? [];
  const states = m.deviceState ?? {};
  const elapsed = running
    ? (t.elapsed_s ?? 0) + (Date.now() - taskReceivedAt.value) / 1000
    : (t.ended_ts ?? t.started_ts) - t.started_ts;
  const done = macs.filter(
    (a) => states[a] === 'ok' || states[a] === 'reannounce_timeout' || states[a] === 'error',
  ).length;
  const perDevice = done ? elapsed / done : 30;
  const remaining = Math.max(0, (macs.length - done) * perDevice);
  const failed = macs.filter((a) => states[a] === 'error');
  const name = (a: string) => devices.value.find((d) => d.addr === a)?.name ?? a;
  const cancel = async () => {
    if (
      !(await confirmAction({
        title: 'Cancel firmware update',
        body: 'Cancel the update? The host stops between steps, closes node APs it opened and restores its WiFi.',
        confirm: 'Cancel update',
        danger: true,
      }))
    )
      return;
    await post('task/cancel').catch((err) => toastError('Cancel failed', err));
  };
  const result = (t.result ?? {}) as { summary?: string };
  return (
    <Modal title="Firmware update" onClose={onClose} locked={running} wide testId="firmware-dialog">
      <div class="row between">
        <strong data-testid="fw-header">
          {running
            ? `Running · ${formatElapsed(elapsed)} · ~${formatElapsed(remaining)} left`
            : t.state === 'done'
              ? `Finished · total time ${formatElapsed(elapsed)}`
              : t.last_error === 'cancelled'
                ? `Cancelled after ${done}/${macs.length} device${macs.length === 1 ? '' : 's'} · ${formatElapsed(elapsed)}`
                : `Ended: ${t.last_error ?? 'error'}`}
        </strong>
        {!running && (
          <span data-testid="fw-summary">
            {macs.filter((a) => states[a] === 'ok' || states[a] === 'reannounce_timeout').length} ok ·{' '}
            {failed.length} failed · {macs.filter((a) => states[a] === 'queued').length} skipped
            {result.summary ? ` (${result.summary})` : ''}
          </span>
        )}
      </div>
      <ul class="fw-rows" data-testid="fw-rows">
        {macs.map((a) => {
          const raw = states[a] ?? 'queued';
          // Still queued when the task ended: it never started (cancel or stop on error).
          const s = !running && raw === 'queued' ? 'skipped' : raw;
          const [cls, sym] = STATE_LOOK[s] ?? ['none', '?'];
          const msg = m.deviceMessages?.[a];
          const pct = m.deviceProgress?.[a]?.percent;
          return (
            <li key={a} class={`fw-row ${cls}`} data-addr={a} data-state={s}>
              <span class={`lvl-${cls}`} aria-hidden="true">
                {sym}
              </span>
              <span class="fw-name">
                {name(a)} <span class="mono muted">{a}</span>
              </span>
              <span class="fw-state">{s}</span>
              <span class="progress">
                <span
                  class="bar"
                  style={{ width: `${s === 'ok' || s === 'reannounce_timeout' ? 100 : (pct ?? 0)}%` }}
                />
                <span class="progress-text">
                  {s === 'running' ? `${m.stage ?? ''} ${pct !== undefined ? `${pct}%` : ''}` : ''}
                </span>
              </span>
              {s === 'running' && m.addr === a && m.message && (
                <span class="muted small-text">{m.message}</span>
              )}
              {msg && (
                <span class={s === 'error' ? 'error-text small-text' : 'muted small-text'}>
                  {msg}
                  {s === 'error' && hintFor(msg) ? ` — ${hintFor(msg)}` : ''}
                </span>
              )}
            </li>
          );
        })}
      </ul>
      <div class="buttons">
        {running ? (
          <button type="button" onClick={cancel} disabled={t.cancel_requested === true}>
            {t.cancel_requested ? 'Cancelling…' : 'Cancel'}
          </button>
        ) : (
          <>
            {failed.length > 0 && (
              <button type="button" class="primary" onClick={() => onRetry(failed)}>
                Retry failed devices
              </button>
            )}
            <button type="button" onClick={onClose}>
              Close
            </button>
          </>
        )}
      </div>
    </Modal>
  );
}
