/**
 * The groups of a `{kind:'groups'}` target: the chosen groups as removable chips, a
 * quick "+ group" select for the common one-group case, and "Pick multiple…", a dialog
 * with a filter and batch buttons for long group lists. Ids the host no longer knows
 * (a deleted group, group 0 after a renumbering) stay visible so they can be removed.
 */
import { useState } from 'preact/hooks';
import { Modal } from '../dialogs/Modal.tsx';
import { devices, groups, statsOf } from '../store.ts';
import type { Group } from '../types.ts';

export interface GroupPickerProps {
  selected: number[];
  onChange: (ids: number[]) => void;
  /** Groups on offer (already limited to a container's groups where that applies). */
  choices: Group[];
  /** Most groups the target may hold (64 for an offset group's container). */
  max?: number;
  /** Capability the action needs: groups without a capable device are marked. */
  needCap?: string;
  /** Where the choices come from, for the empty text ("in the container"). */
  scope?: string;
}

const sorted = (ids: Iterable<number>): number[] => [...new Set(ids)].sort((a, b) => a - b);

export function GroupPicker({ selected, onChange, choices, max, needCap, scope }: GroupPickerProps) {
  const [picking, setPicking] = useState(false);
  const byId = new Map(groups.value.map((g) => [g.id, g]));
  const capable = (id: number) => !needCap || (statsOf(id).caps[needCap] ?? 0) > 0;
  const addable = choices.filter((g) => !selected.includes(g.id));
  const full = max !== undefined && selected.length >= max;
  const deviceCount = devices.value.filter((d) => selected.includes(d.groupId)).length;
  // The runner sends a list covering every group that has devices as one broadcast.
  const withDevices = [...new Set(devices.value.map((d) => d.groupId))];
  const coversAll = withDevices.length > 1 && withDevices.every((g) => selected.includes(g));
  return (
    <div class="group-picker" data-testid="group-picker">
      <div class="chips" role="list" aria-label="Chosen groups">
        {selected.map((id) => {
          const g = byId.get(id);
          const inScope = choices.some((c) => c.id === id);
          const cls = !g || !inScope ? ' unknown' : capable(id) ? '' : ' incapable';
          const why = !g
            ? 'No such group on the host (deleted or renumbered)'
            : !inScope
              ? `Not one of the container's groups`
              : capable(id)
                ? `${statsOf(id).total} devices`
                : `No ${needCap} device in '${g.name}'`;
          return (
            <span role="listitem" class={`chip-check on${cls}`} key={id} title={why}>
              {g ? g.name : 'unknown'} <span class="muted">#{id}</span>
              <button
                type="button"
                class="chip-x"
                aria-label={`Remove group ${g?.name ?? id}`}
                onClick={() => onChange(selected.filter((x) => x !== id))}
              >
                ×
              </button>
            </span>
          );
        })}
        {selected.length === 0 && <span class="error-text small-text">Choose at least one group.</span>}
        <select
          aria-label="Add group"
          value=""
          disabled={full || addable.length === 0}
          onChange={(e) => {
            const id = Number(e.currentTarget.value);
            if (Number.isInteger(id)) onChange(sorted([...selected, id]));
            e.currentTarget.value = '';
          }}
        >
          <option value="">
            {choices.length === 0 ? `No groups${scope ? ` ${scope}` : ''} yet` : '+ group…'}
          </option>
          {addable.map((g) => (
            <option key={g.id} value={g.id}>
              {g.name} #{g.id}
              {capable(g.id) ? '' : ` (no ${needCap})`}
            </option>
          ))}
        </select>
        <button type="button" class="small" disabled={choices.length === 0} onClick={() => setPicking(true)}>
          Pick multiple…
        </button>
      </div>
      <span class="muted small-text" data-testid="group-summary">
        {selected.length} group{selected.length === 1 ? '' : 's'} · {deviceCount} device
        {deviceCount === 1 ? '' : 's'}
        {max !== undefined ? ` · max ${max}` : ''}
        {coversAll && ' · covers every group with devices: sent as one broadcast packet'}
      </span>
      {picking && (
        <PickDialog
          initial={selected}
          choices={choices}
          max={max}
          capable={capable}
          needCap={needCap}
          onClose={() => setPicking(false)}
          onApply={(ids) => {
            setPicking(false);
            onChange(ids);
          }}
        />
      )}
    </div>
  );
}

function PickDialog({
  initial,
  choices,
  max,
  capable,
  needCap,
  onClose,
  onApply,
}: {
  initial: number[];
  choices: Group[];
  max?: number;
  capable: (id: number) => boolean;
  needCap?: string;
  onClose: () => void;
  onApply: (ids: number[]) => void;
}) {
  const [chosen, setChosen] = useState(() => new Set(initial));
  const [filter, setFilter] = useState('');
  const q = filter.trim().toLowerCase();
  const hits = choices.filter((g) => !q || g.name.toLowerCase().includes(q) || String(g.id) === q);
  const batch = (fn: (on: boolean) => boolean) =>
    setChosen((c) => {
      const next = new Set(c);
      for (const g of hits) {
        if (fn(next.has(g.id))) next.add(g.id);
        else next.delete(g.id);
      }
      return next;
    });
  // Ids outside the choices (unknown groups) are kept unless unticked in the chips.
  const ids = sorted(chosen);
  const over = max !== undefined && ids.length > max;
  return (
    <Modal
      title="Pick groups"
      onClose={onClose}
      testId="group-pick"
      footer={
        <div class="row between">
          <span class={over ? 'error-text' : 'muted'} data-testid="pick-count">
            {ids.length} selected{max !== undefined ? ` (max ${max})` : ''}
          </span>
          <span class="buttons">
            <button type="button" onClick={onClose}>
              Cancel
            </button>
            <button
              type="button"
              class="primary"
              disabled={ids.length === 0 || over}
              onClick={() => onApply(ids)}
            >
              Apply
            </button>
          </span>
        </div>
      }
    >
      <input
        class="pick-filter"
        type="search"
        aria-label="Filter groups"
        placeholder="Filter by name or id"
        value={filter}
        onInput={(e) => setFilter(e.currentTarget.value)}
      />
      <div class="row pick-batch">
        <button type="button" class="small" onClick={() => batch(() => true)}>
          Select all hits
        </button>
        <button type="button" class="small" onClick={() => batch(() => false)}>
          Deselect all hits
        </button>
        <button type="button" class="small" onClick={() => batch((on) => !on)}>
          Invert hits
        </button>
        <span class="muted small-text">
          {hits.length} of {choices.length} shown
        </span>
      </div>
      <ul class="pick-groups">
        {hits.map((g) => (
          <li key={g.id}>
            <label class={`check${capable(g.id) ? '' : ' incapable'}`}>
              <input
                type="checkbox"
                checked={chosen.has(g.id)}
                onChange={(e) => {
                  const on = e.currentTarget.checked;
                  setChosen((c) => {
                    const next = new Set(c);
                    if (on) next.add(g.id);
                    else next.delete(g.id);
                    return next;
                  });
                }}
              />
              {g.name} <span class="muted">#{g.id}</span>
              <span class="muted small-text">
                {statsOf(g.id).total} devices{capable(g.id) ? '' : ` · no ${needCap}`}
              </span>
            </label>
          </li>
        ))}
        {hits.length === 0 && <li class="muted">No group matches.</li>}
      </ul>
    </Modal>
  );
}
