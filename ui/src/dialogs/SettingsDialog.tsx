/**
 * Fleet settings (battery thresholds, shared by every browser), backup and restore, the
 * entries to the Networks dialog and the import from RaceLink (their own dialogs), and the
 * keyboard shortcut list.
 */
import { useState } from 'preact/hooks';
import { apiUrl, post } from '../api.ts';
import { saveThresholds, thresholds } from '../common/battery.ts';
import { shortcutList } from '../keys.ts';
import { health } from '../store.ts';
import { toast, toastError } from '../toasts.ts';
import { confirmAction } from './confirm.tsx';
import { Modal } from './Modal.tsx';
import { RaceLinkImportDialog } from './RaceLinkImportDialog.tsx';
import { openNetworks } from '../networks/networks-store.ts';
import { CommandSourcesDialog } from '../owners/CommandSourcesDialog.tsx';

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

/** Ends this browser's session; the login page follows. */
async function logOut(): Promise<void> {
  try {
    await post('logout', {});
    location.href = apiUrl('login');
  } catch (err) {
    toastError('Log out failed', err);
  }
}

export function SettingsDialog({ onClose }: { onClose: () => void }) {
  const [cell, setCell] = useState(thresholds.value.warnPerCell);
  const [importing, setImporting] = useState(false);
  const [sources, setSources] = useState(false);
  if (importing) return <RaceLinkImportDialog onClose={() => setImporting(false)} />;
  if (sources) return <CommandSourcesDialog onClose={() => setSources(false)} />;
  const submit = (e: Event) => {
    e.preventDefault();
    onClose();
    // Shown at once; a refusal rolls it back with a red toast (console.ts).
    void saveThresholds({ warnPerCell: cell }).then((ok) => {
      if (ok) toast('Battery warning saved for every browser');
    });
  };
  return (
    <Modal title="Settings" onClose={onClose} testId="settings-dialog">
      <form class="form" onSubmit={submit}>
        <h3>Battery thresholds</h3>
        <p class="muted">
          The pack size is judged from the voltage (1S, 2S, 3S, 4S or 6S: the smallest pack whose cells would
          not read above 4.35 V), and the warning is per cell: 1S under {cell.toFixed(2)} V, 2S under{' '}
          {(2 * cell).toFixed(1)} V, 6S under {(6 * cell).toFixed(1)} V. Offline devices are not alerted
          (their last reading is stale). One setting for the fleet: every browser uses it.
        </p>
        <label>
          Warn below (V per cell)
          <input
            type="number"
            name="warnPerCell"
            step="0.05"
            min={3}
            max={4}
            value={cell}
            onInput={(e) => setCell(Number(e.currentTarget.value))}
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
        <h3>Networks</h3>
        <p class="muted">
          The gateways this host drives, the network (radio channel and devices) each one serves, and any
          gateway that belongs to no network.
        </p>
        <div class="buttons start">
          <button
            type="button"
            data-testid="networks-open"
            onClick={() => {
              onClose();
              openNetworks();
            }}
          >
            Networks…
          </button>
        </div>
        <h3>Command sources</h3>
        <p class="muted">
          Who may send light commands besides this console (RotorHazard, FPVTrackside, a live desk, a show
          script), at which priority, and how many of their commands were refused.
        </p>
        <div class="buttons start">
          <button type="button" data-testid="command-sources-open" onClick={() => setSources(true)}>
            Command sources…
          </button>
        </div>
        <h3>Import from RaceLink</h3>
        <p class="muted">
          Moving from the original RaceLink host? Bring its devices, groups, presets, scenes and LED preset
          files over in one step; you see the report before anything changes.
        </p>
        <div class="buttons start">
          <button type="button" data-testid="racelink-import-open" onClick={() => setImporting(true)}>
            Import from RaceLink…
          </button>
        </div>
        {health.value?.auth && (
          <>
            <h3>Session</h3>
            <p class="muted">
              This host is password-protected. Log out ends this browser's session on the host.
            </p>
            <div class="buttons start">
              <button type="button" data-testid="logout" onClick={() => void logOut()}>
                Log out
              </button>
            </div>
          </>
        )}
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
