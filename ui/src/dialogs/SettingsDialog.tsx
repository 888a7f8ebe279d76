/** Browser-side settings (battery thresholds) and the keyboard shortcut list. */
import { useState } from 'preact/hooks';
import { saveThresholds, thresholds } from '../components/battery.ts';
import { shortcutList } from '../keys.ts';
import { toast } from '../toasts.ts';
import { Modal } from './Modal.tsx';

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
