/** Target of a scene action: broadcast, one or more groups, or one device. */
import { devices, groups } from '../store.ts';
import { GroupPicker } from './GroupPicker.tsx';
import type { Target } from '../types.ts';

export function TargetPicker({
  target,
  kinds,
  onChange,
  allowedGroups,
  name,
  needCap,
  maxGroups,
}: {
  target: Target | undefined;
  kinds: string[];
  onChange: (t: Target) => void;
  /** Inside an offset group: only the container's groups. */
  allowedGroups?: number[] | null;
  name: string;
  /** Capability the action needs (STARTBLOCK): groups without one are marked. */
  needCap?: string;
  /** Most groups the target may list (an offset group's container). */
  maxGroups?: number;
}) {
  const t = target ?? { kind: 'broadcast' };
  // Group 0 (Unconfigured) is offered only where a container already lists it.
  const choices = groups.value.filter((g) => (allowedGroups ? allowedGroups.includes(g.id) : g.id !== 0));
  const selected = t.kind === 'groups' ? t.value : [];
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
        <GroupPicker
          selected={selected}
          choices={choices}
          max={maxGroups}
          needCap={needCap}
          scope={allowedGroups ? 'in the container' : undefined}
          onChange={(ids) => onChange({ kind: 'groups', value: ids })}
        />
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
