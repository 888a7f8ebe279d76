/**
 * Firmware update: uploads, targets, options; then per-device rows with state, stage,
 * upload progress and messages; cancel; a summary with "retry failed devices". The
 * running view is rebuilt from the task snapshot, so it survives a page reload.
 */
import { useEffect, useState } from 'preact/hooks';
import { get, post } from '../api.ts';
import { devices, task, taskRunning } from '../store.ts';
import { toast, toastError } from '../toasts.ts';
import type { Task } from '../types.ts';
import { confirmAction } from '../dialogs/confirm.tsx';
import {
  DEFAULT_FIRMWARE_OPTIONS,
  FirmwareOptionsForm,
  firmwareStartBody,
  optionsIncomplete,
  type FirmwareOptions,
  type Upload,
} from './FirmwareOptions.tsx';
import { FirmwareRunView } from './FirmwareRunView.tsx';
import { FirmwareTargets, targetsByMode, type TargetMode } from './FirmwareTargets.tsx';
import { Modal } from '../dialogs/Modal.tsx';

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
  // Nothing is preselected but what the operator selected: a firmware run is never one
  // click away from the whole fleet.
  const [mode, setMode] = useState<TargetMode | null>(selected.length ? 'selection' : null);
  const [type, setType] = useState('');
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [presetFiles, setPresetFiles] = useState<string[]>([]);
  const [options, setOptions] = useState<FirmwareOptions>(DEFAULT_FIRMWARE_OPTIONS);
  const [retryOnly, setRetryOnly] = useState<string[] | null>(null);
  const patch = (p: Partial<FirmwareOptions>) => setOptions((o) => ({ ...o, ...p }));

  const loadUploads = async () => {
    const r = await get<{ files: Upload[] }>('fw/uploads');
    setUploads(r.files);
    setOptions((o) => ({
      ...o,
      fwId: o.fwId || r.files.find((f) => f.kind === 'firmware')?.id || '',
      cfgId: o.cfgId || r.files.find((f) => f.kind === 'cfg')?.id || '',
    }));
  };
  useEffect(() => {
    void loadUploads().catch((err) => toastError('Loading uploads failed', err));
    void get<{ files: { name: string }[]; current: string | null }>('presets/list')
      .then((r) => {
        setPresetFiles(r.files.map((f) => f.name));
        patch({ presetsName: r.current ?? r.files[0]?.name ?? '' });
      })
      .catch(() => {});
  }, []);

  const { types, byMode } = targetsByMode(devices.value, selected, groupFilter, type);
  const macs = retryOnly ?? (mode ? byMode[mode] : []);

  const upload = async (kind: Upload['kind'], file: File | undefined) => {
    if (!file) return;
    const form = new FormData();
    form.append('kind', kind);
    form.append('file', file, file.name);
    try {
      const r = await post<{ file: Upload; warnings?: string[] }>('fw/upload', form);
      await loadUploads();
      patch(kind === 'firmware' ? { fwId: r.file.id } : { cfgId: r.file.id });
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
      const r = await post<{ task: Task }>('fw/start', firmwareStartBody(macs, options));
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
      <FirmwareRunView
        t={mine}
        running={running}
        onClose={onClose}
        onRetry={(failed) => (setRetryOnly(failed), setTaskId(null))}
      />
    );
  }
  return (
    <Modal title="Firmware update" onClose={onClose} wide testId="firmware-dialog">
      <h3>Targets</h3>
      <FirmwareTargets
        retryOnly={retryOnly}
        onChooseAgain={() => setRetryOnly(null)}
        mode={mode}
        onMode={setMode}
        type={type}
        onType={setType}
        types={types}
        byMode={byMode}
        groupFilter={groupFilter}
        planned={macs.length}
      />
      <FirmwareOptionsForm
        value={options}
        onChange={patch}
        uploads={uploads}
        presetFiles={presetFiles}
        onUpload={upload}
      />
      <div class="buttons">
        <span class="muted spacer">
          {macs.length
            ? `~${Math.max(1, Math.round((macs.length * 30) / 60))} min for ${macs.length} devices`
            : 'No target devices: choose the targets above.'}
        </span>
        <button type="button" onClick={onClose}>
          Close
        </button>
        <button
          type="button"
          class="go"
          disabled={!macs.length || optionsIncomplete(options) || taskRunning.value}
          onClick={start}
          title={taskRunning.value ? 'Busy: a task is running' : ''}
        >
          Start update
        </button>
      </div>
    </Modal>
  );
}
