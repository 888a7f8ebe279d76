/** Browser-side settings (battery thresholds), backup and restore, and the keyboard shortcut list. */
import { useState } from 'preact/hooks';
import { apiUrl, post } from '../api.ts';
import { saveThresholds, thresholds } from '../components/battery.ts';
import { shortcutList } from '../keys.ts';
import { toast, toastError } from '../toasts.ts';
import { confirmAction } from './confirm.tsx';
import { Modal } from './Modal.tsx';

/** Restores a backup file chosen by the operator (after a confirmation). */
async function restoreFrom(file: File): Promise<void> {
  let bundle: unknown;
  try {
    bundle = JSON.parse(await file.text());
  } catch {
    toast(`${file.name} is not a Lightnet backup (not JSON)`, 'error');
    return;
  }
  const ok = await confirmAction({
    title: 'Restore backup',
    body: `Replace devices, groups, presets and scenes with ${file.name}? The current state is kept as a backup file in the data directory.`,
    confirm: 'Restore',
    danger: true,
  });
  if (!ok) return;
  try {
    const r = await post<{ devices: number; groups: number }>('restore', bundle);
    toast(`Restored: ${r.devices} devices, ${r.groups} groups`);
  } catch (err) {
    toastError('Restore failed', err);
  }
}

export function SettingsDialog({ onClose }: { onClose: () => void }) {
  const [w2, setW2] = useState(thresholds.value.warn2s);
  const [w6, setW6] = useState(thresholds.value.warn6s);
  const submit = (e: Event) => {
    e.preventDefault();
    saveThresholds({ warn2s: w2, warn6s: w6 });
    toast('Settings saved in this browser');
    onClose();
  };
  return (
    <Modal title="Settings" onClose={onClose}>
      <form class="form" onSubmit={submit}>
        <h3>Battery thresholds</h3>
        <p class="muted">
          A device reporting under 12 V is treated as a 2-cell pack, otherwise as 6-cell. Stored in this
          browser.
        </p>
        <label>
          2S warn below (V)
          <input
            type="number"
            step="0.1"
            min={5}
            max={9}
            value={w2}
            onInput={(e) => setW2(Number(e.currentTarget.value))}
          />
        </label>
        <label>
          6S warn below (V)
          <input
            type="number"
            step="0.1"
            min={15}
            max={26}
            value={w6}
            onInput={(e) => setW6(Number(e.currentTarget.value))}
          />
        </label>
        <h3>Backup and restore</h3>
        <p class="muted">
          One file with devices, groups, presets, scenes, LED preset files and the firmware list — to move a
          setup to another laptop.
        </p>
        <div class="buttons start">
          <a class="button" href={apiUrl('api/backup')} download data-testid="backup-download">
            Download backup
          </a>
          <a class="button" href={apiUrl('api/backup?firmware=1')} download>
            … with firmware files
          </a>
          <label class="button">
            Restore from file…
            <input
              type="file"
              accept="application/json,.json"
              hidden
              data-testid="backup-restore"
              onChange={(e) => {
                const f = e.currentTarget.files?.[0];
                e.currentTarget.value = '';
                if (f) void restoreFrom(f);
              }}
            />
          </label>
        </div>
        <h3>Keyboard</h3>
        <ul class="keys">
          {shortcutList().map((k) => (
            <li key={k.key}>
              <kbd>{k.key}</kbd> {k.label}
            </li>
          ))}
          <li>
            <kbd>Esc</kbd> close a dialog
          </li>
          <li>
            <kbd>Shift</kbd>+click select a range of rows
          </li>
          <li>
            <kbd>Ctrl</kbd>+<kbd>S</kbd> save the scene, <kbd>Ctrl</kbd>+<kbd>Enter</kbd> run it (Scenes page)
          </li>
        </ul>
        <div class="buttons">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="primary">
            Save
          </button>
        </div>
      </form>
    </Modal>
  );
}
