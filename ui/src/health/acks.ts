/**
 * Acknowledged alerts, shared by every browser (kept on the host, see ../console.ts): an
 * alert acknowledged on the track laptop stops alarming on the phone too. Keys are added
 * and removed one by one (never the whole list sent back), so two browsers acknowledging
 * different alerts at once do not overwrite each other.
 */
import { computed } from '@preact/signals';
import { changeConsole, consoleSettings } from '../console.ts';

export const acks = computed(() => consoleSettings.value.acknowledged_alerts);

/** The host keeps the newest 1000 acknowledgements, and takes at most that many at once. */
const MAX_AT_ONCE = 1000;

export function acknowledge(keys: readonly string[]): void {
  const have = new Set(acks.value);
  const add = [...new Set(keys)].filter((k) => !have.has(k)).slice(-MAX_AT_ONCE);
  if (add.length === 0) return;
  void changeConsole(
    { acknowledge: add },
    (s) => ({ ...s, acknowledged_alerts: [...s.acknowledged_alerts, ...add] }),
    'Acknowledgement not saved',
  );
}

/** Forgets acknowledgements (their condition cleared, so a recurrence alerts again). */
export function unacknowledge(keys: readonly string[]): void {
  const gone = new Set(keys);
  const drop = acks.value.filter((k) => gone.has(k)).slice(-MAX_AT_ONCE);
  if (drop.length === 0) return;
  const dropped = new Set(drop);
  void changeConsole(
    { unacknowledge: drop },
    (s) => ({ ...s, acknowledged_alerts: s.acknowledged_alerts.filter((k) => !dropped.has(k)) }),
    'Acknowledgements not updated',
  );
}
