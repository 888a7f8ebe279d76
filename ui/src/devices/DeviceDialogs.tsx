/** Devices-page dialogs: discover, new group, re-sync groups, low battery (control: ControlDialog.tsx). */
import { useState } from 'preact/hooks';
import { post } from '../api.ts';
import { batteryLevel, cellCount } from '../common/battery-cells.ts';
import { formatMac, formatVolts } from '../format.ts';
import { groups, task, taskRunning } from '../store.ts';
import { toast, toastError } from '../toasts.ts';
import type { Device, Task } from '../types.ts';
import { lowBattery, thresholds } from '../common/battery.ts';
import { Modal } from '../dialogs/Modal.tsx';
import { duplicateWarning, emptySameNamed } from '../common/group-names.ts';
import { TaskProgress } from './TaskProgress.tsx';

function useTaskStart() {
  const [id, setId] = useState<number | null>(null);
  const start = async (path: string, body: unknown, what: string): Promise<boolean> => {
    try {
      const r = await post<{ task: Task }>(path, body);
      setId(r.task.id);
      return true;
    } catch (err) {
      toastError(what, err);
      return false;
    }
  };
  const running = id !== null && task.value?.id === id && task.value.state === 'running';
  return { id, start, running };
}

export function DiscoverDialog({ onClose }: { onClose: () => void }) {
  const [discoveryGroup, setDiscoveryGroup] = useState('0');
  const [target, setTarget] = useState('0');
  const [newName, setNewName] = useState('');
  const { id, start, running } = useTaskStart();
  const t = task.value;
  const found =
    id !== null && t?.id === id && t.state === 'done' ? ((t.result as { found?: number }).found ?? 0) : null;
  const submit = (e: Event) => {
    e.preventDefault();
    const body: Record<string, unknown> = {
      discoveryGroup: discoveryGroup === 'all' ? 'all' : Number(discoveryGroup),
    };
    // A new group wins over an explicit target (the host creates it and targets it); an
    // empty group of the same name (an earlier run that found nothing) is reused instead.
    const reuse = newName.trim() ? emptySameNamed(newName) : undefined;
    if (reuse) body.targetGroupId = reuse.id;
    else if (newName.trim()) body.newGroupName = newName.trim();
    else body.targetGroupId = Number(target);
    void start('discover', body, 'Discover failed').then((ok) => ok && setNewName(''));
  };
  const reuse = newName.trim() ? emptySameNamed(newName) : undefined;
  const dup = newName.trim() && !reuse ? duplicateWarning(newName) : null;
  return (
    <Modal title="Discover devices" onClose={onClose} testId="discover-dialog">
      <form onSubmit={submit} class="form">
        <p class="muted">
          Asks nodes to announce themselves (a radio window of a few seconds per pass). New rows appear in the
          table as replies arrive.
        </p>
        <label>
          Discover in
          <select
            value={discoveryGroup}
            onChange={(e) => setDiscoveryGroup(e.currentTarget.value)}
            name="discoveryGroup"
          >
            {groups.value.map((g) => (
              <option key={g.id} value={String(g.id)}>
                {g.id}: {g.name}
                {g.id === 0 ? ' (new nodes)' : ''}
              </option>
            ))}
            <option value="all">All groups (recovery)</option>
          </select>
        </label>
        <label>
          Add discovered to
          <select
            value={target}
            onChange={(e) => setTarget(e.currentTarget.value)}
            disabled={newName.trim() !== ''}
            name="targetGroupId"
          >
            {groups.value.map((g) => (
              <option key={g.id} value={String(g.id)}>
                {g.id}: {g.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          …or a new group
          <input
            name="newGroupName"
            placeholder="e.g. Start Gate"
            maxLength={64}
            value={newName}
            onInput={(e) => setNewName(e.currentTarget.value)}
          />
        </label>
        {reuse && (
          <p class="muted" data-testid="reuse-group">
            The empty group '{reuse.name}' (#{reuse.id}) already exists: discovered nodes go there instead of
            a new group of the same name.
          </p>
        )}
        {dup && (
          <p class="warn-text" role="alert" data-testid="duplicate-name">
            {dup}
          </p>
        )}
        <TaskProgress id={id} />
        {found === 0 && (
          <div class="help">
            <strong>No devices answered.</strong>
            <ul>
              <li>Are the nodes powered and within range?</li>
              <li>
                Nodes paired to another gateway ignore this one: use “Forget master”, then discover again.
              </li>
              <li>Nodes already in a group only answer when you discover in that group.</li>
            </ul>
          </div>
        )}
        <div class="buttons">
          <button type="button" onClick={onClose}>
            Close
          </button>
          <button
            type="submit"
            class="go"
            disabled={running || taskRunning.value}
            title={taskRunning.value ? 'Busy: a task is running' : ''}
          >
            Start
          </button>
        </div>
      </form>
    </Modal>
  );
}

export function NewGroupDialog({ onClose }: { onClose: () => void }) {
  const [name, setName] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      const r = await post<{ id: number }>('groups/create', { name: name.trim() });
      toast(`Created group '${name.trim()}' (#${r.id})`);
      onClose();
    } catch (err) {
      toastError('Create group failed', err);
    }
  };
  return (
    <Modal title="New group" onClose={onClose} testId="new-group-dialog">
      <form onSubmit={submit} class="form">
        <label>
          Name
          <input
            name="name"
            placeholder="e.g. Start Gate"
            maxLength={64}
            autoFocus
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </label>
        {duplicateWarning(name) && (
          <p class="warn-text" role="alert" data-testid="duplicate-name">
            {duplicateWarning(name)}
          </p>
        )}
        <div class="buttons">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="primary" disabled={!name.trim()}>
            Create
          </button>
        </div>
      </form>
    </Modal>
  );
}

export function ResyncDialog({ onClose }: { onClose: () => void }) {
  const [skipOffline, setSkip] = useState(false);
  const { id, start, running } = useTaskStart();
  return (
    <Modal title="Re-sync group config" onClose={onClose} testId="resync-dialog">
      <form
        class="form"
        onSubmit={(e) => {
          e.preventDefault();
          void start('groups/force', { skipOffline }, 'Re-sync failed');
        }}
      >
        <p class="muted">
          Re-sends every device's stored group so the nodes agree with the host. Online nodes answer in about
          0.3 s; each offline node costs about 5 s unless skipped (skipped nodes get their group when they are
          next heard).
        </p>
        <label class="check">
          <input type="checkbox" checked={skipOffline} onChange={(e) => setSkip(e.currentTarget.checked)} />
          Skip offline devices
        </label>
        <TaskProgress id={id} />
        <div class="buttons">
          <button type="button" onClick={onClose}>
            Close
          </button>
          <button type="submit" class="go" disabled={running || taskRunning.value}>
            Re-sync
          </button>
        </div>
      </form>
    </Modal>
  );
}

export { ControlDialog, type ControlTarget } from './ControlDialog.tsx';

export function BatteryDialog({ onClose }: { onClose: () => void }) {
  const t = thresholds.value;
  const locate = async (d: Device) => {
    try {
      await post('devices/indicate', { macs: [d.addr] });
      toast(`Locating ${d.name}…`);
    } catch (err) {
      toastError('Locate failed', err);
    }
  };
  return (
    <Modal title="Low-battery devices" onClose={onClose} testId="battery-dialog">
      <table class="plain">
        <thead>
          <tr>
            <th>Name</th>
            <th>MAC</th>
            <th>Voltage</th>
            <th>Pack</th>
            <th>Warn below</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {lowBattery.value.map((d) => {
            const cells = cellCount(d.voltage_mV);
            return (
              <tr key={d.addr}>
                <td>{d.name}</td>
                <td class="mono">{formatMac(d.full_mac, d.addr)}</td>
                <td class={`lvl-${batteryLevel(d.voltage_mV, t)}`}>{formatVolts(d.voltage_mV)}</td>
                <td>{cells}S</td>
                <td>{(cells * t.warnPerCell).toFixed(1)} V</td>
                <td>
                  <button
                    type="button"
                    class="small"
                    title={`Flash ${d.name}'s LEDs to find it`}
                    onClick={() => locate(d)}
                  >
                    Locate
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </Modal>
  );
}
