/** Browser-side settings (battery thresholds) and the keyboard shortcut list. */
import { useState } from 'preact/hooks';
import { saveThresholds, thresholds } from '../components/battery.ts';
import { shortcutList } from '../keys.ts';
import { toast } from '../toasts.ts';
import { Modal } from './Modal.tsx';

export function SettingsDialog({ onClose }: { onClose: () => void }) {
  const [cell, setCell] = useState(thresholds.value.warnPerCell);
  const submit = (e: Event) => {
    e.preventDefault();
    saveThresholds({ warnPerCell: cell });
    toast('Settings saved in this browser');
    onClose();
  };
  return (
    <Modal title="Settings" onClose={onClose}>
      <form class="form" onSubmit={submit}>
        <h3>Battery thresholds</h3>
        <p class="muted">
          The pack size is judged from the voltage (1S, 2S, 3S, 4S or 6S: the smallest pack whose cells would
          not read above 4.35 V), and the warning is per cell: 1S under {cell.toFixed(2)} V, 2S under{' '}
          {(2 * cell).toFixed(1)} V, 6S under {(6 * cell).toFixed(1)} V. Offline devices are not alerted
          (their last reading is stale). Stored in this browser.
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
