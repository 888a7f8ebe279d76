/** The Devices page: group sidebar, toolbars and the device table. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { post } from '../api.ts';
import { confirmAction } from '../dialogs/confirm.tsx';
import type { ControlTarget } from './ControlDialog.tsx';
import { devices, groups, groupsById, taskRunning } from '../store.ts';
import { toast, toastError } from '../toasts.ts';
import type { Task } from '../types.ts';
import { DeviceTable, openOptions, search, selection, visibleDevices } from './DeviceTable.tsx';
import { groupFilter, Sidebar } from './Sidebar.tsx';
import { NodeCommand } from './NodeCommand.tsx';
import { ColumnsMenu } from './ColumnsMenu.tsx';
import { NetworkFilter } from './NetworkFilter.tsx';
import { downloadCsv, fleetCsv } from '../health/fleet-csv.ts';
import { loadLinks } from '../health/data.ts';
import { thresholds } from '../common/battery.ts';
import { warnPerCellOf } from '../common/battery-cells.ts';
import { registerShortcut } from '../keys.ts';
import { raceMode } from '../race/race-mode.ts';
import { lazy } from '../common/lazy.ts';
import { forgetDevices } from './forget.ts';
import { ScrollCue } from '../common/ScrollCue.tsx';

// The dialogs are chunks of their own (common/lazy.ts): the first screen is the table.
const DiscoverDialog = lazy(() => import('./DeviceDialogs.tsx').then((m) => m.DiscoverDialog));
const NewGroupDialog = lazy(() => import('./DeviceDialogs.tsx').then((m) => m.NewGroupDialog));
const ResyncDialog = lazy(() => import('./DeviceDialogs.tsx').then((m) => m.ResyncDialog));
const ControlDialog = lazy(() => import('./ControlDialog.tsx').then((m) => m.ControlDialog));
const DeviceOptionsDialog = lazy(() =>
  import('./DeviceOptionsDialog.tsx').then((m) => m.DeviceOptionsDialog),
);
const FirmwareDialog = lazy(() => import('./FirmwareDialog.tsx').then((m) => m.FirmwareDialog));
const LedPresetsDialog = lazy(() => import('./LedPresetsDialog.tsx').then((m) => m.LedPresetsDialog));

type DialogName = 'discover' | 'newGroup' | 'resync' | 'firmware' | 'ledPresets' | null;

async function startTask(path: string, body: unknown, what: string): Promise<Task | null> {
  try {
    const r = await post<{ task: Task }>(path, body);
    return r.task;
  } catch (err) {
    toastError(what, err);
    return null;
  }
}

export function statusAll(): void {
  void startTask('status', {}, 'Get status failed');
}

/** The `g` key: a fleet poll occupies the radio for a while, so a stray key asks first. */
async function confirmStatusAll(): Promise<void> {
  if (taskRunning.value) return;
  const n = devices.value.length;
  const ok = await confirmAction({
    title: 'Get status of all devices',
    body: `Poll all ${n} device${n === 1 ? '' : 's'} now? The radio is busy until every one answered or timed out (scenes and Blackout still go first).`,
    confirm: 'Poll all',
  });
  if (ok) statusAll();
}

