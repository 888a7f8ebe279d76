/**
 * New network: a name and its channel (region + channel from the firmware's table, the
 * channels other networks use greyed). The network starts without a gateway: assign one
 * from "Gateways in no network". The host's refusal is shown as it words it.
 */
import { useState } from 'preact/hooks';
import { Modal } from '../dialogs/Modal.tsx';
import { toast } from '../toasts.ts';
import { ChannelPicker, type ChannelChoice } from './ChannelPicker.tsx';
import { createNetwork, errorText } from './network-api.ts';

export function NewNetworkDialog({ onClose }: { onClose: () => void }) {
  const [name, setName] = useState('');
  const [channel, setChannel] = useState<ChannelChoice>({ region: 'EU868', channel_id: null });
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    if (channel.channel_id === null) return;
    setBusy(true);
    setError(null);
    try {
      const r = await createNetwork({
        name: name.trim(),
        region: channel.region,
        channel_id: channel.channel_id,
      });
      toast(`Network '${r.network.name}' created`);
      onClose();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal title="New network" onClose={onClose} testId="network-create">
      <form class="form" onSubmit={submit}>
        <label>
          Name
          <input
            name="name"
            maxLength={48}
            placeholder="e.g. Track B"
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </label>
        <ChannelPicker value={channel} onChange={setChannel} />
        <p class="muted">
          The network starts without a gateway; assign one under “Gateways in no network” once it is plugged
          in.
        </p>
        {error && (
          <p class="error-text" role="alert" data-testid="network-error">
            {error}
          </p>
        )}
        <div class="buttons">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button
            type="submit"
            class="primary"
            disabled={busy || !name.trim() || channel.channel_id === null}
          >
            Create
          </button>
        </div>
      </form>
    </Modal>
  );
}
