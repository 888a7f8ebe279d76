/** Target of a scene action: broadcast, one or more groups, or one device. */
import { devices, groups, statsOf } from '../store.ts';
import type { Target } from '../types.ts';

export function TargetPicker({
  target,
  kinds,
  onChange,
  allowedGroups,
  name,
  needCap,
}: {
  target: Target | undefined;
  kinds: string[];
  onChange: (t: Target) => void;
  /** Inside an offset group: only the container's groups. */
  allowedGroups?: number[] | null;
  name: string;
  /** Capability the action needs (STARTBLOCK): groups without one are marked. */
  needCap?: string;
}) {
  const t = target ?? { kind: 'broadcast' };
  const choices = groups.value.filter((g) => g.id !== 0 && (!allowedGroups || allowedGroups.includes(g.id)));
  const selected = t.kind === 'groups' ? t.value : [];
  const toggle = (id: number, on: boolean) => {
    const next = on
      ? [...new Set([...selected, id])].sort((a, b) => a - b)
      : selected.filter((x) => x !== id);
    onChange({ kind: 'groups', value: next });
  };
  const labels: Record<string, string> = { broadcast: 'Broadcast', groups: 'Groups', device: 'Device' };
  return (
    <div class="target">
      <div class="radios" role="radiogroup" aria-label="Target">
        {kinds.map((k) => (
          <label class="check" key={k}>
            <input
              type="radio"
              name={name}
              checked={t.kind === k}
              onChange={() =>
                onChange(
                  k === 'broadcast'
                    ? { kind: 'broadcast' }
                    : k === 'groups'
                      ? { kind: 'groups', value: choices[0] ? [choices[0].id] : [] }
                      : { kind: 'device', value: devices.value[0]?.addr ?? '' },
                )
              }
            />
            {labels[k] ?? k}
          </label>
        ))}
      </div>
      {t.kind === 'groups' && (
        <div class="chips" aria-label="Groups">
          {choices.map((g) => {
            const capable = !needCap || (statsOf(g.id).caps[needCap] ?? 0) > 0;
            return (
              <label
                key={g.id}
                class={`chip-check${selected.includes(g.id) ? ' on' : ''}${capable ? '' : ' incapable'}`}
                title={capable ? `${statsOf(g.id).total} devices` : `No ${needCap} device in '${g.name}'`}
              >
                <input
                  type="checkbox"
                  checked={selected.includes(g.id)}
                  onChange={(e) => toggle(g.id, e.currentTarget.checked)}
                />
                {g.name} <span class="muted">#{g.id}</span>
              </label>
            );
          })}
          {choices.length === 0 && (
            <span class="muted">No groups{allowedGroups ? ' in the container' : ''} yet.</span>
          )}
          {selected.length > 0 && (
            <span class="muted small-text">
              {selected.length} group{selected.length === 1 ? '' : 's'} ·{' '}
              {devices.value.filter((d) => selected.includes(d.groupId)).length} devices
            </span>
          )}
        </div>
      )}
      {t.kind === 'device' && (
        <select
          aria-label="Device"
          value={t.value}
          onChange={(e) => onChange({ kind: 'device', value: e.currentTarget.value })}
        >
          {devices.value.map((d) => (
            <option key={d.addr} value={d.addr}>
              {d.name} ({d.addr})
            </option>
          ))}
        </select>
      )}
    </div>
  );
}