export function DevicesPage() {
  const [dialog, setDialog] = useState<DialogName>(null);
  const [control, setControl] = useState<ControlTarget | null>(null);
  const [moveTo, setMoveTo] = useState<string>('');
  const [optionsFor, setOptionsFor] = useState<string | null>(null);
  useEffect(() => {
    openOptions.value = (d) => setOptionsFor(d.addr);
    return () => (openOptions.value = null);
  }, []);
  const searchRef = useRef<HTMLInputElement>(null);
  const busy = taskRunning.value;
  // Race mode hides maintenance actions that could take nodes down mid-race.
  const race = raceMode.value;
  const busyTitle = busy ? 'Busy: a task is running' : '';
  const existing = new Set(devices.value.map((d) => d.addr));
  const selected = [...selection.value].filter((a) => existing.has(a));
  const rows = visibleDevices();
  const gf = groupFilter.value;
  const currentGroup = gf === null ? null : groupsById.value.get(gf);
  const one = selected.length === 1 ? devices.value.find((d) => d.addr === selected[0]) : undefined;
  const exportCsv = async (): Promise<void> => {
    // Failed exchanges come from the link summary: fresh, whether or not its column shows.
    await loadLinks().catch((err) =>
      toastError('Loading link summary failed (failed_exchanges left at 0)', err),
    );
    const name = (id: number): string =>
      id === 0 ? 'Unconfigured' : (groupsById.value.get(id)?.name ?? `#${id}`);
    downloadCsv(fleetCsv(rows, name, warnPerCellOf(thresholds.value)), 'lightnet-devices');
  };

  useEffect(() => {
    const offs = [
      registerShortcut('/', () => searchRef.current?.focus(), 'Search devices'),
      registerShortcut('g', () => void confirmStatusAll(), 'Get status (all), after a confirmation'),
    ];
    return () => offs.forEach((off) => off());
  }, []);
  useEffect(() => registerShortcut('l', () => void locate(), 'Locate the selected devices'));

  const locate = async () => {
    if (!selected.length) return;
    try {
      const r = await post<{ count: number }>('devices/indicate', { macs: selected });
      toast(`Locating ${r.count} device${r.count === 1 ? '' : 's'}…`);
    } catch (err) {
      toastError('Locate failed', err);
    }
  };
  const move = async () => {
    const gid = Number(moveTo);
    const g = groupsById.value.get(gid);
    if (!g || !selected.length) return;
    const ok = await confirmAction({
      title: 'Move devices',
      body: `Move ${selected.length} device${selected.length === 1 ? '' : 's'} to '${g.name}'? Each online device gets a group-change packet and must acknowledge it (it strobes teal); offline devices get it when they are next heard.`,
      confirm: 'Move',
    });
    if (ok) await startTask('devices/update-meta', { macs: selected, groupId: gid }, 'Move failed');
  };
  const save = async () => {
    try {
      await post('save');
      toast('Saved');
    } catch (err) {
      toastError('Save failed', err);
    }
  };
  const reload = async () => {
    const ok = await confirmAction({
      title: 'Reload from disk',
      body: "Reload the host's state from disk? Changes not yet written are lost.",
      confirm: 'Reload',
      danger: true,
    });
    if (!ok) return;
    try {
      await post('reload');
      toast('Reloaded state from disk');
    } catch (err) {
      toastError('Reload failed', err);
    }
  };

  return (
    <div class="work">
      <Sidebar onNewGroup={() => setDialog('newGroup')} />
      <main class="main" id="main">
        <div class="title-row">
          <h1>{currentGroup ? currentGroup.name : 'All devices'}</h1>
          <span class="muted">
            {rows.length} shown · {rows.filter((d) => d.online).length} online
          </span>
          <input
            ref={searchRef}
            type="search"
            class="search"
            placeholder="Search name, MAC, type, group  ( / )"
            aria-label="Search devices"
            value={search.value}
            onInput={(e) => (search.value = e.currentTarget.value)}
          />
          <NetworkFilter />
          <ColumnsMenu />
          <button
            type="button"
            onClick={() => void exportCsv()}
            disabled={rows.length === 0}
            title="Download the devices shown as CSV, with every health field (signal both ways, battery per cell, failed exchanges, config)"
          >
            Export CSV
          </button>
        </div>
        <div class="toolbar" role="toolbar" aria-label="Device actions">
          <button
            type="button"
            class="go"
            onClick={() => setDialog('discover')}
            disabled={busy}
            title={busyTitle || 'Find new nodes'}
          >
            Discover…
          </button>
          <span class="btn-group">
            <button
              type="button"
              onClick={statusAll}
              disabled={busy}
              title={busyTitle || 'Poll every device (g)'}
            >
              Status: all
            </button>
            <button
              type="button"
              onClick={() => void startTask('status', { selection: selected }, 'Get status failed')}
              disabled={busy || !selected.length}
              title={busyTitle || 'Poll the ticked devices'}
            >
              selection
            </button>
            <button
              type="button"
              onClick={() => gf !== null && void startTask('status', { groupId: gf }, 'Get status failed')}
              disabled={busy || gf === null}
              title={
                busyTitle ||
                (gf === null ? 'Pick a group in the sidebar' : `Poll group '${currentGroup?.name}'`)
              }
            >
              group
            </button>
          </span>
          <button
            type="button"
            onClick={() =>
              setControl(
                selected.length
                  ? {
                      macs: selected,
                      label: selected.length === 1 ? (one?.name ?? '1 device') : `${selected.length} devices`,
                    }
                  : {
                      groupId: gf ?? 255,
                      label: currentGroup ? `group '${currentGroup.name}'` : 'all devices (broadcast)',
                    },
              )
            }
            title="Preset, brightness and flags for the selection (or the current group)"
          >
            Control…
          </button>
          <button
            type="button"
            onClick={locate}
            disabled={!selected.length}
            title="Flash the selected devices' LEDs (l)"
          >
            Locate
          </button>
          <button
            type="button"
            onClick={() => setDialog('resync')}
            disabled={busy}
            title={busyTitle || 'Re-send every stored group to the nodes'}
          >
            Re-sync groups…
          </button>
          <button
            type="button"
            onClick={() =>
              void startTask(
                'devices/restore-groups',
                selected.length ? { selection: selected } : gf !== null && gf !== 0 ? { groupId: gf } : {},
                'Restore groups failed',
              )
            }
            disabled={busy}
            data-testid="restore-groups"
            title={
              busyTitle ||
              `The field was power-cycled: put ${
                selected.length
                  ? `the ${selected.length} ticked device${selected.length === 1 ? '' : 's'}`
                  : gf !== null && gf !== 0
                    ? `group '${currentGroup?.name}'`
                    : 'every known device'
              } back into ${selected.length === 1 ? 'its' : 'their'} stored group (SET_GROUP, retried until each answers)`
            }
          >
            Restore groups
          </button>
          {!race && (
            <button
              type="button"
              onClick={() => setDialog('firmware')}
              title="Over-the-air firmware, preset and config updates"
            >
              Firmware…
            </button>
          )}
          <button
            type="button"
            onClick={() => setDialog('ledPresets')}
            title="LED preset files: upload, choose the active one, download from a node"
          >
            LED presets…
          </button>
          <span class="spacer" />
          <button
            type="button"
            onClick={save}
            title="Write the state to disk now (it is also saved automatically)"
          >
            Save
          </button>
          {!race && (
            <button
              type="button"
              onClick={reload}
              disabled={busy}
              title={busyTitle || 'Replace the in-memory state with the file on disk'}
            >
              Reload
            </button>
          )}
          <ScrollCue label="device actions" />
        </div>
        <div class="toolbar" role="toolbar" aria-label="Selection actions">
          <span class="muted" data-testid="selected-count">
            {selected.length} selected
          </span>
          <label class="inline">
            Move to
            <select
              value={moveTo}
              onChange={(e) => setMoveTo(e.currentTarget.value)}
              aria-label="Target group"
            >
              <option value="">group…</option>
              {groups.value.map((g) => (
                <option key={g.id} value={String(g.id)}>
                  {g.id}: {g.name}
                </option>
              ))}
            </select>
          </label>
          <button
            type="button"
            onClick={move}
            disabled={busy || !selected.length || moveTo === ''}
            title={busyTitle}
          >
            Move
          </button>
          {!race && (
            <button
              type="button"
              class="danger"
              data-testid="forget-devices"
              onClick={() =>
                void forgetDevices(selected).then((done) => {
                  if (done) selection.value = new Set();
                })
              }
              disabled={busy || !selected.length}
              title={
                busyTitle ||
                (selected.length
                  ? `Remove the ${selected.length} ticked device${selected.length === 1 ? '' : 's'} from the list (asks first)`
                  : 'Tick the devices to forget')
              }
            >
              Forget…
            </button>
          )}
          {selected.length > 0 && (
            <button type="button" class="ghost" onClick={() => (selection.value = new Set())}>
              Clear selection
            </button>
          )}
          <NodeCommand device={one} />
          <ScrollCue label="selection actions" />
        </div>
        <DeviceTable rows={rows} />
      </main>
      {dialog === 'discover' && <DiscoverDialog onClose={() => setDialog(null)} />}
      {dialog === 'newGroup' && <NewGroupDialog onClose={() => setDialog(null)} />}
      {dialog === 'resync' && <ResyncDialog onClose={() => setDialog(null)} />}
      {dialog === 'firmware' && (
        <FirmwareDialog selected={selected} groupFilter={gf} onClose={() => setDialog(null)} />
      )}
      {dialog === 'ledPresets' && <LedPresetsDialog selected={selected} onClose={() => setDialog(null)} />}
      {optionsFor && <DeviceOptionsDialog addr={optionsFor} onClose={() => setOptionsFor(null)} />}
      {control && <ControlDialog target={control} onClose={() => setControl(null)} />}
    </div>
  );
}
