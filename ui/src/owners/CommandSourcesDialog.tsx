/**
 * ⚙ Settings → Command sources: each source that may send light commands, its priority (blank:
 * its class's) and whether it may at all, with how many of its commands were accepted, refused
 * and rate-limited. Saved on the host (on disk before it answers); the operator and Blackout
 * cannot be switched off.
 */
import { useEffect, useState } from 'preact/hooks';
import { Modal } from '../dialogs/Modal.tsx';
import { toast, toastError } from '../toasts.ts';
import { loadOwners, owners, saveSources, type SourcePatch } from './owners-store.ts';
import './owners.css';

const ALWAYS_ON = new Set(['ui', 'blackout']);

export function CommandSourcesDialog({ onClose }: { onClose: () => void }) {
  const [edits, setEdits] = useState<SourcePatch['sources']>({});
  const [saving, setSaving] = useState(false);
  useEffect(() => {
    void loadOwners().catch((err: unknown) => toastError('Loading command sources failed', err));
  }, []);
  const sources = owners.value?.sources ?? [];
  const edit = (id: string, v: { enabled?: boolean; priority?: number | null }) =>
    setEdits((e) => ({ ...e, [id]: { ...e[id], ...v } }));
  const submit = async (e: Event) => {
    e.preventDefault();
    if (Object.keys(edits).length === 0) return onClose();
    setSaving(true);
    try {
      await saveSources({ sources: edits });
      toast('Command sources saved');
      onClose();
    } catch (err) {
      toastError('Saving command sources failed', err);
    } finally {
      setSaving(false);
    }
  };
  return (
    <Modal title="Command sources" onClose={onClose} testId="command-sources-dialog">
      <form class="form" onSubmit={(e) => void submit(e)}>
        <p class="muted">
          Every light command comes from a source. A higher priority wins a target; a source holding a target
          keeps lower ones off it until it lets go (a live desk: after{' '}
          {((owners.value?.live_timeout_ms ?? 3000) / 1000).toFixed(1)} s of silence). Blackout (100) always
          goes through. Take over holds a target at {owners.value?.take_over_priority ?? 85}.
        </p>
        <table class="sources-table">
          <thead>
            <tr>
              <th>Source</th>
              <th>On</th>
              <th>Priority</th>
              <th title="accepted / refused / rate-limited">Commands</th>
            </tr>
          </thead>
          <tbody>
            {sources.map((s) => {
              const e = edits[s.id] ?? {};
              const enabled = e.enabled ?? s.enabled;
              const prio = e.priority !== undefined ? e.priority : s.priority_override;
              return (
                <tr key={s.id} data-testid={`source-${s.id}`}>
                  <td>
                    {s.label}
                    <div class="muted">
                      {s.id} · {s.source_class}
                    </div>
                  </td>
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`${s.label} on`}
                      checked={enabled}
                      disabled={ALWAYS_ON.has(s.id)}
                      onChange={(ev) => edit(s.id, { enabled: ev.currentTarget.checked })}
                    />
                  </td>
                  <td>
                    <input
                      type="number"
                      min={1}
                      max={99}
                      aria-label={`${s.label} priority`}
                      placeholder={String(s.priority)}
                      disabled={s.id === 'blackout'}
                      value={prio ?? ''}
                      onInput={(ev) => {
                        const v = ev.currentTarget.value.trim();
                        edit(s.id, { priority: v === '' ? null : Number(v) });
                      }}
                    />
                  </td>
                  <td class="muted">
                    {s.counts.accepted} / {s.counts.refused} / {s.counts.rate_limited}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        <div class="buttons">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="primary" disabled={saving}>
            {saving ? 'Saving…' : 'Save'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
