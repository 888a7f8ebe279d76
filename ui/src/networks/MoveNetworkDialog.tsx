/**
 * Move a network to another channel (task `rf_migration`): the target channel, a preview
 * (online devices that will move, offline ones that would stay behind, pinned ones), what
 * to do with offline devices (leave them / refuse to start), then the task's progress with
 * Cancel and its result (moved, left offline, not moved, stranded — with where to scan).
 * Opened from a conflict, the target is the gateway's own settings (move the nodes to it).
 */
import { useEffect, useState } from 'preact/hooks';
import { TaskProgress } from '../devices/TaskProgress.tsx';
import { Modal } from '../dialogs/Modal.tsx';
import { devices, task } from '../store.ts';
import { ChannelPicker, type ChannelChoice } from './ChannelPicker.tsx';
import {
  cancelTask,
  errorText,
  loadPinned,
  startMigration,
  type ChannelPick,
  type Region,
} from './network-api.ts';
import { channelText } from './network-view.ts';
import { networksById } from './networks-store.ts';
import type { RfConfig } from './network-types.ts';

interface MigrationResult {
  to: { channel: string };
  summary: { devices: number; rebound: number; not_moved: number; skipped_offline: number; stranded: number };
  not_moved: string[];
  skipped_offline: string[];
  stranded: string[];
  hint: string | null;
}

export function MoveNetworkDialog({
  networkId,
  target,
  onClose,
}: {
  networkId: number;
  /** Fixed target (the conflict's "move the nodes to the gateway's channel"). */
  target?: RfConfig;
  onClose: () => void;
}) {
  const n = networksById.value.get(networkId);
  const [taskId, setTaskId] = useState<number | null>(null);
  const t = task.value;
  // The move running now (started here, or elsewhere while this dialog opened): its record
  // is written as it starts, so the record alone does not mean "interrupted".
  const moving =
    t?.name === 'rf_migration' && t.state === 'running' && t.meta.network_id === networkId ? t : null;
  // A move left half-done (cancelled, a power cut) is finished to the same channel first.
  const resuming = !target && taskId === null && !moving && n?.migration ? n.migration.to : null;
  const fixed = target ?? resuming ?? undefined;
  const [channel, setChannel] = useState<ChannelChoice>({
    region: (n?.region as Region | null | undefined) ?? 'EU868',
    channel_id: null,
  });
  const [offline, setOffline] = useState<'skip' | 'abort'>('skip');
  const [pinned, setPinned] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    loadPinned(networkId)
      .then((r) => setPinned(r.length))
      .catch(() => setPinned(null));
  }, [networkId]);
  const mine = devices.value.filter((d) => d.network_id === networkId);
  const online = mine.filter((d) => d.online).length;
  const running = taskId !== null && t?.id === taskId && t.state === 'running';
  // Once a move runs or ran, the preview's future tense ("will move", "would stay") is no
  // longer true: the progress and then the result say what happens and happened.
  const started = taskId !== null || moving !== null;
  const result =
    taskId !== null && t?.id === taskId && t.state === 'done' ? (t.result as MigrationResult) : null;
  const to: ChannelPick | null = fixed
    ? { rf: fixed }
    : channel.channel_id !== null
      ? { region: channel.region, channel_id: channel.channel_id }
      : null;
  const start = async (e: Event): Promise<void> => {
    e.preventDefault();
    if (!to) return;
    setError(null);
    try {
      const r = await startMigration(networkId, to, offline);
      setTaskId(r.task.id);
    } catch (err) {
      setError(errorText(err));
    }
  };
  const name = n?.name ?? `network ${networkId}`;
  return (
    <Modal title={`Move ${name} to another channel`} onClose={onClose} testId="network-move">
      <form class="form" onSubmit={start}>
        {!started && (
          <p data-testid="move-intro">
            Now on <strong>{channelText(n?.rf)}</strong>. The host tells every online node its new channel,
            checks that none still answers on the old one, moves the gateway (it restarts) and puts every node
            back into its group. A power cut or crash in the middle resumes at the next start.
          </p>
        )}
        {moving && taskId === null ? (
          <p data-testid="move-target">
            Moving to <strong>{String(moving.meta.to ?? '?')}</strong> now (progress in the status bar).
          </p>
        ) : taskId !== null && t?.id === taskId ? (
          <p data-testid="move-target">
            {t.state === 'running' ? 'Moving to' : 'Moved to'} <strong>{String(t.meta.to ?? '?')}</strong>
          </p>
        ) : fixed ? (
          <p data-testid="move-target">
            {resuming ? 'Finish the interrupted move to' : "To the gateway's settings:"}{' '}
            <strong>{channelText(fixed)}</strong>
          </p>
        ) : (
          taskId === null && <ChannelPicker value={channel} onChange={setChannel} selfId={networkId} />
        )}
        {!started && (
          <dl class="net-preview" data-testid="move-preview">
            <dt>Online</dt>
            <dd>{online} device(s) will move</dd>
            <dt>Offline</dt>
            <dd>{mine.length - online} device(s) cannot be told and would stay on the old channel</dd>
            <dt>Pinned</dt>
            <dd>
              {pinned === null ? '…' : `${pinned} device(s) with master persistence on (they move too)`}
            </dd>
          </dl>
        )}
        {taskId === null && (
          <fieldset>
            <legend>Offline devices</legend>
            <label class="check">
              <input
                type="radio"
                name="offline"
                checked={offline === 'skip'}
                onChange={() => setOffline('skip')}
              />{' '}
              Move without them (they stay behind: scan for them later)
            </label>
            <label class="check">
              <input
                type="radio"
                name="offline"
                checked={offline === 'abort'}
                onChange={() => setOffline('abort')}
              />{' '}
              Do not start while any device is offline
            </label>
          </fieldset>
        )}
        {error && (
          <p class="error-text" role="alert" data-testid="move-error">
            {error}
          </p>
        )}
        <TaskProgress id={taskId} />
        {result && (
          <div data-testid="move-result">
            <p>
              {result.summary.rebound} of {result.summary.devices} device(s) back in their groups on{' '}
              {result.to.channel}.
            </p>
            {result.skipped_offline.length > 0 && (
              <p class="warn-text">Left behind (offline): {result.skipped_offline.join(', ')}</p>
            )}
            {result.not_moved.length > 0 && (
              <p class="warn-text">Still on the old channel: {result.not_moved.join(', ')}</p>
            )}
            {result.stranded.length > 0 && (
              <p class="warn-text">Not back yet: {result.stranded.join(', ')}</p>
            )}
            {result.hint && <p class="muted">{result.hint}</p>}
          </div>
        )}
        <div class="buttons">
          {running ? (
            <button
              type="button"
              class="danger"
              disabled={t?.cancel_requested === true}
              onClick={() => void cancelTask().catch((err) => setError(errorText(err)))}
            >
              {t?.cancel_requested ? 'Cancelling…' : 'Cancel the move'}
            </button>
          ) : (
            <button type="button" onClick={onClose}>
              Close
            </button>
          )}
          {taskId === null && (
            <button type="submit" class="primary" disabled={!to || moving !== null}>
              Move
            </button>
          )}
        </div>
      </form>
    </Modal>
  );
}
