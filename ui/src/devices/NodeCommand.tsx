/** Raw node configuration commands for exactly one device (POST /api/config). */
import { useState } from 'preact/hooks';
import { post } from '../api.ts';
import { confirmAction } from '../dialogs/confirm.tsx';
import { toast, toastError } from '../toasts.ts';
import type { Device } from '../types.ts';
import { raceMode } from '../race/race-mode.ts';

interface Command {
  id: string;
  label: string;
  option: number;
  data0: number;
  confirm?: (name: string) => string;
}

const COMMANDS: Command[] = [
  { id: 'ap-on', label: 'Node AP open', option: 0x04, data0: 1 },
  { id: 'ap-off', label: 'Node AP closed', option: 0x04, data0: 0 },
  { id: 'filter-on', label: 'MAC filter on', option: 0x01, data0: 1 },
  {
    id: 'filter-off',
    label: 'MAC filter off',
    option: 0x01,
    data0: 0,
    confirm: (n) => `Turn the MAC filter off on '${n}'? It will then accept commands from any gateway.`,
  },
  { id: 'persist-on', label: 'Filter persistence on', option: 0x03, data0: 1 },
  { id: 'persist-off', label: 'Filter persistence off', option: 0x03, data0: 0 },
  {
    id: 'forget',
    label: 'Forget master (0x80; firmware may ignore it)',
    option: 0x80,
    data0: 0,
    confirm: (n) => `Send "forget master" to '${n}'? It would pair with the next gateway that discovers it.`,
  },
  {
    id: 'reboot',
    label: 'Reboot node',
    option: 0x81,
    data0: 1,
    confirm: (n) => `Reboot '${n}'? It will be offline for a few seconds.`,
  },
];

export function NodeCommand({ device }: { device: Device | undefined }) {
  const [cmd, setCmd] = useState(COMMANDS[0]!.id);
  // Race mode: only the harmless commands (the confirmed ones can take a node off the fleet).
  const commands = raceMode.value ? COMMANDS.filter((c) => !c.confirm) : COMMANDS;
  const send = async () => {
    const c = commands.find((x) => x.id === cmd);
    if (!c || !device) return;
    if (c.confirm) {
      const ok = await confirmAction({
        title: c.label,
        body: c.confirm(device.name),
        confirm: 'Send',
        danger: true,
      });
      if (!ok) return;
    }
    try {
      await post('config', { mac: device.addr, option: c.option, data0: c.data0 });
      toast(`Sent '${c.label}' to ${device.name}`);
    } catch (err) {
      toastError(`${c.label} failed`, err);
    }
  };
  return (
    <span class="node-cmd">
      <label class="inline">
        Node config
        <select value={cmd} onChange={(e) => setCmd(e.currentTarget.value)} aria-label="Node command">
          {commands.map((c) => (
            <option key={c.id} value={c.id}>
              {c.label}
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        onClick={send}
        disabled={!device}
        title={device ? `Send to ${device.name}` : 'Select exactly one device'}
      >
        Send
      </button>
      <span class="muted small-text">{device ? device.name : 'Select exactly one device.'}</span>
    </span>
  );
}
