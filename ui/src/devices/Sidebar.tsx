/**
 * Group sidebar: All / Unconfigured / user groups with online counts and capabilities
 * (and, with several networks, which networks the members are on).
 */
import { signal } from '@preact/signals';
import { useState } from 'preact/hooks';
import { post } from '../api.ts';
import { confirmAction } from '../dialogs/confirm.tsx';
import { capsSummary } from '../format.ts';
import { devices, groups, statsOf, taskRunning } from '../store.ts';
import { toast, toastError } from '../toasts.ts';
import type { Group } from '../types.ts';
import { duplicateWarning } from '../common/group-names.ts';
import { multiNetwork, networksById } from '../networks/networks-store.ts';
import { NetworkChip } from '../networks/NetworkChip.tsx';

/** With several networks: which networks a group's members are on, and how many on each. */
function GroupNetworks({ counts }: { counts: Record<number, number> }) {
  if (!multiNetwork.value) return null;
  const entries = Object.entries(counts).map(([id, n]) => [Number(id), n] as const);
  if (entries.length === 0) return null;
  const byId = networksById.value;
  return (
    <span class="net-chips" data-testid="group-networks">
      {entries.map(([id, n]) => {
        const name = byId.get(id)?.name ?? `#${id}`;
        return (
          <NetworkChip
            key={id}
            id={id}
            name={name}
            count={n}
            title={`${n} member${n === 1 ? '' : 's'} on ${name}`}
          />
        );
      })}
    </span>
  );
}

/** null = all devices. */
export const groupFilter = signal<number | null>(null);

function GroupRow({ g }: { g: Group }) {
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(g.name);
  const stats = statsOf(g.id);
  const { online, total } = stats;
  const countCls = total === 0 ? '' : online === 0 ? 'bad' : online < total ? 'warn' : 'good';
  const active = groupFilter.value === g.id;
  const rename = async (e: Event) => {
    e.preventDefault();
    const next = name.trim();
    if (!next) return toast('A group needs a name: type one, or press Esc to keep the old one', 'error');
    if (next === g.name) return setEditing(false);
    try {
      await post('groups/rename', { id: g.id, name: next });
      const dup = duplicateWarning(next, g.id);
      toast(
        dup ? `Renamed group #${g.id} to '${next}' — ${dup}` : `Renamed group to '${next}'`,
        dup ? 'error' : 'ok',
      );
      setEditing(false);
    } catch (err) {
      toastError('Rename failed', err);
    }
  };
  const remove = async () => {
    const ok = await confirmAction({
      title: 'Delete group',
      body: `Delete group '${g.name}'? Its ${total} device${total === 1 ? '' : 's'} move to Unconfigured, groups after it shift down by one id, and scenes are renumbered to match.`,
      confirm: 'Delete',
      danger: true,
    });
    if (!ok) return;
    try {
      const r = await post<{ moved_devices: number; renumbered_devices: number; renumbered_scenes: number }>(
        'groups/delete',
        { id: g.id },
      );
      if (groupFilter.value === g.id) groupFilter.value = null;
      toast(
        `Deleted '${g.name}': ${r.moved_devices} moved to Unconfigured, ${r.renumbered_devices} renumbered, ${r.renumbered_scenes} scenes updated`,
      );
    } catch (err) {
      toastError('Delete failed', err);
    }
  };
  if (editing) {
    return (
      <li class="group-row editing">
        <form onSubmit={rename} class="inline-form">
          <input
            value={name}
            aria-label={`New name for ${g.name}`}
            maxLength={64}
            autoFocus
            onInput={(e) => setName(e.currentTarget.value)}
            onKeyDown={(e) => e.key === 'Escape' && (e.stopPropagation(), setEditing(false))}
          />
          <button type="submit" class="small primary">
            Save
          </button>
        </form>
      </li>
    );
  }
  return (
    <li class={`group-row${active ? ' active' : ''}`} data-testid={`group-${g.id}`}>
      <button
        type="button"
        class="group-main"
        onClick={() => (groupFilter.value = g.id)}
        aria-pressed={active}
      >
        {/* The name is one text node (find and copy see it whole); cut at its end when
            it does not fit, with the whole name on hover. The number always shows. */}
        <span class="group-name">
          <span class="gn-text" title={g.name}>
            {g.name}
          </span>
          <span class="muted gn-id">{` #${g.id}`}</span>
        </span>
        <span class="caps muted">{capsSummary(stats.kinds) || 'empty'}</span>
        <GroupNetworks counts={stats.networks} />
      </button>
      <span class={`count ${countCls}`} title={`${online} online of ${total}`}>
        {online} / {total}
      </span>
      {!g.static && (
        <span class="row-tools">
          <button
            type="button"
            class="ghost icon"
            title={`Rename '${g.name}'`}
            aria-label={`Rename group ${g.name}`}
            onClick={() => {
              setName(g.name);
              setEditing(true);
            }}
          >
            ✎
          </button>
          <button
            type="button"
            class="ghost icon danger-text"
            title={taskRunning.value ? 'Busy: a task is running' : `Delete '${g.name}'`}
            aria-label={`Delete group ${g.name}`}
            disabled={taskRunning.value}
            onClick={remove}
          >
            ×
          </button>
        </span>
      )}
    </li>
  );
}

export function Sidebar({ onNewGroup }: { onNewGroup: () => void }) {
  const all = devices.value;
  const online = all.filter((d) => d.online).length;
  return (
    <nav class="sidebar" aria-label="Groups">
      <div class="side-head">
        <h2>Groups</h2>
        <button
          type="button"
          class="ghost icon"
          title="New group"
          aria-label="New group"
          onClick={onNewGroup}
          data-testid="new-group"
        >
          +
        </button>
      </div>
      <ul class="group-list">
        <li class={`group-row${groupFilter.value === null ? ' active' : ''}`}>
          <button
            type="button"
            class="group-main"
            onClick={() => (groupFilter.value = null)}
            aria-pressed={groupFilter.value === null}
          >
            <span class="group-name">
              <span class="gn-text">All devices</span>
            </span>
          </button>
          <span class="count" title={`${online} online of ${all.length}`}>
            {online} / {all.length}
          </span>
        </li>
        {groups.value.map((g) => (
          <GroupRow key={g.id} g={g} />
        ))}
      </ul>
    </nav>
  );
}
