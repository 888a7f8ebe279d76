/**
 * A firmware update in progress or finished: the time header, the result summary, the
 * per-device rows, cancel, and "retry failed devices". Built from the task snapshot alone.
 */
import { useEffect, useState } from 'preact/hooks';
import { post } from '../api.ts';
import { formatElapsed } from '../format.ts';
import { taskReceivedAt } from '../store.ts';
import { toastError } from '../toasts.ts';
import type { Task } from '../types.ts';
import { confirmAction } from '../dialogs/confirm.tsx';
import { FirmwareDeviceRows, type FirmwareTaskMeta } from './FirmwareDeviceRows.tsx';
import { Modal } from '../dialogs/Modal.tsx';

export function FirmwareRunView({
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
  const m = t.meta as FirmwareTaskMeta;
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
      <FirmwareDeviceRows m={m} running={running} />
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
