/** Firmware update targets: the current selection, the current group, everything, or one device type. */
import { groupsById } from '../store.ts';
import type { Device } from '../types.ts';

export type TargetMode = 'selection' | 'group' | 'all' | 'type';

/** The addresses each mode would update; with no type chosen yet the first known type counts. */
export function targetsByMode(
  all: Device[],
  selected: string[],
  groupFilter: number | null,
  type: string,
): { types: string[]; byMode: Record<TargetMode, string[]> } {
  const types = [...new Set(all.map((d) => d.dev_type_name))].sort();
  const byMode: Record<TargetMode, string[]> = {
    selection: selected,
    group: groupFilter === null ? [] : all.filter((d) => d.groupId === groupFilter).map((d) => d.addr),
    all: all.map((d) => d.addr),
    type: all.filter((d) => d.dev_type_name === (type || types[0])).map((d) => d.addr),
  };
  return { types, byMode };
}

export function FirmwareTargets({
  retryOnly,
  onChooseAgain,
  mode,
  onMode,
  type,
  onType,
  types,
  byMode,
  groupFilter,
  planned,
}: {
  /** Set after "Retry failed devices": those devices replace the target choice. */
  retryOnly: string[] | null;
  onChooseAgain: () => void;
  mode: TargetMode | null;
  onMode: (mode: TargetMode) => void;
  type: string;
  onType: (type: string) => void;
  types: string[];
  byMode: Record<TargetMode, string[]>;
  groupFilter: number | null;
  planned: number;
}) {
  if (retryOnly)
    return (
      <p>
        Retrying {retryOnly.length} failed device{retryOnly.length === 1 ? '' : 's'}.{' '}
        <button type="button" class="small" onClick={onChooseAgain}>
          Choose targets again
        </button>
      </p>
    );
  return (
    <div class="radios wrap" role="radiogroup" aria-label="Targets">
      <label class="check">
        <input
          type="radio"
          name="fwtarget"
          checked={mode === 'selection'}
          onChange={() => onMode('selection')}
        />{' '}
        Selection ({byMode.selection.length})
      </label>
      <label class="check">
        <input
          type="radio"
          name="fwtarget"
          checked={mode === 'group'}
          disabled={groupFilter === null}
          onChange={() => onMode('group')}
        />
        Current group
        {groupFilter !== null ? ` '${groupsById.value.get(groupFilter)?.name ?? groupFilter}'` : ''} (
        {byMode.group.length})
      </label>
      <label class="check">
        <input type="radio" name="fwtarget" checked={mode === 'all'} onChange={() => onMode('all')} /> All (
        {byMode.all.length})
      </label>
      <label class="check">
        <input type="radio" name="fwtarget" checked={mode === 'type'} onChange={() => onMode('type')} /> By
        type
        <select
          aria-label="Device type"
          value={type || types[0]}
          onChange={(e) => (onType(e.currentTarget.value), onMode('type'))}
        >
          {types.map((x) => (
            <option key={x}>{x}</option>
          ))}
        </select>
        ({byMode.type.length})
      </label>
      <span class="muted" data-testid="planned">
        {planned} device{planned === 1 ? '' : 's'} planned
      </span>
    </div>
  );
}
