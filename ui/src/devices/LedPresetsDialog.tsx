/** LED preset files: upload, choose the active one, download one from a node. */
import { useEffect, useState } from 'preact/hooks';
import { get, post } from '../api.ts';
import { onRefresh } from '../live.ts';
import { devices, task, taskRunning } from '../store.ts';
import { toast, toastError } from '../toasts.ts';
import type { Task } from '../types.ts';
import { confirmAction } from '../dialogs/confirm.tsx';
import { Modal } from '../dialogs/Modal.tsx';
import { TaskProgress } from './TaskProgress.tsx';
import { DEFAULT_WIFI, WifiFields, wifiBody, type WifiForm } from './WifiFields.tsx';

interface PresetFile {
  name: string;
  size: number;
  saved_ts: number;
}

export function LedPresetsDialog({ selected, onClose }: { selected: string[]; onClose: () => void }) {
  const [files, setFiles] = useState<PresetFile[]>([]);
  const [current, setCurrent] = useState<string | null>(null);
  const [choice, setChoice] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [wifi, setWifi] = useState<WifiForm>(DEFAULT_WIFI);
  const [taskId, setTaskId] = useState<number | null>(null);
  const load = async () => {
    try {
      const r = await get<{ files: PresetFile[]; current: string | null }>('presets/list');
      setFiles(r.files);
      setCurrent(r.current);
      setChoice((c) => c || r.current || r.files[0]?.name || '');
    } catch (err) {
      toastError('Loading preset files failed', err);
    }
  };
  useEffect(() => {
    void load();
    return onRefresh('led_presets', () => void load());
  }, []);
  const t = task.value;
  const running = taskId !== null && t?.id === taskId && t.state === 'running';
  // A finished download: offer its file in the picker, ready for Apply.
  const downloaded =
    taskId !== null && t?.id === taskId && t.state === 'done'
      ? ((t.result as { file?: { name?: string } } | null)?.file?.name ?? null)
      : null;
  useEffect(() => {
    if (downloaded) setChoice(downloaded);
  }, [downloaded]);
  const one = selected.length === 1 ? devices.value.find((d) => d.addr === selected[0]) : undefined;
  const upload = async (e: Event) => {
    e.preventDefault();
    if (!file) return;
    // Taken before the await: the event's currentTarget is null once the handler yielded.
    const formEl = e.currentTarget as HTMLFormElement;
    const form = new FormData();
    form.append('file', file, file.name);
    try {
      const r = await post<{ file: PresetFile }>('presets/upload', form);
      setFile(null);
      formEl.reset();
      toast(`Uploaded preset file '${r.file.name}'`);
    } catch (err) {
      toastError('Upload failed', err);
    }
  };
  const apply = async () => {
    try {
      await post('presets/select', { name: choice });
      toast(`Active preset file: '${choice}'`);
    } catch (err) {
      toastError('Selecting the preset file failed', err);
    }
  };
  const download = async () => {
    if (!one) return;
    try {
      const r = await post<{ task: Task }>('presets/download', { mac: one.addr, ...wifiBody(wifi) });
      setTaskId(r.task.id);
    } catch (err) {
      toastError('Download failed', err);
    }
  };
  const cancel = async () => {
    if (
      !(await confirmAction({
        title: 'Cancel download',
        body: 'Cancel the preset download? The node AP is closed and the host WiFi restored.',
        confirm: 'Cancel download',
        danger: true,
      }))
    )
      return;
    await post('task/cancel').catch((err) => toastError('Cancel failed', err));
  };
  return (
    <Modal title="LED preset files" onClose={onClose} locked={running} wide testId="led-presets">
      <p class="muted">The active file feeds the LED preset pickers (device options, scene editor).</p>
      <h3>Upload from this computer</h3>
      <form class="row" onSubmit={upload}>
        <input
          type="file"
          name="file"
          accept=".json,application/json"
          aria-label="Preset file"
          onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
        />
        <button type="submit" class="primary" disabled={!file || taskRunning.value}>
          Upload
        </button>
      </form>
      <h3>Active preset file</h3>
      {files.length === 0 ? (
        <p class="muted" data-testid="current-preset-file">
          No preset files yet: upload one above or download one from a node below.
        </p>
      ) : (
        <div class="row">
          <select
            aria-label="Active preset file"
            value={choice}
            onChange={(e) => setChoice(e.currentTarget.value)}
          >
            {files.map((f) => (
              <option key={f.name} value={f.name}>
                {f.name} ({Math.round(f.size / 102.4) / 10} KiB)
              </option>
            ))}
          </select>
          <button
            type="button"
            class="primary"
            onClick={apply}
            disabled={!choice || choice === current || taskRunning.value}
          >
            Apply
          </button>
          <span class="muted" data-testid="current-preset-file">
            Current: {current || 'none'}
          </span>
        </div>
      )}
      <h3>Download from device</h3>
      <p class="muted">
        {one ? `From '${one.name}' (${one.addr}).` : 'Select exactly one device on the Devices page first.'}
      </p>
      <WifiFields value={wifi} onChange={setWifi} during="the download" />
      <TaskProgress id={taskId} />
      <div class="buttons">
        {running ? (
          <button type="button" onClick={cancel}>
            Cancel
          </button>
        ) : (
          <button type="button" onClick={onClose}>
            Close
          </button>
        )}
        <button type="button" class="go" onClick={download} disabled={!one || running || taskRunning.value}>
          Download from device
        </button>
      </div>
    </Modal>
  );
}
